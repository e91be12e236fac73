//! Finding the authorization server: Protected Resource Metadata (RFC 9728), then the
//! authorization server's metadata (RFC 8414, OpenID Connect discovery), as 2025-11-25
//! basic/authorization ("Authorization Server Discovery") orders them.

use super::Failure;
use crate::adapter::reference::Run;
use reqwest::Url;
use serde_json::Value;
use tokio::time::timeout_at;

/// What discovery found: where to ask for tokens, and for which resource.
#[derive(Debug, Clone)]
pub(in crate::adapter::reference) struct Found {
    /// The authorization server's token endpoint.
    pub(super) token_endpoint: String,
    /// Its authorization endpoint, when its metadata names one.
    pub(super) authorization_endpoint: Option<String>,
    /// The `resource` parameter of every token request (RFC 8707): the Protected Resource
    /// Metadata's `resource`, else the MCP endpoint.
    pub(super) resource: String,
}

impl Run<'_> {
    /// The authorization server of the endpoint, found once per client (`hint`: the
    /// challenge's `resource_metadata`, tried first).
    pub(super) async fn discover(&mut self, hint: Option<&str>) -> Result<Found, Failure> {
        if let Some(found) = self.auth.as_ref().and_then(|t| t.server.clone()) {
            return Ok(found);
        }
        let endpoint = Url::parse(&self.ctx.endpoint)
            .map_err(|e| Failure::GaveUp(format!("the endpoint is no URL: {e}")))?;
        let origin = endpoint.origin().ascii_serialization();
        let path = endpoint.path().trim_end_matches('/');
        // RFC 9728 §3.1: the path-aware URL first, then the root; any refusal moves on (a CDN
        // may guard one and not the other).
        let mut prm_urls: Vec<String> = hint.map(str::to_owned).into_iter().collect();
        prm_urls.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
        prm_urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
        let mut prm = None;
        for url in prm_urls {
            if let Some(document) = self.get_json(&url).await?
                && document.get("authorization_servers").is_some()
            {
                prm = Some(document);
                break;
            }
        }
        // Without Protected Resource Metadata the MCP server's origin is the authorization
        // server (the 2025-03-26 fallback, which clients keep).
        let issuer = prm
            .as_ref()
            .and_then(|p| p.pointer("/authorization_servers/0"))
            .and_then(Value::as_str)
            .unwrap_or(&origin)
            .to_owned();
        let resource = prm
            .as_ref()
            .and_then(|p| p.get("resource"))
            .and_then(Value::as_str)
            .unwrap_or(&self.ctx.endpoint)
            .to_owned();
        let metadata = self.server_metadata(&issuer).await?;
        let Some(token_endpoint) = metadata.get("token_endpoint").and_then(Value::as_str) else {
            let why = format!(
                "the metadata of the issuer {:?} names no token_endpoint",
                path_of(&issuer)
            );
            return Err(Failure::GaveUp(why));
        };
        let found = Found {
            token_endpoint: token_endpoint.to_owned(),
            authorization_endpoint: metadata
                .get("authorization_endpoint")
                .and_then(Value::as_str)
                .map(str::to_owned),
            resource,
        };
        if let Some(tokens) = self.auth.as_mut() {
            tokens.server = Some(found.clone());
        }
        Ok(found)
    }

    /// The metadata of the authorization server `issuer`: RFC 8414, then OpenID discovery
    /// (path-inserted, then appended), the first whose `issuer` is `issuer` (RFC 8414 §3.3: a
    /// client MUST NOT use metadata whose issuer differs).
    async fn server_metadata(&mut self, issuer: &str) -> Result<Value, Failure> {
        let url = Url::parse(issuer)
            .map_err(|e| Failure::GaveUp(format!("the authorization server is no URL: {e}")))?;
        let origin = url.origin().ascii_serialization();
        let path = url.path().trim_end_matches('/');
        let mut urls = vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
        ];
        if !path.is_empty() {
            urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
        }
        let mut mismatched = None;
        for url in urls {
            let Some(document) = self.get_json(&url).await? else {
                continue;
            };
            match document.get("issuer").and_then(Value::as_str) {
                Some(named) if named == issuer => return Ok(document),
                named => mismatched = Some(named.unwrap_or("none").to_owned()),
            }
        }
        // Named by path only: the origin is the case's random port, which would make every
        // report and snapshot of the call differ from run to run.
        let why = match mismatched {
            Some(named) => format!(
                "the authorization server's metadata names issuer {:?}, not {:?}: not used \
                 (RFC 8414 §3.3)",
                path_of(&named),
                path_of(issuer)
            ),
            None => format!(
                "no authorization server metadata for the issuer {:?}",
                path_of(issuer)
            ),
        };
        Err(Failure::GaveUp(why))
    }

    /// A GET of a metadata document: the JSON object of a 200, `None` for anything else.
    async fn get_json(&self, url: &str) -> Result<Option<Value>, Failure> {
        let request = self
            .options
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json");
        let answer = async {
            let response = request.send().await.ok()?;
            if response.status().as_u16() != 200 {
                return None;
            }
            let body = response.bytes().await.ok()?;
            serde_json::from_slice::<Value>(&body)
                .ok()
                .filter(Value::is_object)
        };
        match timeout_at(self.deadline.at(), answer).await {
            Ok(document) => Ok(document),
            Err(_) => Err(Failure::Timeout(
                self.deadline
                    .headless_timeout("the authorization server's metadata"),
            )),
        }
    }
}

/// A URL without its origin (`/another-issuer`, `/` for the origin itself), or the text as it is
/// when it is no URL.
fn path_of(url: &str) -> String {
    match Url::parse(url) {
        Ok(url) => url.path().to_owned(),
        Err(_) => url.to_owned(),
    }
}
