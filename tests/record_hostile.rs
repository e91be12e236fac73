//! `record` and `import` against hostile peers and inputs (issue 36): clients that start a
//! call and go away, requests the proxy cannot read, and a HAR corpus of the shapes that used
//! to lose an exchange or write a wrong case. Every case written must replay to its recorded
//! outcome against the reference client, or the exchange is reported skipped with a reason.
//!
//! The upstream here is a small server of this file's own on 127.0.0.1: it answers a
//! `tools/call` of the tool `stall` with a head and then nothing, any other at once, and
//! counts the connections still open to it.

use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::CaseSource;
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::engine::recording::{
    Recorder, RecorderOptions, Report, read_har, stem, write_family,
};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The upstream: its address and how many connections are open to it.
struct Upstream {
    addr: SocketAddr,
    open: Arc<AtomicUsize>,
}

fn upstream() -> Upstream {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let open = Arc::new(AtomicUsize::new(0));
    let counted = open.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let open = counted.clone();
            open.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                serve(stream);
                open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    Upstream { addr, open }
}

/// Serves one connection until the peer closes it.
fn serve(mut stream: TcpStream) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let Some(end) = find(&buffer, b"\r\n\r\n") else {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buffer.len() < end + 4 + length {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        let body: Value =
            serde_json::from_slice(&buffer[end + 4..end + 4 + length]).unwrap_or_default();
        buffer.drain(..end + 4 + length);
        if body.pointer("/params/name") == Some(&json!("stall")) {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
            let _ = stream.write_all(head.as_bytes());
            // Nothing more: wait for the peer to close.
            while matches!(stream.read(&mut chunk), Ok(n) if n > 0) {}
            return;
        }
        let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": {"content": [], "isError": false}});
        let text = answer.to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        );
        if stream.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn recorder(upstream: &Upstream, out: &Path) -> Recorder {
    Recorder::start(RecorderOptions {
        upstream: format!("http://{}/mcp", upstream.addr),
        listen: "127.0.0.1:0".into(),
        out: out.to_path_buf(),
        faults: Vec::new(),
        max_exchanges: 10_000,
    })
    .unwrap()
}

fn call_request(id: u64, tool: &str) -> String {
    let body =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}})
            .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// One request on a fresh connection; the whole answer up to the connection's close (the
/// request asks for it).
fn exchange(addr: SocketAddr, request: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let request = request.replacen("\r\n\r\n", "\r\nconnection: close\r\n\r\n", 1);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < until, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `count` clients at `addr`, each with a call of the tool the upstream stalls, returned once
/// every slot is taken (the upstream holds 256 stalled calls).
fn stalled_clients(upstream: &Upstream, addr: SocketAddr, count: u64) -> Vec<TcpStream> {
    let clients = (0..count)
        .map(|n| {
            let mut stream = TcpStream::connect(addr).unwrap();
            stream
                .write_all(call_request(n, "stall").as_bytes())
                .unwrap();
            stream
        })
        .collect();
    wait_until("256 stalled calls upstream", || {
        upstream.open.load(Ordering::SeqCst) >= 256
    });
    clients
}

/// 300 clients start a call the upstream stalls and go away: their slots and upstream
/// connections are freed at once, so the next ordinary call is served (it used to wait about
/// two minutes), and each abandoned call is written as the stall it was.
#[test]
fn abandoned_stalled_calls_hold_no_slot_and_no_upstream_connection() {
    let upstream = upstream();
    let out = tempfile::tempdir().unwrap();
    let recorder = recorder(&upstream, out.path());
    let addr = recorder.addr();
    let clients = stalled_clients(&upstream, addr, 300);
    drop(clients);
    let started = Instant::now();
    let answer = exchange(addr, &call_request(1000, "ok"));
    let served_in = started.elapsed();
    eprintln!(
        "the next call was served {} ms after 300 clients left",
        served_in.as_millis()
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"isError\":false"), "{answer}");
    wait_until(
        "the upstream connections of the abandoned calls closed",
        || upstream.open.load(Ordering::SeqCst) <= 1,
    );
    let reports = recorder.stop();
    let written = reports
        .iter()
        .filter(|r| matches!(r, Report::Wrote(_)))
        .count();
    let skipped: Vec<String> = reports
        .iter()
        .filter_map(|r| match r {
            Report::Skipped { why, .. } => Some(why.clone()),
            _ => None,
        })
        .collect();
    // Each call that reached the upstream is accounted for (the 256 stalled and the ordinary
    // one): written, or skipped because its client left before the upstream's head (which
    // ones depends on timing; the 44 that waited in the backlog were never forwarded).
    assert!(written > 0, "none written; skipped: {skipped:?}");
    assert!(
        written + skipped.len() >= 257,
        "{written} written, {} skipped",
        skipped.len()
    );
    assert!(
        skipped
            .iter()
            .all(|why| why.contains("before the server sent a status line")),
        "{skipped:?}"
    );
    let first = reports.iter().find_map(|r| match r {
        Report::Wrote(w) if w.path.to_string_lossy().ends_with("-stall.toml") => Some(&w.path),
        _ => None,
    });
    let stalled = std::fs::read_to_string(first.unwrap()).unwrap();
    assert!(stalled.contains("end = \"stall\""), "{stalled}");
    assert!(
        stalled.contains("the client closed its connection"),
        "{stalled}"
    );
}

