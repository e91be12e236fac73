#!/usr/bin/env node
// The `[auth]` seed of the codex row (adapter.toml): writes Codex's MCP OAuth file store,
// `$CODEX_HOME/.credentials.json`, as `codex mcp login probe` leaves it after a sign-in, from
// the start credentials in MCP_ERROR_LAYERS_AUTH (docs/adapters.md, "Credentials") and the MCP
// URL in MCP_ERROR_LAYERS_MCP_URL. Standard library only.
//
// The format is Codex's own (codex-rs/rmcp-client/src/oauth.rs in the pinned 0.171.0 binary:
// `FALLBACK_FILENAME`, `FallbackTokenEntry`, `compute_store_key`, `sha_256_prefix`):
//
//   { "<server>|<first 16 hex digits of sha256(json)>": {
//       "server_name", "server_url", "issuer", "client_id", "access_token",
//       "expires_at" (Unix milliseconds or null), "refresh_token" (or null), "scopes": [...] } }
//
// where json is serde_json's text of {"headers": {}, "type": "http", "url": <server_url>}
// (a serde_json Map: keys sorted). `issuer` is the authorization server's issuer the sign-in
// found; Codex refuses to send a refresh token whose entry names none (`bound_issuer`,
// `validate_refresh_token_issuer`). A confidential client's secret is no part of the file: Codex
// takes it from the server's `oauth` table in config.toml (`client_id`, `client_secret`;
// `OAuthClientCredentials::resolve`), which this appends when the store holds a secret.

import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SERVER = "probe";
const auth = JSON.parse(process.env.MCP_ERROR_LAYERS_AUTH ?? "null");
const url = process.env.MCP_ERROR_LAYERS_MCP_URL;
const home = process.env.CODEX_HOME;
if (!auth || !url || !home) {
  console.error("seed: MCP_ERROR_LAYERS_AUTH, MCP_ERROR_LAYERS_MCP_URL and CODEX_HOME are needed");
  process.exit(2);
}

const payload = JSON.stringify({ headers: {}, type: "http", url });
const key = `${SERVER}|${createHash("sha256").update(payload).digest("hex").slice(0, 16)}`;
const expiresAt =
  typeof auth.expires_at === "number" ? auth.expires_at * 1000 : null;
const entry = {
  server_name: SERVER,
  server_url: url,
  issuer: auth.authorization_server || undefined,
  client_id: auth.client_id,
  access_token: auth.access_token ?? "",
  expires_at: expiresAt,
  refresh_token: auth.refresh_token ?? null,
  scopes: (auth.scope ?? "").split(" ").filter(Boolean),
};

mkdirSync(home, { recursive: true });
writeFileSync(join(home, ".credentials.json"), JSON.stringify({ [key]: entry }), {
  mode: 0o600,
  flag: "wx",
});

if (auth.client_secret) {
  const quoted = (s) => JSON.stringify(s);
  appendFileSync(
    join(home, "config.toml"),
    `\n[mcp_servers.${SERVER}.oauth]\nclient_id = ${quoted(auth.client_id)}\n` +
      `client_secret = ${quoted(auth.client_secret)}\n`,
  );
}
