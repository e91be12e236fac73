//! Fuzzing, short mode: the case loader, the capture parser and the wire server's request
//! reader take any input without panicking, hanging or growing past their input. The
//! classifier and the SSE reader have their own properties in `classify_props.rs`.
//!
//! `cargo test` runs a few hundred inputs per property. The long mode is the same tests with
//! more: `PROPTEST_CASES=200000 cargo test --test fuzz --test classify_props` (see
//! docs/fuzzing.md). Tests build without optimisation and with overflow checks, so an
//! arithmetic overflow on any input is a panic, and a failure here.

use mcp_error_layers::case::{CaseSource, builtin};
use mcp_error_layers::classify::capture::Capture;
use mcp_error_layers::wire::http::{RequestReadError, read_request};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use serde_json::json;

/// The inputs per property: `PROPTEST_CASES` when set (the long mode), else `short`.
fn config(short: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(short);
    Config {
        cases,
        // A bound on each input, far above what one takes (microseconds): a hang fails the
        // property instead of the run.
        timeout: 60_000,
        failure_persistence: None,
        ..Config::default()
    }
}

#[test]
fn overflow_checks_are_on_in_this_build() {
    let sum = std::panic::catch_unwind(|| std::hint::black_box(u8::MAX) + 1);
    assert!(
        sum.is_err(),
        "overflow checks are off: run the fuzz tests in the test profile (cargo test), not --release"
    );
}

/// Pieces of case files, right and wrong, so that random texts often get past the parser.
fn toml_piece() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "summary = ",
        "\"x\"",
        "\"\"",
        "'''",
        "\"\"\"",
        "[[call]]",
        "[[call.reply]]",
        "[[call.reply.event]]",
        "[[call.resume]]",
        "[tool]",
        "[tool.annotations]",
        "[tool.input_schema]",
        "annotations = { readOnlyHint = true }",
        "readonlyhint",
        "\"k\\n\\u0000\" = ",
        "expect = { outcome = \"TOOL_SUCCESS\" }",
        "expect = { outcome = \"HTTP_ERROR\", status = 503, code = -1 }",
        "outcome = ",
        "\"UNCLASSIFIED_ERROR\"",
        "status = ",
        "tool_posts = ",
        "min_gaps_ms = [",
        "timeout_ms = ",
        "delay_ms = ",
        "cut_after = ",
        "retry = ",
        "end = \"stall\"",
        "target = \"every-post\"",
        "protocol_version = \"2025-11-25\"",
        "json = ",
        "raw = ",
        "data = ",
        "data_raw = ",
        "comment = ",
        "id = ",
        "'{\"jsonrpc\": \"2.0\", \"id\": \"$id\", \"result\": {\"content\": []}}'",
        "'{'",
        "headers = { ",
        "\"retry-after\" = \"$http_date+",
        "content-length",
        "content_type = ",
        "200",
        "0",
        "999",
        "-1",
        "18446744073709551615",
        "99999999999999999999999",
        "1e999",
        "inf",
        "nan",
        "0x7f",
        "true",
        "1979-05-27T07:32:00Z",
        "a.b.c.d.e.f.g.h",
        "=",
        ".",
        ",",
        "{",
        "}",
        "[",
        "]",
        "\n",
        "\r\n",
        "\r",
        " ",
        "#",
        "\"",
        "'",
        "\\",
        "\\u0000",
        "\\r",
        "\u{0}",
        "é",
        "\u{FEFF}",
    ]);
    prop_oneof![
        8 => pieces.prop_map(str::to_owned),
        1 => "[a-z_.\\[\\]{}=\"' \n-]{0,12}",
        1 => any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

/// A text made of [`toml_piece`]s, half of the time after a valid start.
fn toml_text() -> impl Strategy<Value = String> {
    let start = "summary = 'x'\n[[call]]\nexpect = { outcome = 'TOOL_SUCCESS' }\n\
                 [[call.reply]]\nstatus = 200\n";
    (any::<bool>(), prop::collection::vec(toml_piece(), 0..40)).prop_map(move |(valid, parts)| {
        let text = parts.concat();
        if valid {
            format!("{start}{text}")
        } else {
            text
        }
    })
}

/// One edit of a real case file.
#[derive(Debug, Clone)]
enum Edit {
    /// Remove up to this many characters.
    Delete(Index, usize),
    /// Put a piece in.
    Insert(Index, String),
    /// Repeat a line.
    DuplicateLine(Index),
    /// Cut the text here.
    Truncate(Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 1..20usize).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<Index>(), toml_piece()).prop_map(|(at, piece)| Edit::Insert(at, piece)),
        any::<Index>().prop_map(Edit::DuplicateLine),
        any::<Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edit: &Edit) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    match edit {
        Edit::Delete(at, n) => {
            let start = at.index(chars.len() + 1);
            let end = (start + n).min(chars.len());
            chars.drain(start..end);
        }
        Edit::Insert(at, piece) => {
            let at = at.index(chars.len() + 1);
            chars.splice(at..at, piece.chars());
        }
        Edit::DuplicateLine(at) => {
            let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
            if !lines.is_empty() {
                let at = at.index(lines.len());
                lines.insert(at, lines[at]);
            }
            return lines.concat();
        }
        Edit::Truncate(at) => chars.truncate(at.index(chars.len() + 1)),
    }
    chars.into_iter().collect()
}

