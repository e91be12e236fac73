//! Property tests for the reference classifier: it never panics, always gives one outcome, and
//! gives the same classification whatever the chunking of the body.

use mcp_error_layers::Outcome;
use mcp_error_layers::classify::sse::SseReader;
use mcp_error_layers::classify::{BodyEnd, Classification, Classifier, classify, classify_message};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

fn content_type() -> impl Strategy<Value = Option<String>> {
    let known = prop::sample::select(vec![
        "application/json",
        "text/event-stream",
        "APPLICATION/JSON; charset=utf-8",
        " Text/Event-Stream ;charset=UTF-8",
        "text/html",
        "application/json-seq",
        "",
        ";",
    ]);
    prop_oneof![
        Just(None),
        known.prop_map(|ct| Some(ct.to_owned())),
        any::<String>().prop_map(Some),
    ]
}

/// Pieces that SSE streams and JSON bodies are made of, so that random streams often get far.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        "data: ",
        "data:",
        "data",
        "{\"jsonrpc\":\"2.0\"",
        ",\"id\":1",
        ",\"id\":\"1\"",
        ",\"id\":null",
        ",\"result\":{\"content\":[]}}",
        ",\"result\":{\"content\":[],\"isError\":true}}",
        ",\"result\":{\"resultType\":\"input_required\",\"requestState\":\"s\"}}",
        ",\"error\":{\"code\":-32602,\"message\":\"m\"}}",
        ",\"method\":\"notifications/progress\"}",
        "}",
        ":",
        ": keep-alive",
        "\r\n",
        "\n",
        "\r",
        "event: x",
        "id: 1",
        "retry: 10",
        "\u{FEFF}",
        "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n",
    ]);
    prop_oneof![
        4 => pieces.prop_map(|p| p.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ]
}

/// Whole JSON texts: responses of every kind, plus a notification and some non-responses.
fn message() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
        r#"{"jsonrpc":"2.0","id":"1","result":{"content":[],"isError":true}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","content":[]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#,
        r#"[{"jsonrpc":"2.0","id":1,"result":{"content":[]}}]"#,
        "not json",
        "",
    ])
}

/// One SSE event: optional comment/event/id/retry lines, the message split over one to three
/// `data` lines, a blank line; every line ending drawn from LF, CRLF and CR.
fn sse_event() -> impl Strategy<Value = Vec<u8>> {
    let eol = || prop::sample::select(vec!["\n", "\r\n", "\r"]);
    let extra = prop::sample::select(vec![
        ": ping",
        "event: message",
        "event: x",
        "id: 7",
        "retry: 100",
    ]);
    (
        prop::collection::vec((extra, eol()), 0..3),
        message(),
        prop::collection::vec((any::<Index>(), any::<bool>(), eol()), 0..3),
        eol(),
    )
        .prop_map(|(extras, message, splits, blank)| {
            let mut event = String::new();
            for (line, eol) in extras {
                event += line;
                event += eol;
            }
            let mut rest = message;
            for (at, after_comma, eol) in splits {
                let (line, tail) = rest.split_at(split_point(rest, at, after_comma));
                event += "data: ";
                event += line;
                event += eol;
                rest = tail;
            }
            event += "data: ";
            event += rest;
            event += blank;
            event += blank;
            event.into_bytes()
        })
}

/// Where to split `text` over two `data` lines: right after a comma (the joining LF is then
/// JSON whitespace) or anywhere (usually breaking the JSON).
fn split_point(text: &str, at: Index, after_comma: bool) -> usize {
    let commas: Vec<usize> = text.match_indices(',').map(|(i, _)| i + 1).collect();
    if after_comma && !commas.is_empty() {
        return commas[at.index(commas.len())];
    }
    let mut at = at.index(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        prop::collection::vec(fragment(), 0..24).prop_map(|parts| parts.concat()),
        message().prop_map(|m| m.as_bytes().to_vec()),
        (message(), any::<Index>())
            .prop_map(|(m, at)| m.as_bytes()[..at.index(m.len() + 1)].to_vec()),
        sse_stream(),
    ]
}

/// A few generated SSE events, sometimes followed by random fragments.
fn sse_stream() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(sse_event(), 0..4),
        prop::collection::vec(fragment(), 0..4),
    )
        .prop_map(|(events, tail)| [events.concat(), tail.concat()].concat())
}

fn end() -> impl Strategy<Value = BodyEnd> {
    prop_oneof![Just(BodyEnd::Complete), Just(BodyEnd::Cut)]
}

fn request_id() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![json!(1), json!("1"), json!(2), json!("abc")])
}

/// Up to eight cut points, in order.
fn cuts() -> impl Strategy<Value = Vec<Index>> {
    prop::collection::vec(any::<Index>(), 0..8)
}

