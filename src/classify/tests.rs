//! Table tests: one table per rule of the classifier. Every row is also fed one byte at a time,
//! which must give the same classification as the one-shot `classify`.

use super::*;
use Outcome::*;
use serde_json::json;

#[derive(Debug)]
struct Row {
    name: &'static str,
    status: u16,
    content_type: Option<&'static str>,
    body: Vec<u8>,
    end: BodyEnd,
    request_id: Value,
    want: Outcome,
    code: Option<i64>,
}

fn row(
    name: &'static str,
    status: u16,
    content_type: Option<&'static str>,
    body: impl AsRef<[u8]>,
    want: Outcome,
) -> Row {
    Row {
        name,
        status,
        content_type,
        body: body.as_ref().to_vec(),
        end: BodyEnd::Complete,
        request_id: json!(1),
        want,
        code: None,
    }
}

/// A 200 `application/json` answer to request id 1.
fn json(name: &'static str, body: &str, want: Outcome) -> Row {
    row(name, 200, JSON, body, want)
}

/// A 200 `text/event-stream` answer to request id 1.
fn sse(name: &'static str, body: &str, want: Outcome) -> Row {
    row(name, 200, SSE, body, want)
}

impl Row {
    fn code(self, code: i64) -> Self {
        Row {
            code: Some(code),
            ..self
        }
    }

    fn cut(self) -> Self {
        Row {
            end: BodyEnd::Cut,
            ..self
        }
    }

    fn id(self, request_id: Value) -> Self {
        Row { request_id, ..self }
    }

    fn one_shot(&self) -> Classification {
        classify(
            self.status,
            self.content_type,
            &self.body,
            self.end,
            &self.request_id,
        )
    }

    fn bytewise(&self) -> Classification {
        let mut classifier = self.classifier();
        for byte in &self.body {
            classifier.feed(std::slice::from_ref(byte));
        }
        classifier.finish(self.end)
    }

    fn classifier(&self) -> Classifier {
        Classifier::new(self.request_id.clone(), self.status, self.content_type)
    }
}

const JSON: Option<&str> = Some("application/json");
const SSE: Option<&str> = Some("text/event-stream");
const HTML: Option<&str> = Some("text/html");

fn check(rows: &[Row]) {
    for row in rows {
        let got = row.one_shot();
        let name = row.name;
        assert_eq!(
            (got.outcome, got.code),
            (row.want, row.code),
            "row {name:?}: {}",
            got.reason
        );
        assert_eq!(got.status, Some(row.status), "row {name:?}");
        assert!(!got.reason.is_empty(), "row {name:?}: empty reason");
        assert!(!got.reason.contains('\n'), "row {name:?}: {}", got.reason);
        assert_eq!(row.bytewise(), got, "row {name:?}: byte by byte differs");
    }
}

const SUCCESS: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
const RPC_ERROR: &str =
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#;
const NOTIFY: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#;

// The tables keep one row per line; rustfmt would spread each row over seven.