/// A built-in case with one to four edits.
fn mutated_case() -> impl Strategy<Value = String> {
    let texts: Vec<String> = builtin()
        .into_iter()
        .filter_map(|source| source.text.ok())
        .collect();
    (
        prop::sample::select(texts),
        prop::collection::vec(edit(), 1..5),
    )
        .prop_map(|(text, edits)| edits.iter().fold(text, |text, e| apply(&text, e)))
}

fn source(text: String) -> CaseSource {
    CaseSource {
        id: "fuzz/case".into(),
        origin: "fuzz/case.toml".into(),
        text: Ok(text),
    }
}

/// Loads `text`: no panic (proptest catches one), and an error is one line naming the file;
/// a case that loads, written out as TOML again, loads again to the same case.
fn check_load(text: String) -> Result<(), TestCaseError> {
    match source(text).load() {
        Err(error) => {
            let shown = error.to_string();
            prop_assert!(shown.starts_with("fuzz/case.toml: "), "{shown}");
            prop_assert!(!shown.chars().any(char::is_control), "{shown:?}");
        }
        Ok(case) => {
            // Values TOML cannot hold (a u64 past i64) are not written; the rest must reload.
            if let Ok(again) = toml::to_string(&case.file) {
                let reloaded = source(again.clone()).load();
                prop_assert!(reloaded.is_ok(), "{again}\n{:?}", reloaded.err());
                let twice = toml::to_string(&reloaded.unwrap().file).unwrap();
                prop_assert_eq!(again, twice);
            }
        }
    }
    Ok(())
}

/// Pieces of HTTP messages, requests and responses alike.
fn http_piece() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        "HTTP/1.1 200 OK\r\n",
        "HTTP/1.1 503 Service Unavailable\r\n",
        "HTTP/1.0 204\n",
        "HTTP/2 200\r\n",
        "POST /mcp HTTP/1.1\r\n",
        "GET /mcp HTTP/1.1\r\n",
        "POST  HTTP/1.1\r\n",
        "content-type: application/json\r\n",
        "Content-Type: text/event-stream\r\n",
        "content-length: 2\r\n",
        "content-length: 99999999999999999999\r\n",
        "content-length: -1\r\n",
        "transfer-encoding: chunked\r\n",
        "connection: close\r\n",
        "last-event-id: 1\r\n",
        "x: \u{0}\r\n",
        "no colon\r\n",
        "\r\n",
        "\n",
        "\r",
        "0\r\n\r\n",
        "1\r\na\r\n",
        "ffffffffffffffff\r\n",
        "10000000000000000\r\n",
        "4;ext=1\r\nabcd\r\n",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}",
        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n",
        "{}",
    ]);
    prop_oneof![
        6 => pieces.prop_map(|p| p.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..12),
    ]
}

fn http_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(http_piece(), 0..24).prop_map(|parts| parts.concat())
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime");
}

/// Every request a keep-alive connection carrying `bytes` holds, until the reader stops.
fn read_all(bytes: &[u8]) -> (Vec<mcp_error_layers::wire::http::Request>, RequestReadError) {
    RUNTIME.with(|runtime| {
        runtime.block_on(async {
            let mut reader = tokio::io::BufReader::new(bytes);
            let mut requests = Vec::new();
            loop {
                match read_request(&mut reader).await {
                    Ok(request) => requests.push(request),
                    Err(error) => return (requests, error),
                }
            }
        })
    })
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn the_loader_takes_any_toml_like_text(text in toml_text()) {
        check_load(text)?;
    }

    #[test]
    fn the_loader_takes_mutated_builtin_cases(text in mutated_case()) {
        check_load(text)?;
    }

    #[test]
    fn the_capture_parser_takes_any_bytes(bytes in http_bytes(), id in 0..3i64) {
        if let Ok(capture) = Capture::parse(&bytes) {
            prop_assert!(capture.body.len() <= bytes.len());
            let classification = capture.classify(&json!(id));
            prop_assert!(!classification.reason.is_empty());
        }
    }

    #[test]
    fn the_request_reader_takes_any_bytes(bytes in http_bytes()) {
        let (requests, _) = read_all(&bytes);
        let body: usize = requests.iter().map(|r| r.body.len()).sum();
        prop_assert!(body <= bytes.len());
        prop_assert!(requests.len() <= bytes.len());
    }
}
