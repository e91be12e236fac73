// The `[auth]` seed of the mcp-remote row (adapter.toml): writes mcp-remote 0.15.1's own token
// store in the fresh home as a sign-in through it leaves it, from the case's start credentials
// (MCP_ERROR_LAYERS_AUTH) for the URL the bridge is given (MCP_ERROR_LAYERS_MCP_URL). Standard
// library only. Every name and shape below is read from
// node_modules/mcp-remote/dist/chunk-KJCT2FXL.js:
//
// - the folder: getConfigDir(), `$MCP_REMOTE_CONFIG_DIR` or `~/.mcp-auth`, then
//   `mcp-remote-v${CONFIG_STORE_VERSION}` (CONFIG_STORE_VERSION = 1);
// - a file: getConfigFilePath(), `${serverUrlHash}_${filename}`, written by writeJsonFile() as
//   `JSON.stringify(data, null, 2)`, mode 0600;
// - the hash: getServerUrlHash(), md5 hex of the parts joined by "|": the server URL, then the
//   --resource, authorize parameters, --header values, client metadata URL and token endpoint
//   when given (this row gives none, so the URL alone);
// - `tokens.json`: NodeOAuthClientProvider.saveTokens() after the SDK's auth() stamped the
//   issuer: the token response (OAuthTokensSchema: access_token, token_type, expires_in, scope,
//   refresh_token), `issuer`, `expires_at` (ms) and `requested_scope` (read back with
//   OAuthTokensWithExpiresAtSchema);
// - `client_info.json`: saveClientInformation() after a dynamic registration: the client
//   metadata it registers with (the `clientMetadata` getter and the SDK's
//   resolveClientMetadata(): redirect_uris, token_endpoint_auth_method, grant_types,
//   response_types, client_name "MCP CLI Proxy" as runProxy() names it, client_uri, software_id,
//   software_version, scope, application_type) with the client id (and secret) and `issuer`.
//   Its redirect URI must be the one this run uses, or invalidateMismatchedClientRegistration()
//   deletes it at start: buildRedirectUrl(host, port, "/oauth/callback") with host "localhost"
//   (parseCommandLineArgs on Linux) and port calculateDefaultPort(hash) =
//   3335 + parseInt(hash.slice(0, 4), 16) % 45816.
//
// Left out on purpose: `requested_scope` (the scope request of the sign-in: mcp-remote computes
// it from the Protected Resource Metadata of that run, which the seed could only know by asking
// the case's server, a request the case would record; a store without it, as versions before it
// wrote, is never discarded by scopeRequestChanged()), and the code verifier and discovery state
// (`code_verifier_<state>.txt`, `discovery_state_<state>.json`), which saveTokens() deletes once
// a sign-in ends. A store with no access token is written as such (no `access_token` key): its
// schema requires one, so mcp-remote reads no tokens from it, as it would read a store in that
// state.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

const auth = JSON.parse(process.env.MCP_ERROR_LAYERS_AUTH);
const serverUrl = process.env.MCP_ERROR_LAYERS_MCP_URL;
const hash = createHash('md5').update([serverUrl].join('|')).digest('hex');
const dir = path.join(process.env.MCP_REMOTE_CONFIG_DIR || path.join(homedir(), '.mcp-auth'), 'mcp-remote-v1');
mkdirSync(dir, { recursive: true, mode: 0o700 });
const write = (name, data) =>
  writeFileSync(path.join(dir, `${hash}_${name}`), JSON.stringify(data, null, 2), { encoding: 'utf-8', mode: 0o600, flag: 'wx' });
// JSON.stringify leaves out what is undefined, as the store does for what the server did not send.
const given = (value) => (value === null || value === '' ? undefined : value);

const port = 3335 + (parseInt(hash.substring(0, 4), 16) % 45816);
const confidential = given(auth.client_secret) !== undefined;
const issuer = given(auth.authorization_server);

write('client_info.json', {
  redirect_uris: [`http://localhost:${port}/oauth/callback`],
  token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  client_name: 'MCP CLI Proxy',
  client_uri: 'https://github.com/modelcontextprotocol/mcp-cli',
  software_id: '2e6dc280-f3c3-4e01-99a7-8181dbd1d23d',
  software_version: '0.15.1',
  scope: given(auth.scope),
  application_type: 'native',
  client_id: auth.client_id,
  client_secret: given(auth.client_secret),
  issuer,
});

write('tokens.json', {
  access_token: given(auth.access_token),
  token_type: 'Bearer',
  expires_in: typeof auth.expires_in === 'number' && auth.expires_in > 0 ? auth.expires_in : undefined,
  scope: given(auth.scope),
  refresh_token: given(auth.refresh_token),
  issuer,
  expires_at: typeof auth.expires_at === 'number' ? auth.expires_at * 1000 : undefined,
});
