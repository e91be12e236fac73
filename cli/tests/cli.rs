//! The command line as a person uses it: exit codes, messages that name the path, each command.

#[path = "support/bin.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

// `run(args)` waits for the command; `bin()` is the command itself, for a test that feeds stdin.
use support::{bin as run, temp_dir};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn run_writes_four_reports_whose_counts_match_the_summary() {
    let out = temp_dir("run");
    let output = run(&["run", "tool/", "--out", out.to_str().unwrap()]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(
        stdout.contains("15 cases: 15 passed, 0 accepted, 0 warnings, 0 failed, 0 skipped"),
        "{stdout}"
    );
    for file in [
        "mcp-error-layers.tap",
        "mcp-error-layers.junit.xml",
        "mcp-error-layers.json",
        "mcp-error-layers.html",
    ] {
        assert!(out.join(file).is_file(), "{file} missing; stdout: {stdout}");
    }
    let tap = std::fs::read_to_string(out.join("mcp-error-layers.tap")).unwrap();
    assert!(tap.contains("1..15"), "{tap}");
}

#[test]
fn a_failing_case_exits_1_and_a_broken_folder_exits_2_naming_it() {
    let cases = temp_dir("failing");
    failing_case_as(&cases, "wrong.toml");
    let out = temp_dir("failing-out");
    let folder = cases.to_str().unwrap();
    let output = run(&[
        "run",
        "--no-builtin",
        "--cases",
        folder,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
    assert!(
        text(&output.stdout)
            .contains("call 0: expected TOOL_ERROR → observed HTTP_ERROR status=503")
    );

    let output = run(&["run", "--cases", "/nonexistent/cases"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr).trim(),
        "error: cannot read cases folder /nonexistent/cases: No such file or directory (os error 2)"
    );
}

#[test]
fn a_report_that_cannot_be_written_exits_2_naming_the_path() {
    let output = run(&[
        "run",
        "tool/success",
        "--json",
        "/proc/forbidden/report.json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("/proc/forbidden/report.json"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn list_shows_every_builtin_case_with_layer_and_grade() {
    let output = run(&["list"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success());
    assert!(
        stdout.lines().any(|l| l.starts_with("sse/final-result")
            && l.contains("application")
            && l.contains("must")),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["list", "--json", "--exact", "tool/is-error"]).stdout)
            .unwrap();
    assert_eq!(json[0]["id"], "tool/is-error");
    assert_eq!(json[0]["outcomes"][0], "TOOL_ERROR");
}

#[test]
fn classify_reads_stdin_and_names_the_rule() {
    let mut child = bin()
        .arg("classify")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let capture = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"Invalid params\"}}";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(capture.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = text(&output.stdout);
    assert!(
        stdout.starts_with("JSONRPC_ERROR status=200 code=-32602\n"),
        "{stdout}"
    );
    assert!(stdout.contains("layer: protocol"), "{stdout}");
}

#[test]
fn classify_of_garbage_exits_2_naming_the_file() {
    let dir = temp_dir("classify");
    let file = dir.join("capture.txt");
    std::fs::write(&file, "not http\n").unwrap();
    let output = run(&["classify", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains(&format!(
        "{}: the first line is not an HTTP status line",
        file.display()
    )));
}

#[test]
fn serve_prints_a_loopback_url_and_answers_with_the_case_script() {
    let mut child = bin()
        .args(["serve", "transport/http-429-retry-after"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first.split_whitespace().last().unwrap().to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{first}"
    );
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"synthetic"}}"#;
    let status = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let client = reqwest::Client::builder().no_proxy().build().unwrap();
            client.post(&url).body(body).send().await.unwrap().status()
        });
    assert_eq!(status.as_u16(), 429);
    let logged = lines.map_while(Result::ok).find(|l| l.starts_with("← "));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(logged.as_deref(), Some("← 429 by script, ended: complete"));
}

#[test]
fn run_drives_an_out_of_process_adapter_given_after_the_double_dash() {
    let adapter = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/adapters/oneshot.py");
    let out = temp_dir("process");
    let json = out.join("r.json");
    let output = run(&[
        "run",
        "--exact",
        "tool/success",
        "tool/is-error",
        "--json",
        json.to_str().unwrap(),
        "--",
        adapter,
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(stdout.contains("2 cases: 2 passed"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(report["adapter"]["name"], "oneshot.py");
}

/// `--adapter-name` and `--adapter-version` name an adapter program in all four reports (with
/// the flags that repeat the run) and in `diff`.
#[test]
fn an_adapter_programs_name_and_version_show_in_every_report_and_in_diff() {
    let adapter = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/adapters/oneshot.py");
    let out = temp_dir("named-adapter");
    let run_as = |version: &str| {
        let dir = out.join(version);
        let output = run(&[
            "run",
            "--exact",
            "tool/success",
            "--jobs",
            "3",
            "--adapter-name",
            "my client",
            "--adapter-version",
            version,
            "--deadline-margin",
            "2500",
            "--default-timeout-ms",
            "1500",
            "--announce-timeout",
            "4000",
            "--out",
            dir.to_str().unwrap(),
            "--",
            adapter,
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        dir
    };
    let (old, new) = (run_as("1.2.3"), run_as("1.2.4"));
    let read = |name: &str| std::fs::read_to_string(old.join(name)).unwrap();
    let flags = "--jobs 3 --default-timeout-ms 1500 --deadline-margin-ms 2500 \
                 --announce-timeout-ms 4000 --start-up-timeout-ms 10000 \
                 --adapter-name 'my client' --adapter-version 1.2.3";
    let tap = read("mcp-error-layers.tap");
    assert!(tap.contains("adapter my client (1.2.3)"), "{tap}");
    assert!(tap.contains(&format!("# run flags: {flags}\n")), "{tap}");
    let junit = read("mcp-error-layers.junit.xml");
    assert!(
        junit.contains(r#"<property name="adapter" value="my client"/>"#)
            && junit.contains(r#"<property name="adapter_version" value="1.2.3"/>"#),
        "{junit}"
    );
    let json: serde_json::Value = serde_json::from_str(&read("mcp-error-layers.json")).unwrap();
    assert_eq!(
        json["adapter"],
        serde_json::json!({"name": "my client", "version": "1.2.3"})
    );
    assert_eq!(json["settings"]["flags"], flags);
    let html = read("mcp-error-layers.html");
    assert!(html.contains("my client<small>1.2.3</small>"), "{html}");
    let json_of = |dir: &std::path::Path| dir.join("mcp-error-layers.json").display().to_string();
    let diff = run(&["diff", &json_of(&old), &json_of(&new)]);
    let said = text(&diff.stdout);
    assert!(
        said.starts_with("my client 1.2.3 → my client 1.2.4: "),
        "{said}"
    );
}

/// The flags of an adapter program are refused for the reference client, which starts at once.
#[test]
fn an_adapter_programs_timeouts_are_refused_for_the_reference_client() {
    for flag in ["--announce-timeout-ms", "--start-up-timeout-ms"] {
        let output = run(&["run", flag, "100"]);
        assert_eq!(output.status.code(), Some(2), "{flag}");
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains(&format!("{flag} is for an adapter program")),
            "{stderr}"
        );
    }
}

#[test]
fn retry_never_makes_the_reference_client_send_a_read_only_call_once() {
    let out = temp_dir("retry-never");
    let json = out.join("r.json");
    let case = "retry/read-only-503-twice-then-success";
    let output = run(&[
        "run",
        case,
        "--retry",
        "never",
        "--json",
        json.to_str().unwrap(),
    ]);
    // The case is graded should: a warning, not a failure.
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report = std::fs::read_to_string(&json).unwrap();
    assert!(report.contains("\"retry\": \"never\""), "{report}");
    assert!(
        report.contains("tool_posts: expected 3, the server received 1"),
        "{report}"
    );
    let with_command = run(&["run", "--retry", "never", "--", "/bin/true"]);
    assert_eq!(with_command.status.code(), Some(2));
    assert!(text(&with_command.stderr).contains("an adapter program has its own"));
}

#[test]
fn diff_exits_1_on_a_regression_and_names_the_case_in_each_format() {
    let out = temp_dir("diff");
    let old = out.join("old.json");
    let output = run(&["run", "tool/", "--json", old.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let mut report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    let case = &mut report["cases"][0];
    let id = case["id"].as_str().unwrap().to_owned();
    assert_eq!(case["grade"], "must", "the first tool/ case is a MUST case");
    let was = case["calls"][0]["observed"]["outcome"]
        .as_str()
        .unwrap()
        .to_owned();
    case["verdict"] = "fail".into();
    case["standing"] = "fail".into();
    case["calls"][0]["observed"]["outcome"] = "TIMEOUT".into();
    // A SHOULD case that passed and now only warns: a regression too, unless --fail-on must.
    let should = report["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["grade"] == "should")
        .expect("a SHOULD case among the tool/ cases");
    let should_id = should["id"].as_str().unwrap().to_owned();
    should["verdict"] = "fail".into();
    should["standing"] = "warning".into();
    let new = out.join("new.json");
    std::fs::write(&new, report.to_string()).unwrap();
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());

    let same = run(&["diff", old, old]);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    assert!(
        text(&same.stdout).contains("0 regressed (0 must, 0 should, 0 info), 0 fixed, 0 changed")
    );

    let worse = run(&["diff", old, new]);
    let stdout = text(&worse.stdout);
    assert_eq!(worse.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("2 regressed (1 must, 1 should, 0 info)")
            && stdout.contains(&format!("regressed (2):\n  [must] {id}: pass → fail"))
            && stdout.contains(&format!("[should] {should_id}: pass → warning")),
        "{stdout}"
    );
    let fail_on = |grades: &str| run(&["diff", "--fail-on", grades, old, new]).status.code();
    assert_eq!((fail_on("must"), fail_on("should")), (Some(1), Some(1)));
    assert!(
        stdout.contains(&format!("call 0: outcome {was} → TIMEOUT")),
        "{stdout}"
    );

    let markdown = text(&run(&["diff", "--markdown", old, new]).stdout);
    assert!(
        markdown.contains(&format!("| `{id}` | must |")),
        "{markdown}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["diff", "--json", old, new]).stdout).unwrap();
    assert_eq!(json["regressed"][0]["id"], id.as_str());

    // The old run's better: nothing regressed, both cases fixed.
    let better = run(&["diff", new, old]);
    assert_eq!(better.status.code(), Some(0));
    assert!(text(&better.stdout).contains("fixed (2):"));

    // Only the SHOULD case warns now: a regression that --fail-on must lets pass.
    let mut should_only: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(old).unwrap()).unwrap();
    for case in should_only["cases"].as_array_mut().unwrap() {
        if case["id"] == should_id.as_str() {
            case["verdict"] = "fail".into();
            case["standing"] = "warning".into();
        }
    }
    let warns = out.join("warns.json");
    std::fs::write(&warns, should_only.to_string()).unwrap();
    let warns = warns.to_str().unwrap();
    let fail_on = |grades: &[&str]| {
        run(&[&["diff"], grades, &[old, warns]].concat())
            .status
            .code()
    };
    assert_eq!(fail_on(&[]), Some(1), "by default every regression counts");
    assert_eq!(fail_on(&["--fail-on", "should"]), Some(1));
    assert_eq!(fail_on(&["--fail-on", "must"]), Some(0));
}

#[test]
fn diff_of_a_file_that_is_not_a_report_exits_2_naming_it() {
    let out = temp_dir("diff-bad");
    let bad = out.join("bad.json");
    std::fs::write(&bad, "{\"schema\": \"something/else\"}").unwrap();
    let output = run(&["diff", bad.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("bad.json") && stderr.contains("something/else"),
        "{stderr}"
    );
}

#[test]
fn the_readme_shows_the_help_the_program_prints() {
    let help = text(&run(&["--help"]).stdout);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let block = format!("```text\n$ mcp-error-layers --help\n{help}```\n");
    assert!(
        readme.contains(&block),
        "README.md's `--help` block differs from what the program prints:\n{help}"
    );
}

/// Writes a case that expects TOOL_ERROR and gets a 503 as `dir/name`.
fn failing_case_as(dir: &std::path::Path, name: &str) {
    std::fs::write(
        dir.join(name),
        "summary = 'expects the wrong outcome'\n[[call]]\nexpect = { outcome = 'TOOL_ERROR' }\n\
         [[call.reply]]\nstatus = 503\n",
    )
    .unwrap();
}

#[test]
fn the_live_line_names_what_differs_when_the_outcome_words_match() {
    // An adapter that says it sent one tools/call and sent none.
    let dir = temp_dir("attempts");
    let adapter = executable(
        &dir,
        "claims-one-attempt.sh",
        "#!/bin/sh\necho '{\"outcome\": \"TOOL_SUCCESS\", \"attempts\": 1}'\n",
    );
    let out = temp_dir("attempts-out");
    let output = run(&[
        "run",
        "--exact",
        "tool/success",
        "--out",
        out.to_str().unwrap(),
        "--",
        adapter.to_str().unwrap(),
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "call 0: expected TOOL_SUCCESS tool_posts=1 → observed TOOL_SUCCESS attempts=1 \
             tool_posts=0\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "      - attempts: the client says it sent 1 tools/call requests, the server received 0"
        ),
        "{stdout}"
    );
}

/// Writes `script` as the executable `dir/name`.
fn executable(dir: &std::path::Path, name: &str, script: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).unwrap();
    path
}

#[test]
fn a_call_that_fails_only_a_request_check_names_it_in_every_one_line_verdict() {
    // A client that gets the outcome right but sends a 2026-07-28 call without `_meta` or the
    // Mcp-Method and Mcp-Name headers: only request checks fail.
    let dir = temp_dir("only-checks");
    let adapter = executable(
        &dir,
        "bare-post.sh",
        r#"#!/bin/sh
body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'"$MCP_ERROR_LAYERS_TOOL"'","arguments":{}}}'
curl -s -o /dev/null --noproxy '*' -H 'accept: application/json, text/event-stream' \
  -H 'content-type: application/json' -H 'mcp-protocol-version: 2026-07-28' --data "$body" "$1"
echo '{"outcome": "TOOL_SUCCESS"}'
"#,
    );
    let (tap, junit) = (dir.join("run.tap"), dir.join("run.xml"));
    let output = run(&[
        "run",
        "--exact",
        "tool/success",
        "--tap",
        tap.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
        "--",
        adapter.to_str().unwrap(),
    ]);
    let live = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{live}");
    let check = "check meta-fields (must): request 1 (tools/call): params._meta has no string \
                 io.modelcontextprotocol/protocolVersion";
    assert!(
        live.contains("call 0: expected TOOL_SUCCESS tool_posts=1 → observed TOOL_SUCCESS"),
        "{live}"
    );
    assert!(live.contains(&format!("\n      - {check}\n")), "{live}");
    let tap = std::fs::read_to_string(tap).unwrap();
    let message = tap.lines().find(|l| l.starts_with("  message: ")).unwrap();
    assert!(message.contains(check), "{message}");
    let junit = std::fs::read_to_string(junit).unwrap();
    let failure = junit
        .lines()
        .find(|l| l.contains("<failure message="))
        .unwrap();
    assert!(failure.contains(check), "{failure}");
}

#[test]
fn a_case_id_with_a_newline_is_printed_escaped_everywhere() {
    let cases = temp_dir("newline-id");
    failing_case_as(&cases, "two\nlines.toml");
    let out = temp_dir("newline-id-out");
    let output = run(&[
        "run",
        "--no-builtin",
        "--cases",
        cases.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("must   two\\nlines\n"), "{stdout}");
    assert!(!stdout.lines().any(|line| line == "lines"), "{stdout}");
    let tap = std::fs::read_to_string(out.join("mcp-error-layers.tap")).unwrap();
    // TAP 14 escapes the backslash itself.
    assert!(tap.contains("not ok 1 - two\\\\nlines\n"), "{tap}");
    let junit = std::fs::read_to_string(out.join("mcp-error-layers.junit.xml")).unwrap();
    assert!(junit.contains("name=\"two\\nlines\""), "{junit}");
}

/// The one bin run inside `dir`, so that a stray file named `-` would land there.
fn run_in(dir: &std::path::Path, args: &[&str]) -> Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

#[test]
fn help_names_examples_exit_codes_and_environment() {
    let help = text(&run(&["--help"]).stdout);
    for part in [
        "Examples:",
        "Exit codes:",
        "Environment:",
        "NO_COLOR",
        "2  the run cannot happen",
    ] {
        assert!(help.contains(part), "{part:?} missing:\n{help}");
    }
    for command in ["run", "classify", "completions", "man"] {
        let help = text(&run(&[command, "--help"]).stdout);
        assert!(help.contains("Examples:"), "{command} --help:\n{help}");
    }
}

#[test]
fn a_report_named_dash_goes_to_stdout_and_the_human_lines_to_stderr() {
    let dir = temp_dir("stdout-report");
    let output = run_in(&dir, &["run", "tool/success", "--json", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["cases"][0]["id"], "tool/success");
    assert!(
        text(&output.stderr).contains("1 cases: 1 passed"),
        "{}",
        text(&output.stderr)
    );
    assert!(!dir.join("-").exists(), "a file named - was written");

    let tap = run_in(&dir, &["run", "tool/success", "--tap", "-", "--out", "r"]);
    assert!(
        text(&tap.stdout).starts_with("TAP version 14\n"),
        "{}",
        text(&tap.stdout)
    );
    assert!(
        dir.join("r/mcp-error-layers.json").is_file(),
        "--out still gets the others"
    );
    assert!(
        !dir.join("r/mcp-error-layers.tap").exists(),
        "TAP went to stdout only"
    );

    let two = run_in(&dir, &["run", "tool/success", "--json", "-", "--html", "-"]);
    assert_eq!(two.status.code(), Some(2));
    assert_eq!(
        text(&two.stderr),
        "error: --json - and --html - both ask for stdout: at most one report may go there; \
         give the other a file name\n"
    );
    assert!(two.stdout.is_empty());
}

#[test]
fn classify_json_prints_one_object() {
    let dir = temp_dir("classify-json");
    let file = dir.join("capture.txt");
    std::fs::write(
        &file,
        "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n",
    )
    .unwrap();
    let output = run(&["classify", "--json", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["outcome"], "HTTP_ERROR");
    assert_eq!(json["status"], 503);
    assert_eq!(json["code"], serde_json::Value::Null);
    assert_eq!(json["layer"], "transport");
    assert!(json["reason"].as_str().is_some_and(|r| !r.is_empty()));
}

const SUBCOMMANDS: [&str; 8] = [
    "run",
    "list",
    "serve",
    "classify",
    "report",
    "diff",
    "completions",
    "man",
];

#[test]
fn the_bash_completion_script_offers_every_subcommand() {
    let output = run(&["completions", "bash"]);
    assert_eq!(output.status.code(), Some(0));
    let script = text(&output.stdout);
    assert!(script.contains("complete -F"), "{script}");
    for command in SUBCOMMANDS {
        assert!(
            script.contains(&format!("mcp__error__layers__subcmd__{command})"))
                || script.contains(&format!("mcp__error__layers,{command})")),
            "{command} missing"
        );
    }
}

#[test]
fn the_man_page_is_roff_that_names_every_subcommand() {
    let output = run(&["man"]);
    assert_eq!(output.status.code(), Some(0));
    let page = text(&output.stdout);
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH mcp-error-layers 1"),
        "{page}"
    );
    assert!(page.contains(".TH mcp-error-layers 1"), "{page}");
    let dir = temp_dir("man");
    let file = dir.join("mcp-error-layers.1");
    std::fs::write(&file, &page).unwrap();
    // `man -l` renders it when man is installed; else the roff headers above must do.
    let rendered = Command::new("man")
        .arg("-l")
        .arg(&file)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output();
    let shown = match rendered {
        Ok(out) if out.status.success() => text(&out.stdout),
        _ => page,
    };
    for command in SUBCOMMANDS {
        assert!(
            shown.contains(&format!("mcp-error-layers-{command}")),
            "{command} missing:\n{shown}"
        );
    }
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let out = temp_dir("colour");
    let dir = out.to_str().unwrap();
    let with = |colour: &str, no_color: bool| {
        let mut command = bin();
        command.args(["run", "tool/success", "--out", dir, "--color", colour]);
        if no_color {
            command.env("NO_COLOR", "1");
        }
        text(&command.output().unwrap().stdout)
    };
    let green = "\u{1b}[";
    assert!(
        with("always", false).contains(green),
        "{}",
        with("always", false)
    );
    assert!(
        with("always", true).contains(green),
        "the flag wins over NO_COLOR"
    );
    assert!(!with("never", false).contains(green));
    assert!(
        !with("auto", false).contains(green),
        "auto: no colour into a pipe"
    );
    let help = |colour: &str| text(&run(&["--color", colour, "--help"]).stdout);
    assert!(help("always").contains(green));
    assert!(!help("never").contains(green));
    // On a terminal (`script` gives one), auto colours unless NO_COLOR is set.
    let Ok(_) = Command::new("script").arg("--version").output() else {
        return;
    };
    let on_tty = |no_color: bool| {
        let line = format!(
            "{} run tool/success --out {dir}",
            env!("CARGO_BIN_EXE_mcp-error-layers")
        );
        let mut command = Command::new("script");
        command
            .args(["-qec", &line, "/dev/null"])
            .stdin(Stdio::null());
        command
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR");
        if no_color {
            command.env("NO_COLOR", "1");
        }
        text(&command.output().unwrap().stdout)
    };
    let pass = "\u{1b}[1m\u{1b}[32mpass";
    assert!(on_tty(false).contains(pass), "{:?}", on_tty(false));
    assert!(!on_tty(true).contains(pass), "{:?}", on_tty(true));
}

/// `args` with stdout a pipe whose reader is gone: the status and stderr.
fn with_closed_stdout(args: &[&str], dir: &std::path::Path) -> (Option<i32>, String) {
    let mut child = bin()
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    (output.status.code(), text(&output.stderr))
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let dir = temp_dir("broken-pipe");
    for args in [
        &["--help"][..],
        &["list"],
        &["run", "tool/success"],
        &["run", "tool/success", "--json", "-"],
        &["completions", "bash"],
        &["man"],
    ] {
        let (code, stderr) = with_closed_stdout(args, &dir);
        assert_ne!(code, Some(101), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn tap_13_is_read_by_prove_with_the_run_s_result() {
    if Command::new("prove").arg("--version").output().is_err() {
        eprintln!("prove is not installed: skipped");
        return;
    }
    let dir = temp_dir("prove");
    let cases = temp_dir("prove-cases");
    failing_case_as(&cases, "wrong.toml");
    let prove = |args: &[&str]| {
        let tap = dir.join("run.tap");
        let mut all = vec!["run", "--tap", tap.to_str().unwrap(), "--tap-version", "13"];
        all.extend_from_slice(args);
        let run = run(&all);
        let file = std::fs::read_to_string(&tap).unwrap();
        assert!(file.starts_with("TAP version 13\n"), "{file}");
        let prove = Command::new("prove")
            .args(["--exec", "cat"])
            .arg(&tap)
            .output()
            .unwrap();
        (
            run.status.code(),
            prove.status.success(),
            text(&prove.stdout),
        )
    };
    // A run that passes with a warning (a TODO test point) and one that fails.
    let (code, passed, out) = prove(&["tool/", "retry/read-only-503-twice-then-success"]);
    assert_eq!(code, Some(0));
    assert!(passed, "{out}");
    let (code, passed, out) = prove(&["--no-builtin", "--cases", cases.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(!passed, "{out}");
    assert!(out.contains("Failed 1/1"), "{out}");
}

#[test]
fn an_adapter_program_that_cannot_start_exits_2_with_one_line() {
    let output = run(&["run", "tool/", "--", "/nonexistent-program"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "error: cannot start \"/nonexistent-program\": No such file or directory (os error 2)\n"
    );
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
    let dir = temp_dir("not-executable");
    let script = dir.join("adapter.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    let output = run(&["run", "tool/", "--", script.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).ends_with("Permission denied (os error 13)\n"));
    let output = run(&["run", "tool/", "--", "no-such-program-on-path"]);
    assert_eq!(output.status.code(), Some(2));
}

/// An agent row whose program is missing stops before any case, with one line naming the
/// program, the folder and the fix (it used to fail every case as an adapter error, exit 1).
#[test]
fn an_agent_whose_program_is_missing_exits_2_with_one_line() {
    let dir = temp_dir("agent-missing");
    std::fs::create_dir_all(dir.join("node_modules/.bin")).unwrap();
    std::fs::write(
        dir.join("adapter.toml"),
        "kind = \"agent\"\nagent = \"a\"\nversion = \"1\"\ninstall = \"npm\"\napi = \
         \"anthropic\"\ncommand = [\"{folder}/node_modules/.bin/nope\", \"-p\"]\n",
    )
    .unwrap();
    let folder = dir.canonicalize().unwrap();
    let output = run(&["run", "tool/", "--agent", folder.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: cannot start the agent in "),
        "{stderr}"
    );
    let program = folder.join("node_modules/.bin/nope");
    assert!(
        stderr.contains(&format!("{:?}", program.display().to_string())),
        "{stderr}"
    );
    assert!(stderr.contains("npm ci --prefix"), "{stderr}");
    assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn libtest_list_into_a_closed_pipe_is_not_a_panic() {
    // The library's `main!` entry, as the root package's `cases` test target builds it; it is
    // there under `cargo test --workspace` (not under `-p mcp-error-layers-cli` alone).
    let deps = PathBuf::from(env!("CARGO_BIN_EXE_mcp-error-layers")).with_file_name("deps");
    // The newest one: older builds of the same target stay in `deps/` beside it.
    let cases = std::fs::read_dir(&deps).ok().and_then(|entries| {
        entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                name.starts_with("cases-") && p.extension().is_none()
            })
            .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
    });
    let Some(cases) = cases else {
        eprintln!(
            "the `cases` test binary is not built in {}: skipped",
            deps.display()
        );
        return;
    };
    let mut child = Command::new(&cases)
        .arg("--list")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = text(&output.stderr);
    assert_ne!(output.status.code(), Some(101), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let listed = text(
        &Command::new(&cases)
            .args(["--list", "--exact", "tool/success"])
            .output()
            .unwrap()
            .stdout,
    );
    assert_eq!(listed, "[must] tool/success: test\n");
}

/// `--conformance-client`: an empty command, one beside a command after `--`, the reference
/// client's `--retry` and a persistent program's announce timeout are usage errors that say
/// what to give; a program that cannot start stops the run before any case.
#[test]
fn a_conformance_client_s_flags_that_do_not_fit_exit_2_saying_why() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["run", "--conformance-client", " "],
            "the conformance client's command is empty",
        ),
        (
            &["run", "--conformance-client", "node c.mjs", "--", "x"],
            "cannot be used with",
        ),
        (
            &[
                "run",
                "--conformance-client",
                "node c.mjs",
                "--retry",
                "never",
            ],
            "--retry sets the reference client's policy",
        ),
        (
            &[
                "run",
                "--conformance-client",
                "node c.mjs",
                "--announce-timeout-ms",
                "5",
            ],
            "a conformance client runs one process per call",
        ),
        (
            &[
                "run",
                "tool/",
                "--conformance-client",
                "/nonexistent-client",
            ],
            "error: cannot start \"/nonexistent-client\": No such file or directory",
        ),
    ];
    for (args, says) in cases {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// The JSON report of a conformance client's run names it by its words and marks its coarse
/// calls; its run flags repeat no announce timeout.
#[test]
fn a_conformance_client_s_report_names_it_and_marks_coarse_calls() {
    let dir = temp_dir("conformance-report");
    let json = dir.join("run.json");
    let client = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/adapters/conformance_client.py"
    );
    let output = run(&[
        "run",
        "tool/is-error",
        "--conformance-client",
        client,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("tool/is-error · coarse"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["adapter"]["name"], "conformance_client.py");
    // `tool/is-error` selects the four cases whose id holds it, each expecting an error.
    assert_eq!(report["summary"]["coarse"], 4);
    assert_eq!(report["cases"][0]["calls"][0]["coarse"], true);
    let flags = report["settings"]["flags"].as_str().unwrap();
    assert!(!flags.contains("announce"), "{flags}");
    assert_eq!(report["settings"]["conformance_client"], true);
}