/// `body` split at the given cut points (empty chunks included).
fn chunks<'a>(body: &'a [u8], cuts: &[Index]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
    points.sort_unstable();
    let mut out = Vec::new();
    let mut start = 0;
    for point in points.into_iter().chain([body.len()]) {
        out.push(&body[start..point]);
        start = point;
    }
    out
}

fn incremental(
    status: u16,
    content_type: Option<&str>,
    parts: &[&[u8]],
    request_id: &Value,
) -> Classifier {
    let mut classifier = Classifier::new(request_id.clone(), status, content_type);
    for part in parts {
        let was_decided = classifier.decided().cloned();
        let now = classifier.feed(part).cloned();
        if was_decided.is_some() {
            assert_eq!(now, was_decided, "a decision never changes");
        }
    }
    classifier
}

fn assert_well_formed(got: &Classification, status: u16) {
    assert_eq!(got.status, Some(status));
    assert!(!got.reason.is_empty());
    assert!(!got.reason.contains('\n'), "{}", got.reason);
    assert!(!matches!(
        got.outcome,
        Outcome::ConnectionError | Outcome::UnclassifiedError
    ));
    if !(200..=299).contains(&status) {
        assert_eq!(got.outcome, Outcome::HttpError);
    }
    let carries_code = matches!(got.outcome, Outcome::HttpError | Outcome::JsonrpcError);
    assert!(carries_code || got.code.is_none());
    assert!(got.outcome != Outcome::JsonrpcError || got.code.is_some());
}

proptest! {
    // 2048 inputs per property in `cargo test`; PROPTEST_CASES sets more (docs/fuzzing.md).
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2048)
    ))]

    #[test]
    fn any_chunking_matches_one_shot(
        status in 100u16..=599,
        content_type in content_type(),
        body in body(),
        cuts in cuts(),
        end in end(),
        request_id in request_id(),
    ) {
        let content_type = content_type.as_deref();
        let one_shot = classify(status, content_type, &body, end, &request_id);
        assert_well_formed(&one_shot, status);
        let parts = chunks(&body, &cuts);
        let classifier = incremental(status, content_type, &parts, &request_id);
        prop_assert_eq!(classifier.finish(end), one_shot);
    }

    #[test]
    fn sse_streams_match_one_shot(
        status in prop::sample::select(vec![200u16, 201, 202, 299]),
        body in prop_oneof![
            prop::collection::vec(fragment(), 0..32).prop_map(|p| p.concat()),
            sse_stream(),
        ],
        cuts in cuts(),
        end in end(),
        request_id in request_id(),
    ) {
        let ct = Some("text/event-stream");
        let one_shot = classify(status, ct, &body, end, &request_id);
        assert_well_formed(&one_shot, status);
        let parts = chunks(&body, &cuts);
        prop_assert_eq!(incremental(status, ct, &parts, &request_id).finish(end), one_shot);
    }

    #[test]
    fn deadline_never_panics_and_keeps_decisions(
        status in 100u16..=599,
        content_type in content_type(),
        body in body(),
        cuts in cuts(),
        request_id in request_id(),
    ) {
        let content_type = content_type.as_deref();
        let parts = chunks(&body, &cuts);
        let classifier = incremental(status, content_type, &parts, &request_id);
        let decided = classifier.decided().cloned();
        let got = classifier.deadline();
        assert_well_formed(&got, status);
        match decided {
            Some(decision) => prop_assert_eq!(got, decision),
            None if (200..=299).contains(&status) => prop_assert_eq!(got.outcome, Outcome::Timeout),
            None => prop_assert_eq!(got.outcome, Outcome::HttpError),
        }
    }

    #[test]
    fn sse_reader_events_do_not_depend_on_chunking(
        body in prop_oneof![
            prop::collection::vec(fragment(), 0..32).prop_map(|p| p.concat()),
            sse_stream(),
        ],
        cuts in cuts(),
    ) {
        let whole = SseReader::new().feed(&body);
        let mut reader = SseReader::new();
        let pieces: Vec<_> = chunks(&body, &cuts).into_iter().flat_map(|c| reader.feed(c)).collect();
        prop_assert_eq!(pieces, whole);
    }

    #[test]
    fn message_rules_take_any_json(message in json_value(), request_id in request_id()) {
        let got = classify_message(&message, &request_id);
        prop_assert!(got.status.is_none());
        prop_assert!(!got.reason.is_empty() && !got.reason.contains('\n'));
    }
}

/// Arbitrary JSON values, biased towards the member names the message rules look at.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        prop::sample::select(vec!["2.0", "complete", "input_required", "x"]).prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    let key = prop::sample::select(vec![
        "jsonrpc",
        "id",
        "result",
        "error",
        "code",
        "message",
        "content",
        "isError",
        "resultType",
        "inputRequests",
        "requestState",
        "method",
        "other",
    ]);
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(key.clone(), inner, 0..8).prop_map(|m| Value::Object(
                m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}
