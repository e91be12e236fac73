//! An HTTP bridge (a gateway): started in a process group of its own on a loopback port,
//! ready once the port takes connections; and the `tools/list` asked of it after a case's
//! last call, in a session of its own.

use super::super::group::ProcessGroup;
use crate::adapter::{LogSlot, StdioLaunch};
use serde_json::{Value, json};
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A running HTTP bridge; dropping it kills its whole process group.
#[derive(Debug)]
pub(super) struct Gateway {
    _group: ProcessGroup,
}

/// The lowest port a bridge is handed.
const FIRST_PORT: u16 = 10_000;

/// Where the next search for a bridge's port starts, as an offset from [`FIRST_PORT`].
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A loopback port no one listens on now (the bridge is told it and binds it), from below the
/// kernel's ephemeral range: that range is where `bind(0)` takes a port (every wire server of
/// the run) and where outgoing connections take theirs, so a port handed here and released
/// cannot be taken by one of them before the bridge binds it. One taken that way made the
/// gateway's readiness check find a case's own upstream server listening on it, and the
/// reference client called the upstream as if it were the gateway (CI, 2026-12-07). Each call
/// hands the next port of the range (the row's process and its namespace are the only users).
pub(super) fn free_port() -> Result<u16, String> {
    let ports = FIRST_PORT..ephemeral_low().max(FIRST_PORT + 1);
    let len = usize::from(ports.end - ports.start);
    for _ in 0..len {
        let offset = NEXT.fetch_add(1, Ordering::Relaxed) % len;
        let port = ports.start + u16::try_from(offset).unwrap_or(0);
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    Err(format!(
        "no free loopback port from {} to {} (below the kernel's ephemeral range)",
        ports.start, ports.end
    ))
}

/// The first port of the kernel's ephemeral range (`net.ipv4.ip_local_port_range`; Linux's
/// default, 32768, where it cannot be read).
fn ephemeral_low() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}

impl Gateway {
    /// Starts `argv` as `launch` says and waits until 127.0.0.1:`port` takes connections, the
    /// process ends, or `timeout` passes.
    pub(super) async fn start(
        argv: &[String],
        launch: &StdioLaunch,
        port: u16,
        timeout: Duration,
    ) -> Result<Gateway, String> {
        let (program, args) = argv.split_first().ok_or("an empty command line")?;
        let mut command = Command::new(program);
        command
            .args(args)
            .env_clear()
            .envs(launch.env.iter().cloned())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &launch.dir {
            command.current_dir(dir);
        }
        let (group, mut child) = ProcessGroup::spawn(&mut command)
            .map_err(|e| format!("cannot start {program:?}: {e}"))?;
        if let Some(pipe) = child.stdout.take() {
            copy_into(pipe, launch.stderr.clone());
        }
        if let Some(pipe) = child.stderr.take() {
            copy_into(pipe, launch.stderr.clone());
        }
        let started = Instant::now();
        while started.elapsed() < timeout {
            if let Some(exit) = group.exit() {
                return Err(format!(
                    "the bridge {exit} before it listened on port {port}"
                ));
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Ok(Gateway { _group: group });
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Err(format!(
            "the bridge did not listen on port {port} within {} ms (`start_timeout_ms`)",
            timeout.as_millis()
        ))
    }
}

/// Copies a pipe into the log of the call the bridge serves, on a thread of its own.
fn copy_into(mut pipe: impl Read + Send + 'static, log: LogSlot) {
    let _ = std::thread::Builder::new()
        .name("bridge-output".into())
        .spawn(move || {
            let mut buffer = [0u8; 8192];
            while let Ok(n @ 1..) = pipe.read(&mut buffer) {
                log.append(&buffer[..n]);
            }
        });
}

/// `Ok` when `endpoint` answers `tools/list` with a result, in a new 2025-06-18 session,
/// within `timeout`.
pub(super) async fn probe(
    endpoint: &str,
    key: Option<&str>,
    timeout: Duration,
) -> Result<(), String> {
    tokio::time::timeout(timeout, list_tools(endpoint, key))
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} ms", timeout.as_millis())))
}

async fn list_tools(endpoint: &str, key: Option<&str>) -> Result<(), String> {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(key) = key {
        let value = reqwest::header::HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|e| format!("`downstream_key` cannot be a header value: {e}"))?;
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    let client = reqwest::Client::builder()
        .no_proxy()
        .default_headers(headers)
        .build()
        .map_err(|e| e.to_string())?;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": super::DOWNSTREAM_VERSION, "capabilities": {},
        "clientInfo": {"name": "mcp-error-layers-probe", "version": env!("CARGO_PKG_VERSION")}}});
    let (session, _) = post(&client, endpoint, None, &initialize).await?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(&client, endpoint, session.as_deref(), &initialized).await?;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (_, body) = post(&client, endpoint, session.as_deref(), &list).await?;
    if answers_with_result(&body, 2) {
        Ok(())
    } else {
        Err(format!("its answer holds no result: {}", shown(&body)))
    }
}

/// One POST; its session id and body, or why it failed.
async fn post(
    client: &reqwest::Client,
    endpoint: &str,
    session: Option<&str>,
    message: &Value,
) -> Result<(Option<String>, String), String> {
    let mut request = client
        .post(endpoint)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(message.to_string());
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", super::DOWNSTREAM_VERSION);
    }
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = response.text().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("HTTP {status}: {}", shown(&body)));
    }
    Ok((session, body))
}

/// Whether `body` (JSON, or SSE `data:` lines) holds a result to the request with `id`.
fn answers_with_result(body: &str, id: i64) -> bool {
    let is_result = |text: &str| {
        serde_json::from_str::<Value>(text.trim())
            .is_ok_and(|m| m.get("id") == Some(&json!(id)) && m.get("result").is_some())
    };
    is_result(body)
        || body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .any(is_result)
}

fn shown(body: &str) -> String {
    body.chars().take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bridge_ports_are_distinct_free_and_below_the_ephemeral_range() {
        let low = ephemeral_low();
        let ports: Vec<u16> = (0..50).map(|_| free_port().unwrap()).collect();
        let distinct: std::collections::BTreeSet<_> = ports.iter().collect();
        assert_eq!(distinct.len(), ports.len(), "{ports:?}");
        assert!(
            ports.iter().all(|&p| (FIRST_PORT..low).contains(&p)),
            "{ports:?} (range up to {low})"
        );
        // A port held by a listener is passed over.
        let next = FIRST_PORT
            + u16::try_from(NEXT.load(Ordering::Relaxed) % usize::from(low - FIRST_PORT)).unwrap();
        let _held = std::net::TcpListener::bind(("127.0.0.1", next));
        assert_ne!(free_port().unwrap(), next);
    }
}
