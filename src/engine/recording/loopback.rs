//! `record` talks to loopback only: the server it forwards to and the address it listens on
//! must both be on this machine, so a recording never reaches or exposes anything else. A name
//! (`localhost`) is judged by the addresses it resolves to, once, at the start: the proxy
//! connects to those addresses and never resolves the name again.

use std::net::{IpAddr, SocketAddr};

/// An address `record` refuses, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoopbackError {
    /// The upstream is not an `http://` URL.
    #[error(
        "--upstream {0:?} is not an http:// URL; give the server's endpoint, like http://127.0.0.1:8000/mcp"
    )]
    NotHttp(String),
    /// The upstream's port is not a TCP port.
    #[error("--upstream {url:?}: {port:?} is not a port (1 to 65535)")]
    BadPort {
        /// The URL given.
        url: String,
        /// What stands where the port goes.
        port: String,
    },
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
    /// The upstream's name resolves to no address, or to one that is not loopback.
    #[error(
        "--upstream {url:?}: {host} resolves to {found}; record connects only to loopback addresses, so give one (127.0.0.1 or ::1) or fix what {host} resolves to"
    )]
    ResolvesElsewhere {
        /// The URL given.
        url: String,
        /// Its host.
        host: String,
        /// What it resolved to, or why it did not.
        found: String,
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

/// An upstream that passed the check: the only addresses `record` connects to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// The URL given.
    pub url: String,
    /// Its host, as written (brackets removed).
    pub host: String,
    /// The loopback addresses it stands for, resolved once.
    pub addrs: Vec<SocketAddr>,
}

/// Checks that `url` is `http://` to a loopback host: an IP literal, or `localhost` resolved
/// once by the system's resolver to loopback addresses only. The addresses found are the ones
/// to connect to; nothing resolves the name again.
pub fn loopback_upstream(url: &str) -> Result<Upstream, LoopbackError> {
    checked_upstream(url, |host, port| {
        use std::net::ToSocketAddrs;
        (host, port).to_socket_addrs().map(Iterator::collect)
    })
}

/// [`loopback_upstream`] with the resolver given: it gets the host name and port and is asked
/// only for `localhost` (an IP literal needs none, any other name is refused as it stands).
pub fn checked_upstream(
    url: &str,
    resolve: impl FnOnce(&str, u16) -> std::io::Result<Vec<SocketAddr>>,
) -> Result<Upstream, LoopbackError> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| LoopbackError::NotHttp(url.to_owned()))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let (host, port) = match host_port.strip_prefix('[') {
        Some(bracketed) => bracketed.split_once(']').unwrap_or((bracketed, "")),
        None => host_port
            .split_once(':')
            .map_or((host_port, ""), |(h, p)| (h, p)),
    };
    let not_loopback = || LoopbackError::UpstreamNotLoopback {
        url: url.to_owned(),
        host: host_port.to_owned(),
    };
    if authority.contains('@') {
        return Err(not_loopback());
    }
    let port = parse_port(port.strip_prefix(':').unwrap_or(port), url)?;
    let addrs = match host.parse::<IpAddr>() {
        Ok(ip) if ip.is_loopback() => vec![SocketAddr::new(ip, port)],
        Ok(_) => return Err(not_loopback()),
        Err(_) if host.eq_ignore_ascii_case("localhost") => {
            resolved(url, host, resolve(host, port))?
        }
        Err(_) => return Err(not_loopback()),
    };
    Ok(Upstream {
        url: url.to_owned(),
        host: host.to_owned(),
        addrs,
    })
}

/// The port of the URL (80 when it names none).
fn parse_port(text: &str, url: &str) -> Result<u16, LoopbackError> {
    if text.is_empty() {
        return Ok(80);
    }
    text.parse::<u16>()
        .ok()
        .filter(|port| *port > 0)
        .ok_or_else(|| LoopbackError::BadPort {
            url: url.to_owned(),
            port: text.to_owned(),
        })
}

/// The addresses a name resolved to, when there are some and every one is loopback.
fn resolved(
    url: &str,
    host: &str,
    found: std::io::Result<Vec<SocketAddr>>,
) -> Result<Vec<SocketAddr>, LoopbackError> {
    let elsewhere = |found: String| LoopbackError::ResolvesElsewhere {
        url: url.to_owned(),
        host: host.to_owned(),
        found,
    };
    let addrs = found.map_err(|e| elsewhere(format!("no address ({e})")))?;
    if addrs.is_empty() {
        return Err(elsewhere("no address".to_owned()));
    }
    if addrs.iter().all(|addr| addr.ip().is_loopback()) {
        return Ok(addrs);
    }
    let shown: Vec<String> = addrs.iter().map(|a| a.ip().to_string()).collect();
    Err(elsewhere(format!(
        "{}, not only loopback addresses",
        shown.join(", ")
    )))
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
            "http://[::1]:9/mcp",
            "http://127.1.2.3",
        ] {
            let checked = loopback_upstream(url).unwrap();
            assert!(checked.addrs.iter().all(|a| a.ip().is_loopback()), "{url}");
        }
        assert_eq!(
            loopback_upstream("http://127.1.2.3").unwrap().addrs[0].port(),
            80
        );
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
        for port in ["99999", "0", "x", "-1"] {
            let url = format!("http://127.0.0.1:{port}/mcp");
            let error = loopback_upstream(&url).unwrap_err().to_string();
            assert!(error.contains("is not a port (1 to 65535)"), "{error}");
        }
    }

    /// The name is resolved once, by the resolver given, and only loopback answers pass: a
    /// `localhost` that an altered hosts file points elsewhere is refused before any connect.
    #[test]
    fn localhost_passes_only_when_every_address_it_resolves_to_is_loopback() {
        let at = |ip: &str| SocketAddr::new(ip.parse().unwrap(), 8000);
        let url = "http://localhost:8000/mcp";
        let mut asked = Vec::new();
        let checked = checked_upstream(url, |host, port| {
            asked.push((host.to_owned(), port));
            Ok(vec![at("127.0.0.1"), at("::1")])
        })
        .unwrap();
        assert_eq!(asked, [("localhost".to_owned(), 8000)]);
        assert_eq!(checked.addrs, [at("127.0.0.1"), at("::1")]);
        let error = checked_upstream(url, |_, _| Ok(vec![at("127.0.0.1"), at("10.0.0.1")]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("localhost resolves to 127.0.0.1, 10.0.0.1, not only loopback"),
            "{error}"
        );
        let error = checked_upstream(url, |_, _| Ok(vec![]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("localhost resolves to no address"),
            "{error}"
        );
        let literal = checked_upstream("http://127.0.0.1:1/", |_, _| panic!("no lookup"));
        assert!(literal.is_ok());
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
