// The `seed` of copilot-cli's `[auth]` table (adapter.toml): writes an authorization case's start
// credentials into Copilot CLI's MCP OAuth store as its own sign-in leaves them, in the fresh
// home, before the agent starts. Standard library only.
//
// Where and how (Copilot CLI 1.0.102: `cli-main.js` and the native `runtime.node` it unpacks
// under $COPILOT_PKG_CACHE_HOME/pkg/linux-x64/1.0.102/):
// - the store: a folder of plain JSON files, `<copilot home>/mcp-oauth-config/`, the copilot
//   home `COPILOT_HOME`, else `~/.copilot` (cli-main.js: `Eer="mcp-oauth-config"`,
//   `S.McpOauthStoreHandle.create(Aer(cs(t,"config"),Eer), sessionId, ...)`; the store itself is
//   native, `src/runtime/src/mcp_base/oauth_store_files.rs`);
// - the key: `S.mcpOauthStoreKey(serverUrl, oauthClientId)`, the server's URL when its entry
//   names no `oauthClientId` (the row's does not); each file is named by the hex of
//   PBKDF2-HMAC-SHA256(key, salt "copilot-mcp-oauth-store-key-v1", 210000 iterations, 32
//   bytes): `<name>.tokens.json` the tokens, `<name>.json` the client registration. Tokens a
//   session saves go to the name of `key + "\0" + sessionId`, and a session reads its own, else
//   the one without a session: a sign-in that later sessions see is the one without;
// - what its sign-in writes there (its native OAuth flow, `McpOauthStoreHandle.createFlow(...).run()`,
//   driven once through a loopback authorization server in a scratch folder): the client
//   registration `<name>.json`, pretty-printed `{"serverUrl", "authorizationServerUrl",
//   "clientId", "clientSecret", "redirectUri", "resourceUrl", "issuedAt", "isStatic",
//   "httpsRedirect"}`, and the tokens `<name>.tokens.json`, `{"accessToken", "requestedScope",
//   "expiresAt" (Unix seconds), "scope", "refreshToken"}` (the fields its reader knows; a
//   snake_case `access_token` reads as no token). It also writes the tokens under the session's
//   name, without the refresh token; a later session reads only the one without a session.
// Without the registration's `serverUrl` and `authorizationServerUrl` it never refreshes ("no
// cached client registration", "cached registration server URL differs" in runtime.node).
import { pbkdf2Sync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const credentials = JSON.parse(process.env.MCP_ERROR_LAYERS_AUTH ?? "null");
const url = process.env.MCP_ERROR_LAYERS_MCP_URL;
if (!credentials || !url) {
  console.error("seed-credentials: MCP_ERROR_LAYERS_AUTH and MCP_ERROR_LAYERS_MCP_URL are needed");
  process.exit(2);
}

const key = url; // mcpOauthStoreKey(url, undefined)
const name = pbkdf2Sync(key, "copilot-mcp-oauth-store-key-v1", 210000, 32, "sha256").toString("hex");

const tokens = {
  ...(credentials.access_token != null && { accessToken: credentials.access_token }),
  ...(credentials.scope && { requestedScope: credentials.scope }),
  ...(credentials.expires_at != null && { expiresAt: credentials.expires_at }),
  ...(credentials.scope && { scope: credentials.scope }),
  ...(credentials.refresh_token != null && { refreshToken: credentials.refresh_token }),
};
const registration = {
  serverUrl: url,
  authorizationServerUrl: credentials.authorization_server,
  clientId: credentials.client_id,
  clientSecret: credentials.client_secret ?? null,
  redirectUri: credentials.redirect_uri,
  resourceUrl: url,
  issuedAt: Math.floor(Date.now() / 1000),
  isStatic: false,
  httpsRedirect: null,
};

const home = process.env.COPILOT_HOME || join(process.env.HOME || homedir(), ".copilot");
const dir = join(home, "mcp-oauth-config");
mkdirSync(dir, { recursive: true, mode: 0o700 });
writeFileSync(join(dir, `${name}.tokens.json`), JSON.stringify(tokens), { mode: 0o600 });
writeFileSync(join(dir, `${name}.json`), JSON.stringify(registration, null, 2), { mode: 0o600 });
