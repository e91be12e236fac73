//! `record` talks to loopback only: the server it forwards to and the address it listens on
//! must both be on this machine, so a recording never reaches or exposes anything else.

use std::net::{IpAddr, SocketAddr};

/// An address `record` refuses, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoopbackError {
    /// The upstream is not an `http://` URL.
    #[error(
        "--upstream {0:?} is not an http:// URL; give the server's endpoint, like http://127.0.0.1:8000/mcp"
    )]
    NotHttp(String),
    /// The upstream's host is not loopback.
    #[error(
        "--upstream {url:?}: {host} is not a loopback address; record forwards only to a server on this machine (127.0.0.1, ::1 or localhost)"
    )]
    UpstreamNotLoopback {
        /// The URL given.
        url: String,
        /// Its host.
        host: String,
    },
    /// The listen address does not parse.
    #[error("--listen {0:?} is not an address like 127.0.0.1:0")]
    ListenSyntax(String),
    /// The listen address is not loopback.
    #[error(
        "--listen {0}: {1} is not a loopback address; record listens only on 127.0.0.1 or ::1, so that no other machine reaches it"
    )]
    ListenNotLoopback(String, IpAddr),
}

/// Checks that `url` is `http://` to a loopback host (an IP literal or `localhost`).
pub fn loopback_upstream(url: &str) -> Result<(), LoopbackError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| LoopbackError::NotHttp(url.to_owned()))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    match loopback && !authority.contains('@') {
        true => Ok(()),
        false => Err(LoopbackError::UpstreamNotLoopback {
            url: url.to_owned(),
            host: host_port.to_owned(),
        }),
    }
}

/// Parses `addr` and checks that it is a loopback address.
pub fn loopback_listen(addr: &str) -> Result<SocketAddr, LoopbackError> {
    let parsed: SocketAddr = addr
        .parse()
        .map_err(|_| LoopbackError::ListenSyntax(addr.to_owned()))?;
    match parsed.ip().is_loopback() {
        true => Ok(parsed),
        false => Err(LoopbackError::ListenNotLoopback(
            addr.to_owned(),
            parsed.ip(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_upstreams_pass() {
        for url in [
            "http://127.0.0.1:8000/mcp",
            "http://localhost:1/",
            "http://[::1]:9/mcp",
            "http://127.1.2.3",
        ] {
            assert_eq!(loopback_upstream(url), Ok(()), "{url}");
        }
        for url in [
            "http://example.com/mcp",
            "http://10.0.0.1:80/mcp",
            "http://127.0.0.1@evil.test/",
            "http://localhost.evil.test/",
        ] {
            let error = loopback_upstream(url).unwrap_err().to_string();
            assert!(error.contains("not a loopback address"), "{error}");
        }
        let error = loopback_upstream("https://127.0.0.1/mcp").unwrap_err();
        assert!(error.to_string().contains("not an http:// URL"), "{error}");
    }

    #[test]
    fn only_loopback_listen_addresses_pass() {
        assert!(loopback_listen("127.0.0.1:0").is_ok());
        assert!(loopback_listen("[::1]:0").is_ok());
        let error = loopback_listen("0.0.0.0:8080").unwrap_err().to_string();
        assert!(
            error.contains("0.0.0.0 is not a loopback address"),
            "{error}"
        );
        let error = loopback_listen("localhost").unwrap_err().to_string();
        assert!(error.contains("not an address"), "{error}");
    }
}