#[test]
#[rustfmt::skip]
fn rule_1_non_2xx_is_http_error() {
    let padded = format!("{}{RPC_ERROR}", " ".repeat(MAX_ERROR_BODY_BYTES));
    check(&[
        row("503 without body", 503, None, "", HttpError),
        row("500 with a success-looking body", 500, JSON, SUCCESS, HttpError),
        row("503 with JSON-RPC body code", 503, JSON, RPC_ERROR, HttpError).code(-32603),
        row("400 with code, no content type", 400, None, RPC_ERROR, HttpError).code(-32603),
        row("404 text/html, JSON error body", 404, HTML, RPC_ERROR, HttpError).code(-32603),
        row("400 whole JSON body, then cut", 400, None, RPC_ERROR, HttpError).code(-32603).cut(),
        row("400 truncated JSON body", 400, None, &RPC_ERROR[..30], HttpError).cut(),
        row("400 error code 1.5", 400, None, r#"{"error":{"code":1.5}}"#, HttpError),
        row("400 code without message", 400, None, r#"{"error":{"code":7}}"#, HttpError).code(7),
        row("400 error not an object", 400, None, r#"{"error":"bad"}"#, HttpError),
        row("429 empty, cut", 429, None, "", HttpError).cut(),
        row("304 not modified", 304, None, "", HttpError),
        row("302 redirect", 302, HTML, "<a>moved</a>", HttpError),
        row("100 continue as final", 100, None, "", HttpError),
        row("199 informational", 199, None, SUCCESS, HttpError),
        row("300", 300, JSON, SUCCESS, HttpError),
        row("error after the 64 KiB cap", 400, None, padded, HttpError),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_2_empty_2xx_body_is_no_result() {
    check(&[
        row("202 without content type", 202, None, "", NoResult),
        row("200 application/json empty", 200, JSON, "", NoResult),
        row("200 text/event-stream empty", 200, SSE, "", NoResult),
        row("200 text/html empty", 200, HTML, "", NoResult),
        row("205 empty", 205, None, "", NoResult),
        row("204", 204, JSON, "", NoResult),
        row("204 with bytes anyway", 204, JSON, SUCCESS, NoResult),
        row("204 cut", 204, None, "", NoResult).cut(),
        row("200 empty Complete", 200, JSON, "", NoResult),
        row("200 empty Cut", 200, JSON, "", StreamIncomplete).cut(),
        row("202 empty Cut", 202, None, "", StreamIncomplete).cut(),
        row("200 SSE empty Cut", 200, SSE, "", StreamIncomplete).cut(),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_3_other_content_types_are_unexpected() {
    let sse_success = format!("data: {SUCCESS}\n\n");
    check(&[
        row("text/html 200", 200, HTML, "<html>", UnexpectedContentType),
        row("no content type", 200, None, SUCCESS, UnexpectedContentType),
        row("empty content type", 200, Some(""), SUCCESS, UnexpectedContentType),
        row("text/plain JSON", 200, Some("text/plain"), SUCCESS, UnexpectedContentType),
        row("json-seq", 200, Some("application/json-seq"), SUCCESS, UnexpectedContentType),
        row("vendor +json", 200, Some("application/vnd.x+json"), SUCCESS, UnexpectedContentType),
        row("text/html cut", 200, HTML, "<ht", UnexpectedContentType).cut(),
        row("text/html 202", 202, HTML, "ok", UnexpectedContentType),
        row("charset parameter", 200, Some("application/json; charset=utf-8"), SUCCESS, ToolSuccess),
        row("uppercase media type", 200, Some("APPLICATION/JSON"), SUCCESS, ToolSuccess),
        row("whitespace around", 200, Some(" application/json ;q=1"), SUCCESS, ToolSuccess),
        row("SSE mixed case, charset", 200, Some("Text/Event-Stream;charset=UTF-8"), &sse_success, ToolSuccess),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_4_json_body_needs_all_its_bytes() {
    check(&[
        json("truncated JSON body Cut", &SUCCESS[..20], StreamIncomplete).cut(),
        json("whole JSON body but Cut", SUCCESS, StreamIncomplete).cut(),
        json("garbage but Cut", "<html>", StreamIncomplete).cut(),
        json("truncated JSON body Complete", &SUCCESS[..20], MalformedJson),
        json("HTML in application/json", "<html>oops</html>", MalformedJson),
        json("trailing garbage", &format!("{SUCCESS} x"), MalformedJson),
        json("whitespace only", "  \n", MalformedJson),
        json("two messages", &format!("{SUCCESS}{SUCCESS}"), MalformedJson),
        json("surrounding whitespace is fine", &format!("\n {SUCCESS} \n"), ToolSuccess),
        row("invalid UTF-8", 200, JSON, b"\"\xFF\"", MalformedJson),
        json("nesting too deep", &"[".repeat(1000), MalformedJson),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_a_b_c_envelope() {
    let both = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]},"error":{"code":1,"message":"m"}}"#;
    check(&[
        json("batch array", &format!("[{SUCCESS}]"), InvalidEnvelope),
        json("empty batch", "[]", InvalidEnvelope),
        json("number", "1", InvalidEnvelope),
        json("null", "null", InvalidEnvelope),
        json("string", r#""ok""#, InvalidEnvelope),
        json("jsonrpc missing", r#"{"id":1,"result":{"content":[]}}"#, InvalidEnvelope),
        json("jsonrpc 1.0", r#"{"jsonrpc":"1.0","id":1,"result":{"content":[]}}"#, InvalidEnvelope),
        json("jsonrpc number", r#"{"jsonrpc":2.0,"id":1,"result":{"content":[]}}"#, InvalidEnvelope),
        json("result and error", both, InvalidEnvelope),
        json("neither", r#"{"jsonrpc":"2.0","id":1}"#, InvalidEnvelope),
        json("a request", r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, InvalidEnvelope),
        json("result null is present", r#"{"jsonrpc":"2.0","id":1,"result":null}"#, InvalidToolResult),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_d_error_responses() {
    let error = |id: &str, error: &str| format!(r#"{{"jsonrpc":"2.0",{id}"error":{error}}}"#);
    let with_id = |error_object: &str| error(r#""id":1,"#, error_object);
    let good = r#"{"code":-32602,"message":"Invalid params","data":{"x":1}}"#;
    check(&[
        json("invalid params", &with_id(good), JsonrpcError).code(-32602),
        json("error with null id", &error(r#""id":null,"#, good), JsonrpcError).code(-32602),
        json("error without id", &error("", good), JsonrpcError).code(-32602),
        json("string id", &error(r#""id":"a","#, good), JsonrpcError).code(-32602).id(json!("a")),
        json("different id", &error(r#""id":2,"#, good), InvalidEnvelope),
        json("id type mismatch", &error(r#""id":"1","#, good), InvalidEnvelope),
        json("error code 1.5", &with_id(r#"{"code":1.5,"message":"m"}"#), InvalidEnvelope),
        json("error code 1.0", &with_id(r#"{"code":1.0,"message":"m"}"#), InvalidEnvelope),
        json("error code string", &with_id(r#"{"code":"1","message":"m"}"#), InvalidEnvelope),
        json("error code past i64", &with_id(r#"{"code":9223372036854775808,"message":"m"}"#), InvalidEnvelope),
        json("error code missing", &with_id(r#"{"message":"m"}"#), InvalidEnvelope),
        json("message missing", &with_id(r#"{"code":1}"#), InvalidEnvelope),
        json("message number", &with_id(r#"{"code":1,"message":2}"#), InvalidEnvelope),
        json("error is a string", &with_id(r#""boom""#), InvalidEnvelope),
        json("error is null", &with_id("null"), InvalidEnvelope),
        json("positive code, empty message", &with_id(r#"{"code":42,"message":""}"#), JsonrpcError).code(42),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_e_result_id() {
    let result = |id: &str| format!(r#"{{"jsonrpc":"2.0",{id}"result":{{"content":[]}}}}"#);
    check(&[
        json("same id", &result(r#""id":1,"#), ToolSuccess),
        json("different id", &result(r#""id":2,"#), InvalidEnvelope),
        json("id type mismatch", &result(r#""id":"1","#), InvalidEnvelope),
        json("float id", &result(r#""id":1.0,"#), InvalidEnvelope),
        json("null id", &result(r#""id":null,"#), InvalidEnvelope),
        json("missing id", &result(""), InvalidEnvelope),
        json("string ids equal", &result(r#""id":"req-7","#), ToolSuccess).id(json!("req-7")),
        json("number id vs string request id", &result(r#""id":7,"#), InvalidEnvelope).id(json!("7")),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_e_tool_results() {
    let result = |r: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"result":{r}}}"#);
    check(&[
        json("legacy result without resultType", &result(r#"{"content":[{"type":"text","text":"hi"}]}"#), ToolSuccess),
        json("resultType complete", &result(r#"{"resultType":"complete","content":[]}"#), ToolSuccess),
        json("isError false", &result(r#"{"content":[],"isError":false}"#), ToolSuccess),
        json("isError true", &result(r#"{"content":[],"isError":true}"#), ToolError),
        json("complete, isError true", &result(r#"{"resultType":"complete","content":[],"isError":true}"#), ToolError),
        json("isError yes", &result(r#"{"content":[],"isError":"yes"}"#), InvalidToolResult),
        json("isError null", &result(r#"{"content":[],"isError":null}"#), InvalidToolResult),
        json("isError 1", &result(r#"{"content":[],"isError":1}"#), InvalidToolResult),
        json("content not-an-array", &result(r#"{"content":"not-an-array"}"#), InvalidToolResult),
        json("content object", &result(r#"{"content":{}}"#), InvalidToolResult),
        json("content missing", &result("{}"), InvalidToolResult),
        json("content missing, isError true", &result(r#"{"isError":true}"#), InvalidToolResult),
        json("result array", &result("[]"), InvalidToolResult),
        json("result string", &result(r#""done""#), InvalidToolResult),
        json("resultType unknown", &result(r#"{"resultType":"task","content":[]}"#), InvalidToolResult),
        json("resultType uppercase", &result(r#"{"resultType":"COMPLETE","content":[]}"#), InvalidToolResult),
        json("resultType number", &result(r#"{"resultType":1,"content":[]}"#), InvalidToolResult),
        json("resultType null", &result(r#"{"resultType":null,"content":[]}"#), InvalidToolResult),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_e_input_required() {
    let result = |r: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required"{r}}}}}"#)
    };
    let requests = r#","inputRequests":{"a":{"method":"roots/list","params":{}}}"#;
    check(&[
        json("inputRequests", &result(requests), InputRequired),
        json("requestState only", &result(r#","requestState":"opaque""#), InputRequired),
        json("both", &result(&format!(r#"{requests},"requestState":"s""#)), InputRequired),
        json("empty inputRequests object", &result(r#","inputRequests":{}"#), InputRequired),
        json("input_required with neither", &result(""), InvalidToolResult),
        json("inputRequests array", &result(r#","inputRequests":[]"#), InvalidToolResult),
        json("inputRequests array, good state", &result(r#","inputRequests":[],"requestState":"s""#), InvalidToolResult),
        json("requestState number", &result(r#","requestState":1"#), InvalidToolResult),
        json("requestState null", &result(r#","requestState":null"#), InvalidToolResult),
        json("isError is not looked at", &result(r#","requestState":"s","isError":true"#), InputRequired),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_5_sse_streams() {
    let ok = format!("data: {SUCCESS}\n\n");
    let other_id = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
    let null_id_error = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
    let server_request = r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list"}"#;
    let multi_line = "data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1,\ndata: \"result\":{\"content\":[],\"isError\":true}}\n\n";
    let input_required = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#;
    check(&[
        sse("single response, LF", &ok, ToolSuccess),
        sse("CRLF", &format!("data: {SUCCESS}\r\n\r\n"), ToolSuccess),
        sse("CR only", &format!("data: {SUCCESS}\r\r"), ToolSuccess),
        sse("multi-line data", multi_line, ToolError),
        sse("comments first", &format!(": keep-alive\n:\n{ok}"), ToolSuccess),
        sse("notification then response", &format!("data: {NOTIFY}\n\n{ok}"), ToolSuccess),
        sse("server request then response", &format!("data: {server_request}\n\n{ok}"), ToolSuccess),
        sse("priming empty-data event", &format!("id: p1\nretry: 500\ndata:\n\n{ok}"), ToolSuccess),
        sse("event type is not filtered", &format!("event: x\n{ok}"), ToolSuccess),
        sse("BOM", &format!("\u{FEFF}{ok}"), ToolSuccess),
        sse("first response decides", &format!("{ok}data: <html>\n\n"), ToolSuccess),
        sse("wrong id in SSE", &format!("data: {other_id}\n\n{ok}"), InvalidEnvelope),
        sse("error response", &format!("data: {RPC_ERROR}\n\n"), JsonrpcError).code(-32603),
        sse("error with null id", &format!("data: {null_id_error}\n\n"), JsonrpcError).code(-32700),
        sse("batch array", &format!("data: [{SUCCESS}]\n\n"), InvalidEnvelope),
        sse("data not JSON", "data: hello\n\n", MalformedJson),
        sse("not JSON after a notification", &format!("data: {NOTIFY}\n\ndata: {{\n\n"), MalformedJson),
        sse("whitespace data", "data:  \n\n", MalformedJson),
        sse("input_required", &format!("data: {input_required}\n\n"), InputRequired),
        sse("response then cut", &ok, ToolSuccess).cut(),
        sse("malformed then cut", "data: x\n\n", MalformedJson).cut(),
    ]);
}

#[test]
#[rustfmt::skip]
fn rule_5_sse_streams_that_end_early() {
    let ok = format!("data: {SUCCESS}\n\n");
    check(&[
        sse("notification only, Complete", &format!("data: {NOTIFY}\n\n"), StreamIncomplete),
        sse("notification only, Cut", &format!("data: {NOTIFY}\n\n"), StreamIncomplete).cut(),
        sse("priming only", "id: 1\ndata:\n\n", StreamIncomplete),
        sse("comments only", ": a\n: b\n", StreamIncomplete),
        sse("response without blank line", &format!("data: {SUCCESS}\n"), StreamIncomplete),
        sse("response without line end", &format!("data: {SUCCESS}"), StreamIncomplete),
        sse("cut mid-event", &ok[..ok.len() - 10], StreamIncomplete).cut(),
        sse("cut before the blank line", &ok[..ok.len() - 1], StreamIncomplete).cut(),
        sse("no data field", "event: message\nid: 3\n\n", StreamIncomplete),
        sse("junk lines", "hello world\n", StreamIncomplete),
    ]);
}

#[test]
#[rustfmt::skip]
fn deadline_decides_what_it_can() {
    let rows = [
        row("503 partial body with a code", 503, None, RPC_ERROR, HttpError).code(-32603),
        row("503 no body yet", 503, None, "", HttpError),
        row("200 JSON headers then silence", 200, JSON, "", Timeout),
        row("200 JSON partial body", 200, JSON, "{\"js", Timeout),
        row("200 SSE keep-alives forever", 200, SSE, ": ka\n: ka\n", Timeout),
        row("200 SSE after a notification", 200, SSE, format!("data: {NOTIFY}\n\n"), Timeout),
        row("200 text/html, no byte yet", 200, HTML, "", Timeout),
        row("204", 204, None, "", NoResult),
        row("SSE already decided", 200, SSE, "data: x\n\n", MalformedJson),
    ];
    for row in rows {
        let mut classifier = row.classifier();
        classifier.feed(&row.body);
        let got = classifier.deadline();
        let name = row.name;
        assert_eq!((got.outcome, got.code), (row.want, row.code), "{name}: {}", got.reason);
        assert_eq!(got.status, Some(row.status), "{name}");
    }
}

#[test]
fn sse_chunk_boundaries_do_not_matter() {
    let stream = format!(
        "\u{FEFF}: hi\r\nid: 0\r\ndata:\r\n\r\ndata: {NOTIFY}\r\rdata: {}\r\ndata: {}\r\n\r\n",
        &SUCCESS[..10],
        &SUCCESS[10..]
    );
    let stream = stream.as_bytes();
    let whole = classify(200, SSE, stream, BodyEnd::Complete, &json!(1));
    assert_eq!(whole.outcome, ToolSuccess, "{}", whole.reason);
    for first in 0..=stream.len() {
        for second in [first, (first + stream.len()) / 2, stream.len()] {
            let mut classifier = Classifier::new(json!(1), 200, SSE);
            classifier.feed(&stream[..first]);
            classifier.feed(&stream[first..second]);
            classifier.feed(&stream[second..]);
            let got = classifier.finish(BodyEnd::Complete);
            assert_eq!(got, whole, "split at {first} and {second}");
        }
    }
}

#[test]
fn sse_decides_before_the_stream_ends() {
    let mut classifier = Classifier::new(json!(1), 200, SSE);
    assert!(
        classifier
            .feed(format!("data: {NOTIFY}\n\n").as_bytes())
            .is_none()
    );
    let decided = classifier.feed(format!("data: {SUCCESS}\n").as_bytes());
    assert!(decided.is_none(), "no blank line yet");
    let decided = classifier.feed(b"\ndata: garbage\n\n").cloned();
    assert_eq!(decided.map(|c| c.outcome), Some(ToolSuccess));
    let after = classifier.deadline();
    assert_eq!(after.outcome, ToolSuccess, "a decision stands");
}

#[test]
fn feed_after_a_decision_ignores_bytes() {
    let mut classifier = Classifier::new(json!(1), 200, HTML);
    assert!(classifier.decided().is_none());
    let first = classifier.feed(b"<html>").cloned();
    assert_eq!(
        first.as_ref().map(|c| c.outcome),
        Some(UnexpectedContentType)
    );
    assert_eq!(classifier.feed(SUCCESS.as_bytes()).cloned(), first);
    assert_eq!(classifier.feed(b"").cloned(), first);
    assert_eq!(Some(classifier.finish(BodyEnd::Cut)), first);
}

#[test]
fn json_body_never_decides_before_the_end() {
    let mut classifier = Classifier::new(json!(1), 200, JSON);
    assert!(classifier.feed(b"<html> not json").is_none());
    assert_eq!(classifier.finish(BodyEnd::Cut).outcome, StreamIncomplete);
}

#[test]
fn http_error_decides_at_the_body_cap() {
    let mut classifier = Classifier::new(json!(1), 503, None);
    assert!(classifier.feed(RPC_ERROR.as_bytes()).is_none());
    let rest = vec![b' '; MAX_ERROR_BODY_BYTES - RPC_ERROR.len()];
    let decided = classifier.feed(&rest).cloned();
    let want = Classification {
        outcome: HttpError,
        status: Some(503),
        code: Some(-32603),
        reason: "HTTP 503 with JSON-RPC error -32603: Internal error".into(),
    };
    assert_eq!(decided, Some(want));
}

#[test]
fn oversized_messages_are_malformed() {
    let huge = vec![b' '; MAX_MESSAGE_BYTES + 1];
    let got = classify(200, JSON, &huge, BodyEnd::Complete, &json!(1));
    assert_eq!(got.outcome, MalformedJson, "{}", got.reason);
    let mut event = b"data: ".to_vec();
    event.extend_from_slice(&huge);
    let got = classify(200, SSE, &event, BodyEnd::Cut, &json!(1));
    assert_eq!(got.outcome, MalformedJson, "{}", got.reason);
}

#[test]
fn headless_outcomes_have_no_status() {
    let refused = Classification::connection_error("connection refused");
    let want = Observation::new(ConnectionError).with_detail("connection refused");
    assert_eq!(refused.into_observation(), want);
    let slow = Classification::timeout("no status line after 5s");
    assert_eq!(
        (slow.outcome, slow.status, slow.code),
        (Timeout, None, None)
    );
}

#[test]
fn reasons_say_which_rule_decided() {
    let id = json!(1);
    let reason = |status, content_type, body: &str| {
        classify(
            status,
            content_type,
            body.as_bytes(),
            BodyEnd::Complete,
            &id,
        )
        .reason
    };
    let invalid = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}"#;
    let other_id = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
    let ended = format!("data: {NOTIFY}\n\nid: 1\ndata:\n\n");
    let wrong_id = format!("data: {NOTIFY}\n\ndata: {other_id}\n\n");
    let rows = [
        (reason(503, None, "busy"), "HTTP 503"),
        (
            reason(200, JSON, invalid),
            "JSON-RPC error -32602: Invalid params",
        ),
        (
            reason(200, JSON, other_id),
            "response id 2 differs from request id 1",
        ),
        (
            reason(200, SSE, &ended),
            "SSE stream ended after 2 SSE events without the response",
        ),
        (
            reason(200, SSE, &wrong_id),
            "SSE event 2: response id 2 differs from request id 1",
        ),
        (
            reason(200, HTML, "<p>"),
            "HTTP 200 with Content-Type text/html",
        ),
        (
            reason(202, None, ""),
            "HTTP 202 with an empty body: no response can follow",
        ),
    ];
    for (got, want) in rows {
        assert_eq!(got, want);
    }
}

#[test]
fn reasons_stay_on_one_short_line() {
    let message = format!("line one\nline two {}", "x".repeat(500));
    let body = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": message}});
    let body = body.to_string();
    let got = classify(200, JSON, body.as_bytes(), BodyEnd::Complete, &json!(1));
    assert_eq!(got.outcome, JsonrpcError);
    assert!(!got.reason.contains('\n'));
    assert!(got.reason.chars().count() < 120, "{}", got.reason);
}

#[test]
fn a_content_type_with_a_control_character_is_shown_escaped_not_as_a_space() {
    // `one_line` turned the NUL into a space: "Content-Type application/ json" read as if the
    // type were nearly right, and a trailing NUL vanished altogether.
    let id = json!(1);
    let got = classify(
        200,
        Some("application/json\0"),
        b"{}",
        BodyEnd::Complete,
        &id,
    );
    assert_eq!(got.outcome, UnexpectedContentType);
    assert_eq!(
        got.reason,
        "HTTP 200 with Content-Type \"application/json\\0\", which holds a control character"
    );
}

// Captures: the head as a person pastes it or a proxy logs it.

mod captures {
    use super::*;
    use crate::classify::capture::{Capture, CaptureError};

    fn classified(text: &str) -> Classification {
        Capture::parse(text.as_bytes()).unwrap().classify(&json!(1))
    }

    const IS_ERROR: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#;

    #[test]
    fn cr_only_line_ends_end_the_head_like_crlf_and_lf() {
        for eol in ["\r\n", "\n", "\r"] {
            let text =
                format!("HTTP/1.1 200 OK{eol}Content-Type: application/json{eol}{eol}{IS_ERROR}");
            let got = classified(&text);
            assert_eq!(got.outcome, ToolError, "{eol:?}: {}", got.reason);
        }
    }

    #[test]
    fn cr_only_chunked_framing_is_decoded() {
        let event = format!("data: {IS_ERROR}\r\r");
        let text = format!(
            "HTTP/1.1 200 OK\rContent-Type: text/event-stream\rTransfer-Encoding: chunked\r\r{:x}\r{event}\r0\r\r",
            event.len()
        );
        let capture = Capture::parse(text.as_bytes()).unwrap();
        assert_eq!(capture.end, BodyEnd::Complete);
        assert_eq!(capture.body, event.as_bytes());
        assert_eq!(capture.classify(&json!(1)).outcome, ToolError);
    }

    #[test]
    fn an_unparsable_content_length_is_an_error_naming_it() {
        for value in ["abc", "-1", "+2", "1 2", ""] {
            let text = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {value}\r\n\r\n{SUCCESS}"
            );
            let error = Capture::parse(text.as_bytes()).unwrap_err();
            assert_eq!(
                error,
                CaptureError::ContentLength(value.to_owned()),
                "{value:?}"
            );
            let message = error.to_string();
            assert!(
                message.contains(&format!("Content-Length {value:?}")),
                "{message}"
            );
            assert!(message.contains("remove the header"), "{message}");
        }
    }

    #[test]
    fn content_lengths_that_disagree_are_an_error_and_repeats_are_one() {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n";
        let conflict = format!("{head}Content-Length: 2\r\nContent-Length: 5\r\n\r\n{{}}");
        let error = Capture::parse(conflict.as_bytes()).unwrap_err();
        assert_eq!(error, CaptureError::ContentLengths("2".into(), "5".into()));
        let len = SUCCESS.len();
        for same in [
            format!("Content-Length: {len}\r\nContent-Length: {len}"),
            format!("Content-Length: {len}, {len}"),
        ] {
            let text = format!("{head}{same}\r\n\r\n{SUCCESS}");
            assert_eq!(classified(&text).outcome, ToolSuccess, "{same}");
        }
        // A declared length past what any capture holds is a cut body, not an overflow.
        let huge = format!("{head}Content-Length: 99999999999999999999999\r\n\r\n{SUCCESS}");
        assert_eq!(classified(&huge).outcome, StreamIncomplete);
    }

    #[test]
    fn a_control_character_in_a_header_is_an_error_naming_the_header() {
        for (header, byte) in [
            ("Content-Type: application/json\0", 0u8),
            ("Content-Type: application/\u{1}json", 1),
            ("X-Note: a\u{7f}", 0x7f),
        ] {
            let text = format!("HTTP/1.1 200 OK\r\n{header}\r\n\r\n{SUCCESS}");
            let error = Capture::parse(text.as_bytes()).unwrap_err();
            let name = header.split(':').next().unwrap();
            assert_eq!(
                error,
                CaptureError::Control(name.to_owned(), byte),
                "{header:?}"
            );
            assert!(
                error
                    .to_string()
                    .contains(&format!("header {name} holds the control character")),
                "{error}"
            );
        }
        // A tab is whitespace in a header value, not a control character.
        let tab = format!("HTTP/1.1 200 OK\r\nContent-Type:\tapplication/json\r\n\r\n{SUCCESS}");
        assert_eq!(classified(&tab).outcome, ToolSuccess);
    }
}

#[test]
fn requests_on_a_stream_are_queued_once_for_the_client_and_do_not_decide() {
    let mut classifier = Classifier::new(json!(1), 200, Some("text/event-stream"));
    let ping = "data: {\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}\n\n";
    let note = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n";
    assert!(
        classifier
            .feed(format!("{ping}{note}").as_bytes())
            .is_none()
    );
    let taken = classifier.take_server_requests();
    assert_eq!(
        taken,
        vec![json!({"jsonrpc": "2.0", "id": "p", "method": "ping"})]
    );
    assert!(classifier.take_server_requests().is_empty(), "taken once");
    for _ in 0..MAX_SERVER_REQUESTS + 10 {
        classifier.feed(ping.as_bytes());
    }
    assert_eq!(
        classifier.take_server_requests().len(),
        MAX_SERVER_REQUESTS - 1
    );
    let result = "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n";
    assert_eq!(
        classifier.feed(result.as_bytes()).map(|c| c.outcome),
        Some(ToolSuccess)
    );
}
