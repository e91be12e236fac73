//! Case files as users write them: what loads, and what each mistake's message says.

use mcp_error_layers::Outcome;
use mcp_error_layers::case::{CaseSource, End, Grade, LoadError, builtin, discover};
use std::collections::BTreeSet;
use std::path::Path;

const GOOD: &str = r#"
summary = "HTTP 200 whose body is a JSON-RPC error"
spec = ["https://modelcontextprotocol.io/specification/2026-07-28/server/tools"]

[[call]]
expect = { outcome = "JSONRPC_ERROR", code = -32602, tool_posts = 1 }

[[call.reply]]
status = 200
json = '''
{"jsonrpc": "2.0", "id": "$id",
 "error": {"code": -32602, "message": "Invalid params"}}
'''
"#;

fn source(text: &str) -> CaseSource {
    CaseSource {
        id: "mine/case".into(),
        origin: "cases/mine/case.toml".into(),
        text: Ok(text.into()),
    }
}

fn load_error(text: &str) -> LoadError {
    source(text).load().expect_err("the case should not load")
}

#[test]
fn the_design_example_loads_with_defaults_and_compact_json() {
    let case = source(GOOD).load().unwrap();
    assert_eq!(case.id, "mine/case");
    assert_eq!(case.file.grade, Grade::Must);
    assert_eq!(case.file.protocol_version, "2026-07-28");
    assert_eq!(case.file.tool.name, "synthetic");
    let call = &case.file.call[0];
    assert_eq!(call.expect.outcome, Outcome::JsonrpcError);
    assert_eq!(
        (call.expect.code, call.expect.tool_posts),
        (Some(-32602), Some(1))
    );
    assert_eq!(call.reply[0].end, End::Complete);
    let json = call.reply[0].json.as_deref().unwrap();
    assert_eq!(
        json,
        r#"{"jsonrpc":"2.0","id":"$id","error":{"code":-32602,"message":"Invalid params"}}"#
    );
}

#[test]
fn an_unknown_key_names_the_file_the_key_and_the_known_keys() {
    let error = load_error(&GOOD.replace("status = 200", "status = 200\nstatsu = 1"));
    let text = error.to_string();
    assert_eq!(error.origin, "cases/mine/case.toml");
    assert_eq!(error.key.as_deref(), Some("call[0].reply[0].statsu"));
    assert!(text.contains("unknown field `statsu`"), "{text}");
    assert!(text.contains("expected one of"), "{text}");
    assert!(
        text.starts_with("cases/mine/case.toml: key `call[0].reply[0].statsu`:"),
        "{text}"
    );
}

