#!/usr/bin/env node
// The `[auth]` seed of the opencode row (adapter.toml): writes OpenCode's MCP OAuth store,
// `$XDG_DATA_HOME/opencode/mcp-auth.json` (`~/.local/share/opencode/mcp-auth.json`), as its
// OAuth provider leaves it after a sign-in (`opencode mcp auth probe`), from the start
// credentials in MCP_ERROR_LAYERS_AUTH (docs/adapters.md, "Credentials") and the MCP URL in
// MCP_ERROR_LAYERS_MCP_URL. Standard library only.
//
// The format is the pinned binary's (1.18.33, its bundled `McpAuth` service and the MCP OAuth
// provider beside it: `Entry`, `Tokens`, `ClientInfo`, `saveTokens`, `saveClientInformation`):
//
//   { "<server name>": {
//       "tokens": { "accessToken", "refreshToken"?, "expiresAt"? (Unix seconds), "scope"? },
//       "clientInfo": { "clientId", "clientSecret"? },
//       "serverUrl": <the server's URL> } }
//
// `getForUrl` returns an entry only when its `serverUrl` is the configured URL. The file is
// written mode 0600, as its `writeJson(…, 384)` does. A key it would not write (a token the
// store holds none of) is left out, as JSON.stringify leaves out `undefined`.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SERVER = "probe";
const auth = JSON.parse(process.env.MCP_ERROR_LAYERS_AUTH ?? "null");
const url = process.env.MCP_ERROR_LAYERS_MCP_URL;
const data = process.env.XDG_DATA_HOME ?? join(process.env.HOME ?? ".", ".local", "share");
if (!auth || !url) {
  console.error("seed: MCP_ERROR_LAYERS_AUTH and MCP_ERROR_LAYERS_MCP_URL are needed");
  process.exit(2);
}

const entry = {
  tokens: {
    accessToken: auth.access_token ?? "",
    refreshToken: auth.refresh_token ?? undefined,
    expiresAt: typeof auth.expires_at === "number" ? auth.expires_at : undefined,
    scope: auth.scope || undefined,
  },
  clientInfo: {
    clientId: auth.client_id,
    clientSecret: auth.client_secret ?? undefined,
  },
  serverUrl: url,
};

const folder = join(data, "opencode");
mkdirSync(folder, { recursive: true, mode: 0o700 });
writeFileSync(join(folder, "mcp-auth.json"), JSON.stringify({ [SERVER]: entry }, null, 2), {
  mode: 0o600,
  flag: "wx",
});
