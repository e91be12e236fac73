// The `seed` of claude-code's `[auth]` table (adapter.toml): writes an authorization case's start
// credentials into Claude Code's MCP OAuth store as its own sign-in leaves them, in the fresh
// home, before the agent starts. Standard library only.
//
// Where and how (Claude Code 2.1.332, the JavaScript inside the native binary of
// @anthropic-ai/claude-code-linux-x64):
// - the store: on Linux (no keychain) the plaintext storage, `<config dir>/.credentials.json`
//   (mode 0600), the config dir `CLAUDE_SECURESTORAGE_CONFIG_DIR`, else `CLAUDE_CONFIG_DIR`,
//   else `~/.claude` (`storagePath: join(I6(), ".credentials.json")`, the storage named
//   "plaintext"; `gCe()` returns "file" on Linux);
// - the key: `mcpOAuth["<serverName>|<hash>"]`, the hash the first 16 hex digits of
//   sha256(JSON.stringify({type, url, headers: headers || {}})) of the server's config
//   (`function Zc(e,n)`, the server key every reader and writer of `mcpOAuth` uses);
// - the entry: what `saveClientInformation` and `saveTokens` of its OAuth provider write:
//   `serverName`, `serverUrl`, `clientId`, `clientSecret` (a confidential client only),
//   `redirectUri`, `issuer` (the authorization server's, which its MCP SDK stamps on the client
//   information and the tokens it saves: SEP-2352; without it every read warns "stored OAuth
//   credential has no 'issuer' stamp"), `accessToken` ("" when it holds none), `refreshToken`,
//   `expiresAt` (Unix milliseconds, `Date.now() + expires_in * 1000`), `scope`.
// Its `discoveryState` (the authorization server it found, cached) is left out: the agent
// discovers it again from the challenge, as the cases ask.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync, chmodSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const credentials = JSON.parse(process.env.MCP_ERROR_LAYERS_AUTH ?? "null");
const url = process.env.MCP_ERROR_LAYERS_MCP_URL;
if (!credentials || !url) {
  console.error("seed-credentials: MCP_ERROR_LAYERS_AUTH and MCP_ERROR_LAYERS_MCP_URL are needed");
  process.exit(2);
}

// The server as the row's mcp.json names it (adapter.toml `[[file]]`).
const serverName = "probe";
const serverConfig = { type: "http", url };
const hash = createHash("sha256")
  .update(JSON.stringify({ type: serverConfig.type, url: serverConfig.url, headers: serverConfig.headers || {} }))
  .digest("hex")
  .substring(0, 16);
const key = `${serverName}|${hash}`;

const entry = {
  serverName,
  serverUrl: url,
  clientId: credentials.client_id,
  ...(credentials.client_secret != null && { clientSecret: credentials.client_secret }),
  ...(credentials.redirect_uri && { redirectUri: credentials.redirect_uri }),
  ...(credentials.authorization_server && { issuer: credentials.authorization_server }),
  accessToken: credentials.access_token ?? "",
  ...(credentials.refresh_token != null && { refreshToken: credentials.refresh_token }),
  ...(credentials.expires_at != null && { expiresAt: credentials.expires_at * 1000 }),
  ...(credentials.scope && { scope: credentials.scope }),
};

const dir =
  process.env.CLAUDE_SECURESTORAGE_CONFIG_DIR ||
  process.env.CLAUDE_CONFIG_DIR ||
  join(process.env.HOME || homedir(), ".claude");
mkdirSync(dir, { recursive: true, mode: 0o700 });
const path = join(dir, ".credentials.json");
writeFileSync(path, JSON.stringify({ mcpOAuth: { [key]: entry } }), { mode: 0o600 });
chmodSync(path, 0o600);