/// What `serve` answers, the proxy answers: 400 for a request it cannot read; and it closes the
/// connection after a request framed by both Content-Length and Transfer-Encoding.
#[test]
fn unreadable_requests_get_400_and_ambiguous_framing_closes_the_connection() {
    let upstream = upstream();
    let out = tempfile::tempdir().unwrap();
    let recorder = recorder(&upstream, out.path());
    let addr = recorder.addr();
    for bad in [
        "NOT-HTTP\r\n\r\n".to_owned(),
        "POST /mcp HTTP/1.1\r\ncontent-length: 99999999999\r\n\r\n".to_owned(),
        "POST /mcp HTTP/1.1\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n{}".to_owned(),
        "POST /mcp HTTP/1.1\r\ntransfer-encoding: xchunked\r\ncontent-length: 2\r\n\r\n{}"
            .to_owned(),
    ] {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.write_all(bad.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request"),
            "{bad:?}: {answer}"
        );
        assert!(answer.contains("connection: close"), "{answer}");
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ok"}})
        .to_string();
    let both = format!(
        "POST /mcp HTTP/1.1\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(both.as_bytes()).unwrap();
    let mut answer = String::new();
    // read_to_string ends only when the proxy closes the connection.
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    drop(recorder);
}

/// 300 connections that send nothing, or part of a request head, hold every one of the 256
/// slots; they give them back once the head bound (10 s) passes, so a new call is served
/// within it (it used to wait 69 s: the 60 s bound on a whole request, and a round more).
#[test]
fn half_open_connections_give_their_slots_back_within_the_head_bound() {
    let upstream = upstream();
    let out = tempfile::tempdir().unwrap();
    let recorder = recorder(&upstream, out.path());
    let addr = recorder.addr();
    let idle: Vec<TcpStream> = (0..300)
        .map(|n| {
            let mut stream = TcpStream::connect(addr).unwrap();
            if n % 2 == 1 {
                stream
                    .write_all(b"POST /mcp HTTP/1.1\r\nhost: x\r\n")
                    .unwrap();
            }
            stream
        })
        .collect();
    let started = Instant::now();
    let answer = exchange(addr, &call_request(1, "ok"));
    let served_in = started.elapsed();
    eprintln!(
        "a call was served {} ms after 300 half-open connections took every slot",
        served_in.as_millis()
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(served_in < Duration::from_secs(30), "{served_in:?}");
    drop(idle);
    drop(recorder);
}

#[test]
fn an_upstream_url_a_client_cannot_use_is_refused_at_the_start() {
    let error = Recorder::start(RecorderOptions {
        upstream: "http://127.0.0.1:99999/mcp".into(),
        listen: "127.0.0.1:0".into(),
        out: "unused".into(),
        faults: Vec::new(),
        max_exchanges: 1,
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("\"99999\" is not a port (1 to 65535)"),
        "{error}"
    );
}

/// A HAR entry: a POST of `request` (a JSON text) answered `status` with `headers` and
/// `content`, the server taking `wait` ms.
fn entry(request: &str, status: u16, headers: Value, content: Value, wait: f64) -> Value {
    json!({
        "request": {"method": "POST", "url": "http://127.0.0.1:9/mcp",
                    "headers": [{"name": "MCP-Protocol-Version", "value": "2025-06-18"}],
                    "postData": {"mimeType": "application/json", "text": request}},
        "response": {"status": status, "headers": headers, "content": content},
        "timings": {"wait": wait}
    })
}

fn call(id: Value, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
    .to_string()
}

/// A call of `tool` with id `n`, answered `status` with `headers` and a success.
fn answered(n: u64, tool: &str, arguments: Value, status: u16, headers: Value, wait: f64) -> Value {
    entry(
        &call(json!(n), tool, arguments),
        status,
        headers,
        success(json!(n)),
        wait,
    )
}

fn success(id: Value) -> Value {
    json!({"text": json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "ok"}], "isError": false}}).to_string()})
}

