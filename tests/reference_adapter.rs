//! The reference adapter against well-formed servers (wiremock) and raw sockets that cut, stall
//! and refuse.

use mcp_error_layers::Outcome;
use mcp_error_layers::adapter::reference::{ReferenceAdapter, RetryPolicy};
use mcp_error_layers::adapter::{Adapter, CallContext};
use mcp_error_layers::case::builtin;
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::{AdapterReport, Observation};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const SUCCESS: &str = r#"{"content":[{"type":"text","text":"ok"}]}"#;

// ---- helpers -------------------------------------------------------------------------------

fn call_to(endpoint: String) -> CallContext {
    CallContext::new(endpoint, "synthetic", json!({"x": 1}))
}

async fn observe(call: CallContext) -> Observation {
    match ReferenceAdapter::new().call(call).await {
        AdapterReport::Observed(observation) => observation,
        other => panic!("expected an observation, got {other:?}"),
    }
}

fn endpoint(server: &MockServer) -> String {
    format!("{}/mcp", server.uri())
}

/// The JSON body of a recorded request.
fn json_body(request: &Request) -> Value {
    serde_json::from_slice(&request.body).expect("request body is JSON")
}

/// The one value of a recorded request's header, as sent.
fn header_of<'r>(request: &'r Request, name: &str) -> Option<&'r str> {
    request.headers.get(name).map(|v| v.to_str().unwrap())
}

/// A JSON-RPC response to `request` (same id) with this `result` JSON text.
fn result_for(request: &Request, result: &str) -> String {
    let id = &json_body(request)["id"];
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

fn json_reply(status: u16, body: String) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_raw(body, "application/json")
}

/// A wiremock server whose `tools/call` POSTs get what `answer` makes of the request.
async fn tool_server(
    answer: impl Fn(&Request) -> ResponseTemplate + Send + Sync + 'static,
) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .respond_with(answer)
        .mount(&server)
        .await;
    server
}

/// A session-era server: routes on the JSON-RPC method; offers `version` at initialize.
fn session_router(
    version: &'static str,
    sse_init: bool,
) -> impl Fn(&Request) -> ResponseTemplate + Send + Sync + 'static {
    move |request: &Request| match json_body(request)["method"].as_str() {
        Some("initialize") => {
            let result = format!(
                r#"{{"protocolVersion":"{version}","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"mock","version":"1"}}}}"#
            );
            let body = result_for(request, &result);
            let reply = if sse_init {
                ResponseTemplate::new(200)
                    .set_body_raw(format!("data: {body}\n\n"), "text/event-stream")
            } else {
                json_reply(200, body)
            };
            reply.insert_header("Mcp-Session-Id", "session-42")
        }
        Some("notifications/initialized") => ResponseTemplate::new(202),
        Some("tools/call") => json_reply(200, result_for(request, SUCCESS)),
        _ => ResponseTemplate::new(400),
    }
}

/// Reads one HTTP request (head and Content-Length body) from a raw connection.
async fn read_request(stream: &mut TcpStream) -> Vec<u8> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf).await.unwrap();
        seen.extend_from_slice(&buf[..n]);
        if n == 0 || request_complete(&seen) {
            return seen;
        }
    }
}

fn request_complete(seen: &[u8]) -> bool {
    let text = String::from_utf8_lossy(seen);
    let Some(head_end) = text.find("\r\n\r\n") else {
        return false;
    };
    let length = text[..head_end]
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(str::to_owned)
        })
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    seen.len() >= head_end + 4 + length
}

/// A raw server: for each connection, reads the request and hands the stream to `serve`.
/// Returns the endpoint and the number of connections accepted so far.
async fn raw_server<F, Fut>(serve: F) -> (String, Arc<AtomicUsize>)
where
    F: Fn(TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/mcp", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            counter.fetch_add(1, Ordering::SeqCst);
            read_request(&mut stream).await;
            tokio::spawn(serve(stream));
        }
    });
    (endpoint, accepted)
}

const SSE_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";

// ---- 2026-07-28 ----------------------------------------------------------------------------