#[test]
fn bad_json_text_names_the_key_and_the_way_out() {
    let error = load_error(&GOOD.replace(r#""id": "$id","#, r#""id": "$id",,"#));
    assert_eq!(error.key.as_deref(), Some("call[0].reply[0].json"));
    assert!(error.message.contains("not a JSON text"), "{error}");
    assert!(error.message.contains("use `raw`"), "{error}");
}

#[test]
fn a_missing_outcome_names_the_expect_table() {
    let error = load_error(&GOOD.replace(r#"outcome = "JSONRPC_ERROR", "#, ""));
    assert_eq!(error.key.as_deref(), Some("call[0].expect"));
    assert!(error.message.contains("missing field `outcome`"), "{error}");
}

#[test]
fn an_unknown_outcome_word_lists_the_vocabulary() {
    let error = load_error(&GOOD.replace("JSONRPC_ERROR", "JSON_RPC_ERROR"));
    assert_eq!(error.key.as_deref(), Some("call[0].expect.outcome"));
    assert!(error.message.contains("TOOL_SUCCESS"), "{error}");
}

#[test]
fn broken_toml_gives_a_line_and_column() {
    let error = load_error("summary = \"x\"\n[[call]\n");
    assert_eq!(error.key, None);
    assert!(error.message.contains("line 2"), "{error}");
}

#[test]
fn contradictions_are_named() {
    let cases = [
        (
            GOOD.replace("status = 200\n", "status = 200\nraw = 'x'\n"),
            "call[0].reply[0].json",
            "at most one body form",
        ),
        (
            GOOD.replace("status = 200\n", "end = \"reset\"\n"),
            "call[0].reply[0].status",
            "sends no bytes",
        ),
        (
            GOOD.replace(
                "status = 200\n",
                "status = 200\nend = \"close\"\ncut_after = 3\n",
            ),
            "call[0].reply[0].cut_after",
            "drop `end`",
        ),
        (
            GOOD.replace("status = 200\n", "status = 999\n"),
            "call[0].reply[0].status",
            "not an HTTP status",
        ),
        (
            GOOD.replace(
                "[[call]]\n",
                "protocol_version = \"2024-01-01\"\n[[call]]\n",
            ),
            "protocol_version",
            "use one of",
        ),
        (
            GOOD.replace("[[call]]\n", "[[call]]\ntimeout_ms = 0\n"),
            "call[0].timeout_ms",
            "at least 1",
        ),
        (
            GOOD.replace(
                "[[call]]\n",
                "[[call]]\ntimeout_ms = 18446744073709551615\n",
            ),
            "call[0].timeout_ms",
            "more than 600000 (10 minutes)",
        ),
        (
            GOOD.replace("status = 200\n", "status = 200\ndelay_ms = 600001\n"),
            "call[0].reply[0].delay_ms",
            "more than 600000",
        ),
        (
            GOOD.replace(
                "status = 200\n",
                "status = 200\nevent_gap_ms = 9999999999\n",
            ),
            "call[0].reply[0].event_gap_ms",
            "more than 600000",
        ),
        (
            GOOD.replace(
                "status = 200\n",
                "status = 200\nheaders = { \"retry-after\" = \"$http_date+300000000000\" }\n",
            ),
            "call[0].reply[0].headers.retry-after",
            "at most 31536000 (a year)",
        ),
        (
            GOOD.replace("[[call]]\n", "[[call]]\narguments = '[1]'\n"),
            "call[0].arguments",
            "JSON object",
        ),
    ];
    for (text, key, words) in cases {
        let error = load_error(&text);
        assert_eq!(error.key.as_deref(), Some(key), "{error}");
        assert!(error.message.contains(words), "{error}");
    }
}

#[test]
fn a_silent_reply_must_say_how_the_connection_ends() {
    let text = "summary = 'x'\n[[call]]\nexpect = { outcome = 'CONNECTION_ERROR' }\n[[call.reply]]\ndelay_ms = 1\n";
    let error = load_error(text);
    assert_eq!(error.key.as_deref(), Some("call[0].reply[0].end"));
    let fixed = text.replace("delay_ms = 1", "end = 'reset'");
    assert!(source(&fixed).load().is_ok());
}

#[test]
fn sse_events_need_exactly_one_payload() {
    let text = "summary = 'x'\n[[call]]\nexpect = { outcome = 'TOOL_SUCCESS' }\n[[call.reply]]\nstatus = 200\n\
                [[call.reply.event]]\ncomment = 'a'\ndata_raw = 'b'\n";
    let error = load_error(text);
    assert_eq!(error.key.as_deref(), Some("call[0].reply[0].event[0].data"));
}

#[test]
fn every_builtin_case_loads_and_ids_follow_paths() {
    let sources = builtin();
    assert!(sources.len() >= 26, "only {} built-in cases", sources.len());
    for source in &sources {
        let case = source.load().unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !case.file.summary.is_empty() && !case.file.spec.is_empty(),
            "{}",
            case.id
        );
        assert_eq!(source.origin, format!("cases/{}.toml", source.id));
    }
    let ids: Vec<_> = sources.iter().map(|s| s.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "discovery is sorted");
}

#[test]
fn every_outcome_but_unclassified_is_expected_by_a_builtin_case() {
    let expected: BTreeSet<Outcome> = builtin()
        .iter()
        .flat_map(|s| s.load().unwrap().file.call)
        .map(|call| call.expect.outcome)
        .collect();
    for &outcome in Outcome::ALL {
        let wanted = outcome != Outcome::UnclassifiedError;
        assert_eq!(expected.contains(&outcome), wanted, "{outcome}");
    }
}

#[test]
fn discovery_on_disk_matches_the_compiled_in_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
    let on_disk: Vec<_> = discover(&root).unwrap().into_iter().map(|s| s.id).collect();
    let compiled: Vec<_> = builtin().into_iter().map(|s| s.id).collect();
    assert_eq!(on_disk, compiled);
}

#[test]
fn discovery_errors_name_the_folder() {
    let empty = std::env::temp_dir().join(format!("mcp-error-layers-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let error = discover(&empty).unwrap_err().to_string();
    assert!(
        error.contains("no case files") && error.contains(&*empty.to_string_lossy()),
        "{error}"
    );
    std::fs::remove_dir(&empty).unwrap();
    let missing = discover(Path::new("/nonexistent/cases"))
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("cannot read cases folder /nonexistent/cases"),
        "{missing}"
    );
}

#[test]
fn a_symlink_cycle_is_one_error_naming_the_link_and_each_real_folder_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/a.toml"), GOOD).unwrap();
    // Two links to the same real folder, not a cycle: its case is found once.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("b.toml"), GOOD).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join("x")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join("y")).unwrap();
    let ids: Vec<_> = discover(root).unwrap().into_iter().map(|s| s.id).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.contains(&"sub/a".to_owned()));
    // `sub/up -> ..` leads back to the root: before, every case appeared again per level.
    std::os::unix::fs::symlink("..", root.join("sub/up")).unwrap();
    let error = discover(root).unwrap_err().to_string();
    assert!(
        error.contains("sub/up") && error.contains("leads back"),
        "{error}"
    );
    // `a -> .`, `b -> .`: before, discovery never ended.
    std::fs::remove_file(root.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(".", root.join("a")).unwrap();
    std::os::unix::fs::symlink(".", root.join("b")).unwrap();
    let error = discover(root).unwrap_err().to_string();
    assert!(error.contains("remove the link"), "{error}");
}

#[test]
fn a_body_on_a_bodiless_status_and_a_second_content_type_are_refused() {
    let with_204 = GOOD.replace("status = 200", "status = 204");
    assert_eq!(
        load_error(&with_204).key.as_deref(),
        Some("call[0].reply[0].status")
    );
    let doubled = GOOD.replace(
        "status = 200",
        "status = 200\nheaders = { Content-Type = \"text/plain\" }",
    );
    let error = load_error(&doubled);
    assert_eq!(
        error.key.as_deref(),
        Some("call[0].reply[0].headers.Content-Type")
    );
    assert!(error.message.contains("`content_type`"), "{error}");
}

#[test]
fn the_cases_readme_lists_every_builtin_case_with_its_outcome_and_grade() {
    let readme = std::fs::read_to_string("cases/README.md").unwrap();
    let rows: Vec<&str> = readme.lines().filter(|l| l.starts_with("| `")).collect();
    let mut missing = Vec::new();
    for source in builtin() {
        let case = source.load().unwrap();
        let start = format!("| `{}` |", case.id);
        let outcome = format!("`{}`", case.file.call[0].expect.outcome);
        let grade = format!("| {} |", case.file.grade);
        let listed = rows
            .iter()
            .any(|r| r.starts_with(&start) && r.contains(&outcome) && r.ends_with(&grade));
        if !listed {
            missing.push(case.id);
        }
    }
    assert!(
        missing.is_empty(),
        "cases/README.md's table lacks (or has a stale row for) {missing:?}"
    );
}

#[test]
fn the_new_keys_load_and_their_contradictions_are_named() {
    let with = |expect: &str| GOOD.replace("code = -32602, tool_posts = 1", expect);
    let ok = source(&with(
        "tool_posts = 3, min_gaps_ms = [200, 400], initializes = 0",
    ))
    .load()
    .unwrap();
    assert_eq!(ok.file.call[0].expect.min_gaps_ms, [200, 400]);
    let too_many_gaps = source(&with("tool_posts = 2, min_gaps_ms = [200, 400]"));
    let error = too_many_gaps.load().unwrap_err();
    assert_eq!(error.key.as_deref(), Some("call[0].expect.min_gaps_ms"));
    let no_posts = source(&with("min_gaps_ms = [200]")).load().unwrap_err();
    assert!(
        no_posts.message.contains("name `tool_posts` too"),
        "{no_posts}"
    );
    let above = source(&with("tool_posts = 5, max_tool_posts = 3"))
        .load()
        .unwrap_err();
    assert_eq!(above.key.as_deref(), Some("call[0].expect.max_tool_posts"));
    let target = GOOD.replace(
        "[[call.reply]]",
        "target = \"every-posts\"\n\n[[call.reply]]",
    );
    let error = source(&target).load().unwrap_err();
    assert!(
        error.message.contains("unknown variant `every-posts`"),
        "{error}"
    );
    let date = GOOD.replace(
        "status = 200",
        "status = 429\nheaders = { \"retry-after\" = \"$http_date+soon\" }",
    );
    let error = source(&date).load().unwrap_err();
    assert_eq!(
        error.key.as_deref(),
        Some("call[0].reply[0].headers.retry-after")
    );
    let resume = format!("{GOOD}\n[[call.resume]]\nstatus = 200\njson = 'nope'\n");
    let error = source(&resume).load().unwrap_err();
    assert_eq!(error.key.as_deref(), Some("call[0].resume[0].json"));
}

/// Issue 11, "Case files that load although they are wrong": each of these loaded silently.
#[test]
fn the_files_that_loaded_although_wrong_are_errors_naming_the_key_and_the_fix() {
    let reply = |extra: &str| GOOD.replace("status = 200\n", &format!("status = 200\n{extra}\n"));
    let tool = |extra: &str| GOOD.replace("[[call]]\n", &format!("[tool]\n{extra}\n\n[[call]]\n"));
    let expect = |e: &str| GOOD.replace("code = -32602, tool_posts = 1", e);
    let sse = |event: &str| {
        GOOD.replace(
            "json = '''",
            &format!("[[call.reply.event]]\n{event}\n\n[[call.reply]]\nstatus = 200\njson = '''"),
        )
    };
    let cases = [
        (
            tool("annotations = { readonlyhint = true }"),
            "tool.annotations.readonlyhint",
            "did you mean `readOnlyHint`",
        ),
        (
            tool("annotations = { readOnlyHint = \"yes\" }"),
            "tool.annotations.readOnlyHint",
            "expected a boolean",
        ),
        (
            tool("annotations = { title = 1 }"),
            "tool.annotations.title",
            "expected a string",
        ),
        (
            reply("headers = { content-length = \"10\" }"),
            "call[0].reply[0].headers.content-length",
            "`cut_after`",
        ),
        (
            reply("headers = { Transfer-Encoding = \"chunked\" }"),
            "call[0].reply[0].headers.Transfer-Encoding",
            "frames the body itself",
        ),
        (
            reply("headers = { x-a = \"a\\u0000b\" }"),
            "call[0].reply[0].headers.x-a",
            "U+0000",
        ),
        (
            reply("headers = { Retry-After = \"1\", retry-after = \"2\" }"),
            "call[0].reply[0].headers.retry-after",
            "twice",
        ),
        (
            reply("content_type = \"application/json\\u0000\""),
            "call[0].reply[0].content_type",
            "U+0000",
        ),
        (
            sse("id = \"a\\u0000\"\ndata_raw = \"\""),
            "call[0].reply[0].event[0].id",
            "ignores an id with U+0000",
        ),
        (
            sse("data_raw = \"a\\rdata: injected\""),
            "call[0].reply[0].event[0].data_raw",
            "`\\n`",
        ),
        (
            sse("retry = 18446744073709551615\ndata_raw = \"\""),
            "call[0].reply[0].event[0].retry",
            "more than 600000",
        ),
        (expect("status = 999"), "call[0].expect.status", "100-599"),
        (
            GOOD.replace(
                "outcome = \"JSONRPC_ERROR\", code = -32602",
                "outcome = \"TOOL_SUCCESS\", status = 503, code = -32603",
            ),
            "call[0].expect.status",
            "never reported with a 503",
        ),
        (
            GOOD.replace("outcome = \"JSONRPC_ERROR\"", "outcome = \"TOOL_SUCCESS\""),
            "call[0].expect.code",
            "only `JSONRPC_ERROR` and `HTTP_ERROR`",
        ),
        (
            GOOD.replace(
                "outcome = \"JSONRPC_ERROR\"",
                "outcome = \"UNCLASSIFIED_ERROR\"",
            ),
            "call[0].expect.outcome",
            "name the layer's outcome",
        ),
        (
            format!("{GOOD}\n[[call.resume]]\nstatus = 405\n"),
            "call[0].resume",
            "expect.resumes = 0",
        ),
        (
            GOOD.replace(
                "summary = \"HTTP 200 whose body is a JSON-RPC error\"",
                "summary = \"\"",
            ),
            "summary",
            "one line",
        ),
        (
            GOOD.replace(
                "summary = \"HTTP 200 whose body is a JSON-RPC error\"",
                "summary = \"two\\nlines\"",
            ),
            "summary",
            "one line",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, key, words) in &cases {
        match source(text).load() {
            Ok(_) => wrong.push(format!("{key}: loaded")),
            Err(e) if e.key.as_deref() != Some(key) || !e.message.contains(words) => {
                wrong.push(format!("{key}: {e}"))
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_2026_case_may_bait_a_resumption_it_expects_never_to_see() {
    let text = GOOD.replace("tool_posts = 1", "tool_posts = 1, resumes = 0");
    assert!(
        source(&format!("{text}\n[[call.resume]]\nstatus = 405\n"))
            .load()
            .is_ok()
    );
    let session = GOOD.replace(
        "[[call]]\n",
        "protocol_version = \"2025-11-25\"\n[[call]]\n",
    );
    assert!(
        source(&format!("{session}\n[[call.resume]]\nstatus = 405\n"))
            .load()
            .is_ok()
    );
}

#[test]
fn parser_errors_name_the_duplicate_key_and_the_line_of_a_too_deep_key() {
    let twice = GOOD.replace(
        "status = 200\n",
        "status = 200\ndelay_ms = 1\ndelay_ms = 2\n",
    );
    let error = load_error(&twice);
    assert!(
        error.message.contains("duplicate key `delay_ms`"),
        "{error}"
    );
    assert!(error.message.contains("line 11"), "{error}");
    let parts: Vec<String> = (0..100).map(|i| format!("k{i}")).collect();
    let deep = format!("{GOOD}\n[tool.input_schema]\n{} = 1\n", parts.join("."));
    let error = load_error(&deep);
    assert!(error.message.contains("line 16"), "{error}");
    assert!(error.message.contains("at most 80"), "{error}");
}

#[test]
fn a_message_is_one_line_whatever_the_file_holds() {
    let key_with_break = GOOD.replace("[[call]]\n", "\"a\\nb\\u0000\" = 1\n[[call]]\n");
    let error = load_error(&key_with_break).to_string();
    assert!(!error.chars().any(char::is_control), "{error:?}");
    assert!(error.contains(r"a\nb\u{0}"), "{error}");
}

#[test]
fn a_repeated_event_is_bounded_and_has_no_id() {
    let event = |keys: &str| {
        format!(
            "summary = \"s\"\n[[call]]\nexpect = {{ outcome = \"TIMEOUT\" }}\n\
             [[call.reply]]\nstatus = 200\nend = \"stall\"\n\
             [[call.reply.event]]\ncomment = \"x\"\n{keys}"
        )
    };
    let never = load_error(&event("repeat = 0"));
    assert_eq!(
        never.key.as_deref(),
        Some("call[0].reply[0].event[0].repeat")
    );
    assert!(never.message.contains("between 1 and 1000"), "{never}");
    let endless = load_error(&event("repeat = 1001"));
    assert_eq!(
        endless.key.as_deref(),
        Some("call[0].reply[0].event[0].repeat")
    );
    let with_id = event("repeat = 2").replace("comment = \"x\"", "data_raw = \"x\"\nid = \"e1\"");
    assert_eq!(
        load_error(&with_id).key.as_deref(),
        Some("call[0].reply[0].event[0].id")
    );
    assert!(source(&event("repeat = 1000")).load().is_ok());
}
