#!/usr/bin/env node
// The `[auth]` seed of the gemini-cli row (adapter.toml): writes Gemini CLI's MCP OAuth token
// store, `~/.gemini/mcp-oauth-tokens.json`, as the CLI itself leaves it after a sign-in to the
// server `probe`. Standard library only.
//
// The format is the installed bundle's (@google/gemini-cli 0.61.0,
// bundle/chunk-JDPZ4CE3.js): `MCPOAuthTokenStorage` (packages/core/src/mcp/oauth-token-storage)
// keeps, unless GEMINI_FORCE_ENCRYPTED_FILE_STORAGE=true, a plain JSON array at
// `Storage.getMcpOAuthTokensPath()` (`<getGlobalRuntimeDir()>/mcp-oauth-tokens.json`, which is
// `~/.gemini` outside a sandbox-exec sandbox), written with `JSON.stringify(array, null, 2)` and
// mode 0600; `saveToken(serverName, token, clientId, tokenUrl, mcpServerUrl)` adds one entry
// `{serverName, token, clientId, tokenUrl, mcpServerUrl, updatedAt}`, and
// `MCPOAuthProvider.authenticate` builds `token` as `{accessToken, tokenType: "Bearer",
// refreshToken, scope}` plus `expiresAt` (Unix milliseconds) only when the token response
// named an expiry. `tokenUrl` is the token endpoint it discovered, `mcpServerUrl` the server's
// configured URL (the `resource` of a later refresh). An absent refresh token or expiry is an
// absent key, as `JSON.stringify` drops an `undefined`.
//
// Input (docs/adapters.md, "Credentials"): MCP_ERROR_LAYERS_AUTH, MCP_ERROR_LAYERS_MCP_URL.
// Tokens are never printed.

import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const auth = JSON.parse(process.env.MCP_ERROR_LAYERS_AUTH ?? "null");
const mcpUrl = process.env.MCP_ERROR_LAYERS_MCP_URL;
if (!auth || !mcpUrl) {
  console.error("seed: MCP_ERROR_LAYERS_AUTH or MCP_ERROR_LAYERS_MCP_URL missing");
  process.exit(2);
}
if (!auth.access_token && !auth.refresh_token) {
  // A store that holds no token is no store: the CLI keeps no entry then.
  process.exit(0);
}

const token = {
  // No access token (a store holding only a refresh token): the empty string, which every
  // reader of the store treats as none (`!accessToken`).
  accessToken: auth.access_token ?? "",
  tokenType: "Bearer",
  refreshToken: auth.refresh_token ?? undefined,
  scope: auth.scope || undefined,
};
if (typeof auth.expires_at === "number") {
  token.expiresAt = auth.expires_at * 1000;
}
// The authorization server's token endpoint, as its RFC 8414 metadata names it.
const tokenUrl = auth.token_endpoint;
const entries = [
  {
    serverName: "probe",
    token,
    clientId: auth.client_id,
    tokenUrl,
    mcpServerUrl: mcpUrl,
    updatedAt: Date.now(),
  },
];

// Qwen Code, a fork, keeps the same store under `~/.qwen` (its row passes `.qwen`).
const dir = join(homedir(), process.argv[2] ?? ".gemini");
mkdirSync(dir, { recursive: true, mode: 0o700 });
writeFileSync(join(dir, "mcp-oauth-tokens.json"), JSON.stringify(entries, null, 2), {
  mode: 0o600,
  flag: "wx",
});