#[tokio::test]
async fn stateless_call_sends_the_2026_headers_and_body() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .and(header("mcp-protocol-version", "2026-07-28"))
        .and(header("mcp-method", "tools/call"))
        .and(header("mcp-name", "synthetic"))
        .and(header("content-type", "application/json"))
        .respond_with(|r: &Request| json_reply(200, result_for(r, SUCCESS)))
        .expect(1)
        .mount(&server)
        .await;

    let seen = observe(call_to(endpoint(&server))).await;
    assert_eq!(seen.outcome, Outcome::ToolSuccess, "{seen:?}");

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1, "no initialize, no retry");
    let request = &requests[0];
    assert_eq!(
        header_of(request, "accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(header_of(request, "mcp-session-id"), None);
    // A body of known length, not chunked.
    let length = request.body.len().to_string();
    assert_eq!(header_of(request, "content-length"), Some(length.as_str()));
    assert_eq!(header_of(request, "transfer-encoding"), None);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "roots": {}},
        "io.modelcontextprotocol/clientInfo": {
            "name": "mcp-error-layers-reference",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "progressToken": 1,
    });
    let want = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "synthetic", "arguments": {"x": 1}, "_meta": meta},
    });
    assert_eq!(json_body(request), want);
}

#[tokio::test]
async fn tool_success_carries_the_status() {
    let server = tool_server(|r: &Request| json_reply(200, result_for(r, SUCCESS))).await;
    let seen = observe(call_to(endpoint(&server))).await;
    assert_eq!(seen.outcome, Outcome::ToolSuccess, "{seen:?}");
    assert_eq!(seen.status, Some(200));
    assert_eq!(seen.code, None);
}

#[tokio::test]
async fn jsonrpc_error_carries_its_code() {
    let server = tool_server(|r: &Request| {
        let id = &json_body(r)["id"];
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"Invalid params"}}}}"#
        );
        json_reply(200, body)
    })
    .await;
    let seen = observe(call_to(endpoint(&server))).await;
    assert_eq!(seen.outcome, Outcome::JsonrpcError, "{seen:?}");
    assert_eq!(seen.code, Some(-32602));
    assert_eq!(seen.status, Some(200));
}

#[tokio::test]
async fn http_503_is_an_http_error_and_is_not_retried() {
    let server =
        tool_server(|_: &Request| ResponseTemplate::new(503).set_body_raw("busy", "text/plain"))
            .await;
    let seen = observe(call_to(endpoint(&server))).await;
    assert_eq!(seen.outcome, Outcome::HttpError, "{seen:?}");
    assert_eq!(seen.status, Some(503));
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn sse_notification_then_response_is_the_response() {
    let server = tool_server(|r: &Request| {
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#;
        let body = format!("data: {progress}\n\ndata: {}\n\n", result_for(r, SUCCESS));
        ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
    })
    .await;
    let seen = observe(call_to(endpoint(&server))).await;
    assert_eq!(seen.outcome, Outcome::ToolSuccess, "{seen:?}");
    assert_eq!(seen.status, Some(200));
}

#[tokio::test]
async fn accepted_with_no_body_is_no_result() {
    let server = tool_server(|_: &Request| ResponseTemplate::new(202)).await;
    let seen = observe(call_to(endpoint(&server))).await;
    assert_eq!(seen.outcome, Outcome::NoResult, "{seen:?}");
    assert_eq!(seen.status, Some(202));
}

#[tokio::test]
async fn http_400_with_a_jsonrpc_error_carries_status_and_code() {
    let server = tool_server(|r: &Request| {
        let id = &json_body(r)["id"];
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32022,"message":"Unsupported protocol version"}}}}"#
        );
        json_reply(400, body)
    })
    .await;
    let seen = observe(call_to(endpoint(&server))).await;
    assert_eq!(seen.outcome, Outcome::HttpError, "{seen:?}");
    assert_eq!((seen.status, seen.code), (Some(400), Some(-32022)));
}

#[tokio::test]
async fn unknown_protocol_version_is_unsupported() {
    let call = call_to("http://127.0.0.1:9/mcp".into()).with_protocol_version("2024-11-05");
    let report = ReferenceAdapter::new().call(call).await;
    assert!(
        matches!(report, AdapterReport::Unsupported { .. }),
        "{report:?}"
    );
}

// ---- 2025 session era ----------------------------------------------------------------------