fn json_type() -> Value {
    json!([{"name": "Content-Type", "value": "application/json"}])
}

/// A schema nested `depth` objects deep.
fn nested(depth: usize) -> Value {
    (0..depth).fold(
        json!({"type": "object"}),
        |inner, _| json!({"type": "object", "properties": {"x": inner}}),
    )
}

/// The hostile shapes, one entry each; the label says what the entry is.
fn hostile_corpus() -> Vec<(&'static str, Value)> {
    let tools = json!({"jsonrpc": "2.0", "id": 100, "result": {"tools": [
        {"name": "keys", "inputSchema": {"type": "object", "properties": {
            "": {"type": "string"}, "a\"b\nc": {"type": "string"}, "$schema": {"type": "string"}}}},
        {"name": "deep", "inputSchema": nested(60)},
        {"name": "big", "inputSchema": {"type": "object", "properties": {
            "n": {"type": "integer", "maximum": u64::MAX}}}},
        {"name": "ctl\u{0}\u{1b}[31m", "inputSchema": {"type": "object"}}
    ]}});
    let list = json!({"jsonrpc": "2.0", "id": 100, "method": "tools/list"}).to_string();
    let headers = json!([
        {"name": "Content-Type", "value": "application/json"},
        {"name": "X-Crlf", "value": "a\r\nInjected: 1"},
        {"name": "X-Nul", "value": "a\u{0}b"},
        {"name": "Bad Name", "value": "v"},
        {"name": "X-Kept", "value": "yes"}
    ]);
    let id = |n: u64| json!(n);
    vec![
        (
            "tools/list",
            entry(
                &list,
                200,
                json_type(),
                json!({"text": tools.to_string()}),
                2.0,
            ),
        ),
        (
            "bad headers",
            answered(1, "keys", json!({}), 200, headers, 2.0),
        ),
        (
            "control characters in the tool name",
            answered(2, "ctl\u{0}\u{1b}[31m", json!({}), 200, json_type(), 2.0),
        ),
        (
            "a schema deeper than TOML nests",
            answered(3, "deep", json!({}), 200, json_type(), 2.0),
        ),
        (
            "an integer past i64 in a schema",
            answered(4, "big", json!({"n": 1}), 200, json_type(), 2.0),
        ),
        (
            "a 204 with a body",
            answered(5, "keys", json!({}), 204, json!([]), 2.0),
        ),
        (
            "JSON without a Content-Type",
            answered(6, "keys", json!({}), 200, json!([]), 2.0),
        ),
        (
            "a wait past the default timeout",
            answered(7, "keys", json!({}), 200, json_type(), 4200.0),
        ),
        (
            "an unknown encoding",
            entry(
                &call(id(8), "keys", json!({})),
                200,
                json_type(),
                json!({"text": "x", "encoding": "gzip"}),
                2.0,
            ),
        ),
        (
            "no content.text",
            entry(
                &call(id(9), "keys", json!({})),
                200,
                json_type(),
                json!({}),
                2.0,
            ),
        ),
        (
            "a null id",
            entry(
                &call(Value::Null, "keys", json!({})),
                200,
                json_type(),
                success(Value::Null),
                2.0,
            ),
        ),
        (
            "array arguments",
            answered(11, "keys", json!([1, 2]), 200, json_type(), 2.0),
        ),
        (
            "an id of 2^64",
            entry(
                r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"tools/call","params":{"name":"keys"}}"#,
                200,
                json_type(),
                json!({"text": r#"{"jsonrpc":"2.0","id":18446744073709551616,"result":{"content":[]}}"#}),
                2.0,
            ),
        ),
    ]
}

fn has(text: &str, wanted: &str) {
    assert!(text.contains(wanted), "{wanted:?} in\n{text}");
}

fn replay(path: &Path) -> (Verdict, String) {
    let source = CaseSource {
        id: path.file_stem().unwrap().to_string_lossy().into_owned(),
        origin: path.display().to_string(),
        text: std::fs::read_to_string(path).map_err(|e| e.to_string()),
    };
    let record = Run::new(&ReferenceAdapter::new()).run_one(&source);
    (
        record.verdict,
        format!("{:?} {:?}", record.error, record.calls),
    )
}

/// Every hostile shape ends as a case that replays to its recorded outcome, with a note for
/// what it could not keep as it came, or as a skip that says why; none is lost in silence.
#[test]
fn every_case_written_from_the_hostile_corpus_replays_and_the_rest_say_why() {
    let corpus = hostile_corpus();
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("hostile.har");
    let entries: Vec<Value> = corpus.iter().map(|(_, e)| e.clone()).collect();
    std::fs::write(&har, json!({"log": {"entries": entries}}).to_string()).unwrap();
    let imported = read_har(&har).unwrap();
    let notes = imported.notes.join("\n");
    for (shape, wanted) in [
        (
            "an unknown encoding",
            "response.content.encoding \"gzip\" is not one a HAR body has",
        ),
        ("no content.text", "response.content has no text"),
    ] {
        assert!(notes.contains(wanted), "{shape}: {notes}");
    }
    let out = dir.path().join("out");
    let faults = [
        "stall".parse().unwrap(),
        "stall".parse().unwrap(),
        "wrong-id".parse().unwrap(),
    ];
    let mut written = Vec::new();
    let mut skipped = Vec::new();
    for (n, (exchange, session)) in imported.exchanges.iter().enumerate() {
        let stem = stem(n + 1, exchange.tool_name().unwrap_or("call"));
        for report in write_family(&out, &stem, exchange, session, &faults) {
            match report {
                Report::Wrote(w) => written.push(w),
                Report::Skipped { why, .. } => skipped.push(why),
            }
        }
    }
    let skipped = skipped.join("\n");
    for wanted in [
        "the request's id null is not a string or an integer",
        "the request's params.arguments is an array",
        "the request's id 1.8446744073709552e+19 is not a string or an integer",
    ] {
        assert!(skipped.contains(wanted), "{wanted:?} in {skipped}");
    }
    assert!(!skipped.contains("please report"), "{skipped}");
    // The 7 usable calls, each recorded, and stalled (once, however often it was asked) and
    // with a wrong id, except the 204 (complete at its head, with no id to change).
    assert_eq!(
        written.iter().filter(|w| w.variant == "recorded").count(),
        7
    );
    assert_eq!(written.iter().filter(|w| w.variant == "stall").count(), 6);
    assert_eq!(
        written.iter().filter(|w| w.variant == "wrong-id").count(),
        6
    );
    assert!(
        skipped.contains("stall needs an answer with a body; HTTP 204"),
        "{skipped}"
    );
    let text = |stem: &str| std::fs::read_to_string(out.join(format!("{stem}.toml"))).unwrap();
    let bad_headers = text("001-keys");
    for wanted in [
        "headers = { x-kept = \"yes\" }",
        "# the header \"x-crlf\" is left out: a header value cannot contain a line break",
        "# the header \"x-nul\" is left out: contains U+0000",
        "# the header \"bad name\" is left out: not a valid HTTP header name",
        "\"a\\\"b\\u000Ac\" = { type = \"string\" }",
    ] {
        assert!(bad_headers.contains(wanted), "{wanted:?} in {bad_headers}");
    }
    has(
        &text("002-ctl___31m"),
        "tools/call ctl\\u{0}\\u{1b}[31m answered",
    );
    has(
        &text("003-deep"),
        "# the tool's schemas are left out: with them the case would not load",
    );
    has(&text("004-big"), "maximum = 18446744073709552000.0");
    has(
        &text("005-keys"),
        "# the 91 bytes that came after the head of this 204 are left out",
    );
    has(
        &text("006-keys"),
        "raw = '{\"jsonrpc\":\"2.0\",\"id\":\"$id\",",
    );
    has(&text("007-keys"), "timeout_ms = 9200");
    for case in &written {
        let (verdict, calls) = replay(&case.path);
        assert_eq!(verdict, Verdict::Pass, "{}: {calls}", case.path.display());
    }
}

/// With every slot held by a client still waiting on a stalled upstream, stopping (what Ctrl-C
/// and stdin's end do) ends the recorder at once: it used to wait for a free slot, about 100 s.
#[test]
fn stopping_with_every_slot_held_ends_at_once() {
    let upstream = upstream();
    let out = tempfile::tempdir().unwrap();
    let recorder = recorder(&upstream, out.path());
    let addr = recorder.addr();
    let clients = stalled_clients(&upstream, addr, 260);
    let (done, stopped) = std::sync::mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || done.send(recorder.stop()).unwrap());
    let reports = stopped
        .recv_timeout(Duration::from_secs(20))
        .expect("the recorder stops while every slot is held");
    eprintln!(
        "stopped {} ms after it was asked, every slot held",
        started.elapsed().as_millis()
    );
    // The calls had not ended: none was written.
    assert!(reports.is_empty(), "{reports:?}");
    drop(clients);
}