#[tokio::test]
async fn session_flow_uses_the_session_id_and_the_negotiated_version() {
    // The client offers 2025-11-25; the server counter-offers 2025-06-18.
    let server = tool_server(session_router("2025-06-18", false)).await;
    let call = call_to(endpoint(&server)).with_protocol_version("2025-11-25");
    let seen = observe(call).await;
    assert_eq!(seen.outcome, Outcome::ToolSuccess, "{seen:?}");

    let requests = server.received_requests().await.unwrap();
    let methods: Vec<_> = requests
        .iter()
        .map(|r| json_body(r)["method"].clone())
        .collect();
    assert_eq!(
        methods,
        [
            json!("initialize"),
            json!("notifications/initialized"),
            json!("tools/call")
        ]
    );
    let [init, note, call] = &requests[..] else {
        unreachable!()
    };
    let init_body = json_body(init);
    assert_eq!(init_body["id"], json!(1));
    assert_eq!(init_body["params"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(init_body["params"]["capabilities"], json!({}));
    assert_eq!(
        init_body["params"]["clientInfo"]["name"],
        json!("mcp-error-layers-reference")
    );
    assert_eq!(header_of(init, "mcp-session-id"), None);
    for later in [note, call] {
        assert_eq!(header_of(later, "mcp-session-id"), Some("session-42"));
        assert_eq!(header_of(later, "mcp-protocol-version"), Some("2025-06-18"));
        assert_eq!(
            header_of(later, "accept"),
            Some("application/json, text/event-stream")
        );
    }
    assert_eq!(json_body(note).get("id"), None);
    let want = json!({
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "synthetic", "arguments": {"x": 1}, "_meta": {"progressToken": 2}},
    });
    assert_eq!(json_body(call), want);
}

#[tokio::test]
async fn session_initialize_answered_over_sse() {
    let server = tool_server(session_router("2025-11-25", true)).await;
    let call = call_to(endpoint(&server)).with_protocol_version("2025-11-25");
    let seen = observe(call).await;
    assert_eq!(seen.outcome, Outcome::ToolSuccess, "{seen:?}");
    let requests = server.received_requests().await.unwrap();
    assert_eq!(
        header_of(&requests[2], "mcp-protocol-version"),
        Some("2025-11-25")
    );
}

#[tokio::test]
async fn failed_initialize_is_reported_as_the_prelude() {
    let server = tool_server(|_: &Request| ResponseTemplate::new(500)).await;
    let call = call_to(endpoint(&server)).with_protocol_version("2025-06-18");
    let seen = observe(call).await;
    assert_eq!(seen.outcome, Outcome::HttpError, "{seen:?}");
    assert_eq!(seen.status, Some(500));
    assert!(seen.detail.starts_with("initialize: "), "{seen:?}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn initialize_with_an_unknown_version_stops_before_the_call() {
    let server = tool_server(session_router("2024-11-05", false)).await;
    let call = call_to(endpoint(&server)).with_protocol_version("2025-06-18");
    let seen = observe(call).await;
    assert!(seen.detail.starts_with("initialize: "), "{seen:?}");
    assert!(seen.detail.contains("2024-11-05"), "{seen:?}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

// ---- raw sockets: refused, cut, stalled ----------------------------------------------------

#[tokio::test]
async fn connection_refused_is_a_connection_error_without_the_port() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let seen = observe(call_to(format!("http://127.0.0.1:{port}/mcp"))).await;
    assert_eq!(seen.outcome, Outcome::ConnectionError, "{seen:?}");
    assert_eq!(seen.status, None);
    assert!(!seen.detail.is_empty());
    assert!(!seen.detail.contains(&port.to_string()), "{seen:?}");
}

#[tokio::test]
async fn a_refused_connection_sent_nothing_and_counts_no_attempt() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let endpoint = format!("http://127.0.0.1:{port}/mcp");
    // A read-only tool: the default policy tries three times, and none of them is sent.
    let repeatable = call_to(endpoint.clone()).with_annotations(json!({"readOnlyHint": true}));
    for call in [call_to(endpoint), repeatable] {
        let seen = observe(call).await;
        assert_eq!(seen.outcome, Outcome::ConnectionError, "{seen:?}");
        assert_eq!(seen.attempts, Some(0), "{seen:?}");
    }
}

/// A deadline that passes while the connection is still being set up (a listener whose accept
/// queue is full drops the SYN, as a server swamped by thousands of clients does): the
/// request never left, and the client says so.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_timeout_before_the_connection_is_up_counts_no_attempt() {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap(); // never accepts: the queue fills
    let addr = listener.local_addr().unwrap();
    let mut fillers = Vec::new();
    for _ in 0..4 {
        fillers.push(tokio::spawn(TcpStream::connect(addr)));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let call = call_to(format!("http://{addr}/mcp")).with_timeout(Duration::from_millis(300));
    let seen = observe(call).await;
    assert_eq!(seen.outcome, Outcome::Timeout, "{seen:?}");
    assert_eq!(seen.attempts, Some(0), "{seen:?}");
    drop(listener);
    fillers.iter().for_each(tokio::task::JoinHandle::abort);
}

#[tokio::test]
async fn close_before_the_status_line_is_one_connection_error() {
    let (endpoint, accepted) = raw_server(|stream| async move { drop(stream) }).await;
    let seen = observe(call_to(endpoint)).await;
    assert_eq!(seen.outcome, Outcome::ConnectionError, "{seen:?}");
    assert_eq!(seen.attempts, Some(1), "it was sent: {seen:?}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "the client must not retry"
    );
}

#[tokio::test]
async fn reset_before_the_status_line_is_a_connection_error() {
    let (endpoint, accepted) = raw_server(|stream| async move {
        stream.set_zero_linger().unwrap();
        drop(stream);
    })
    .await;
    let seen = observe(call_to(endpoint)).await;
    assert_eq!(seen.outcome, Outcome::ConnectionError, "{seen:?}");
    assert_eq!(seen.attempts, Some(1), "it was sent: {seen:?}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "the client must not retry"
    );
}

#[tokio::test]
async fn body_cut_short_of_its_content_length_is_stream_incomplete() {
    let (endpoint, _) = raw_server(|mut stream| async move {
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n";
        let _ = stream.write_all(head.as_bytes()).await;
        let _ = stream.write_all(br#"{"jsonrpc":"2.0","id":1,"#).await;
    })
    .await;
    let seen = observe(call_to(endpoint)).await;
    assert_eq!(seen.outcome, Outcome::StreamIncomplete, "{seen:?}");
    assert_eq!(seen.status, Some(200));
}

#[tokio::test]
async fn sse_stream_closed_before_the_response_is_stream_incomplete() {
    let (endpoint, _) = raw_server(|mut stream| async move {
        // No Content-Length, no chunking: the close is the body's proper end.
        let _ = stream.write_all(SSE_HEAD).await;
        let _ = stream.write_all(b": keep-alive\n\n").await;
    })
    .await;
    let seen = observe(call_to(endpoint)).await;
    assert_eq!(seen.outcome, Outcome::StreamIncomplete, "{seen:?}");
    assert_eq!(seen.status, Some(200));
}

#[tokio::test]
async fn chunked_sse_reset_mid_stream_is_stream_incomplete() {
    let (endpoint, _) = raw_server(|mut stream| async move {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        let _ = stream.write_all(head.as_bytes()).await;
        let _ = stream.write_all(b"6\r\ndata: \r\n").await;
        let _ = stream.flush().await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        stream.set_zero_linger().unwrap();
    })
    .await;
    let seen = observe(call_to(endpoint)).await;
    assert_eq!(seen.outcome, Outcome::StreamIncomplete, "{seen:?}");
    assert_eq!(seen.status, Some(200));
    assert!(seen.detail.contains("body read error"), "{seen:?}");
}

#[tokio::test]
async fn sse_response_then_an_open_stream_returns_at_once() {
    let (endpoint, _) = raw_server(|mut stream| async move {
        let event = format!("data: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{SUCCESS}}}\n\n");
        let _ = stream.write_all(SSE_HEAD).await;
        let _ = stream.write_all(event.as_bytes()).await;
        // Keep the stream open for good: the response alone must decide.
        std::future::pending::<()>().await;
        drop(stream);
    })
    .await;
    let call = call_to(endpoint).with_timeout(Duration::from_secs(5));
    let seen = tokio::time::timeout(Duration::from_secs(2), observe(call))
        .await
        .expect("the adapter returns once the response arrived, not when the stream closes");
    assert_eq!(seen.outcome, Outcome::ToolSuccess, "{seen:?}");
    assert_eq!(seen.status, Some(200));
}

#[tokio::test]
async fn headers_then_silence_is_a_timeout_with_the_status() {
    let (endpoint, _) = raw_server(|mut stream| async move {
        let _ = stream.write_all(SSE_HEAD).await;
        std::future::pending::<()>().await;
        drop(stream);
    })
    .await;
    let call = call_to(endpoint).with_timeout(Duration::from_millis(100));
    let seen = tokio::time::timeout(Duration::from_secs(2), observe(call))
        .await
        .expect("the adapter keeps its own timeout");
    assert_eq!(seen.outcome, Outcome::Timeout, "{seen:?}");
    assert_eq!(seen.status, Some(200));
}

#[tokio::test]
async fn no_head_at_all_is_a_timeout_without_a_status() {
    let (endpoint, _) = raw_server(|stream| async move {
        std::future::pending::<()>().await;
        drop(stream);
    })
    .await;
    let call = call_to(endpoint).with_timeout(Duration::from_millis(100));
    let seen = tokio::time::timeout(Duration::from_secs(2), observe(call))
        .await
        .expect("the adapter keeps its own timeout");
    assert_eq!(seen.outcome, Outcome::Timeout, "{seen:?}");
    assert_eq!(seen.status, None);
}

#[tokio::test]
async fn the_timeout_covers_the_session_prelude() {
    let (endpoint, _) = raw_server(|stream| async move {
        std::future::pending::<()>().await;
        drop(stream);
    })
    .await;
    let call = call_to(endpoint)
        .with_protocol_version("2025-06-18")
        .with_timeout(Duration::from_millis(100));
    let seen = tokio::time::timeout(Duration::from_secs(2), observe(call))
        .await
        .expect("the adapter keeps its own timeout");
    assert_eq!(seen.outcome, Outcome::Timeout, "{seen:?}");
    assert!(seen.detail.starts_with("initialize: "), "{seen:?}");
}

async fn run_builtin(adapter: &ReferenceAdapter, id: &str) -> CaseRecord {
    let source = builtin().into_iter().find(|s| s.id == id).unwrap();
    Run::new(adapter).run_one_async(&source).await
}

fn observed(record: &CaseRecord) -> Observation {
    match &record.calls[0].report {
        Some(AdapterReport::Observed(observation)) => observation.clone(),
        other => panic!("no observation: {other:?}"),
    }
}

#[tokio::test]
async fn without_mrtr_the_client_reports_input_required_after_one_post() {
    let adapter = ReferenceAdapter::new().without_mrtr();
    let record = run_builtin(&adapter, "mrtr/elicitation-then-complete").await;
    assert_eq!(observed(&record).outcome, Outcome::InputRequired);
    assert_eq!(record.calls[0].tool_posts, 1);
    assert_eq!(record.verdict, Verdict::Fail);
}

#[tokio::test]
async fn with_mrtr_the_retry_answers_and_echoes_what_the_server_asked() {
    let record = run_builtin(&ReferenceAdapter::new(), "mrtr/elicitation-then-complete").await;
    let retry: Value = serde_json::from_str(&record.exchanges[1].body).unwrap();
    assert_eq!(retry["id"], 2);
    assert_eq!(
        retry["params"]["inputResponses"]["confirm"],
        json!({"action": "decline"})
    );
    let sent = "eyJzdGVwIjoxfQ.c2lnbmF0dXJl+/= caf\u{e9}";
    assert_eq!(retry["params"]["requestState"], sent);
}

#[tokio::test]
async fn the_never_policy_sends_a_read_only_call_once_and_says_so() {
    let adapter = ReferenceAdapter::new().with_retry(RetryPolicy::Never);
    let record = run_builtin(&adapter, "retry/read-only-503-twice-then-success").await;
    let observation = observed(&record);
    assert_eq!(
        (
            observation.outcome,
            observation.retry.as_deref(),
            observation.attempts
        ),
        (Outcome::HttpError, Some("never"), Some(1))
    );
    assert_eq!(record.calls[0].tool_posts, 1);
}

#[tokio::test]
async fn the_default_policy_waits_the_backoff_between_posts() {
    let record = run_builtin(&ReferenceAdapter::new(), "retry/read-only-503-gives-up").await;
    let posts: Vec<u64> = record
        .exchanges
        .iter()
        .filter(|e| e.is_tool_call())
        .map(|e| e.at_ms)
        .collect();
    assert_eq!(posts.len(), 3);
    assert!(
        posts[1] - posts[0] >= 200 && posts[2] - posts[1] >= 400,
        "{posts:?}"
    );
    assert_eq!(observed(&record).attempts, Some(3));
}
