//! The harness tested with the harness: `cargo test` runs in whole client crates under
//! `tests/fixtures/`, and their output, filtered of what changes between runs, must match the
//! committed `expected-*.txt` files next to them.
//!
//! - `careful-client` classifies properly and passes every built-in case.
//! - `careless-client` trusts HTTP 200: it fails where that shows, reaches every verdict, and
//!   exits non-zero; it runs twice, as is and strict.
//! - `packaged-client` depends on the crate as `cargo package` packs it, not on this checkout.
//!
//! The fixtures build into `<target>/fixtures` with their committed `Cargo.lock` (`--locked`).
//! `MCP_ERROR_LAYERS_BLESS=1 cargo test --test fixtures_run` rewrites the expected outputs, the
//! fixtures' snapshots and their lock files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// One fixture run at a time: they share a target folder, and a parallel build would slow the
/// timing-sensitive cases of another fixture's run.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn careful_client_passes_every_case() {
    let output = run_fixture("careful-client", "expected-output.txt", &[]);
    assert!(output.status.success(), "the careful client must pass");
}

#[test]
fn careless_client_fails_where_it_trusts_http() {
    let reports = target_dir().join("careless-reports");
    let _ = std::fs::remove_dir_all(&reports);
    let dir = reports.display().to_string();
    let env = [("MCP_ERROR_LAYERS_REPORT_DIR", dir.as_str())];
    let output = run_fixture("careless-client", "expected-output.txt", &env);
    let code = output.status.code();
    assert_eq!(code, Some(101), "the careless client must fail");
    assert_reports_hold_every_case(&reports);
    assert_reports_agree_with_libtest(&reports, &String::from_utf8_lossy(&output.stdout));
}

#[test]
fn careless_client_fails_should_cases_when_strict() {
    let strict = [("MCP_ERROR_LAYERS_STRICT", "1")];
    let output = run_fixture("careless-client", "expected-output-strict.txt", &strict);
    assert_eq!(
        output.status.code(),
        Some(101),
        "the careless client must fail"
    );
}

#[test]
fn packaged_crate_runs_the_builtin_cases() {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let work = target_dir().join("packaged");
    let listed = cargo_package(&work);
    for case in mcp_error_layers::case::builtin() {
        let file = format!("cases/{}.toml", case.id);
        assert!(
            listed.contains(&file),
            "the package lacks {file}:\n{listed}"
        );
    }
    let client = prepare_packaged_client(&work);
    build(&client);
    if blessing() {
        let fixture = repo().join("tests/fixtures/packaged-client/Cargo.lock");
        std::fs::copy(client.join("Cargo.lock"), fixture).expect("the fixture is writable");
    }
    let output = cargo_test(&client, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let ran = format!(
        "{} passed; 0 failed",
        mcp_error_layers::case::builtin().len()
    );
    assert!(output.status.success() && stdout.contains(&ran), "{stdout}");
}

/// The four reports exist, and the JSON one has a record of every case.
fn assert_reports_hold_every_case(folder: &Path) {
    for extension in ["tap", "junit.xml", "json", "html"] {
        let file = folder.join(format!("mcp-error-layers.{extension}"));
        assert!(file.is_file(), "no report {}", file.display());
    }
    let json = std::fs::read_to_string(folder.join("mcp-error-layers.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let cases = report["cases"].as_array().map_or(0, Vec::len);
    assert_eq!(cases, mcp_error_layers::case::builtin().len(), "{json}");
}

/// Every report says of each case what libtest said of its test: FAILED is a failure
/// everywhere, ignored is a skip, ok (accepted deviations and warnings included) is no failure.
fn assert_reports_agree_with_libtest(folder: &Path, stdout: &str) {
    let libtest: std::collections::BTreeMap<&str, &str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("test ")?.split_once(" ... "))
        .filter_map(|(name, result)| Some((name.split_whitespace().nth(1)?, result.trim())))
        .filter(|(name, _)| !name.starts_with("mcp-error-layers::"))
        .collect();
    let json = std::fs::read_to_string(folder.join("mcp-error-layers.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases.len(), libtest.len(), "{libtest:?}");
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let word = match (case["fails_run"].as_bool(), case["status"].as_str()) {
            (Some(true), _) => "FAILED",
            (_, Some("skip")) => "ignored",
            _ => "ok",
        };
        let seen = libtest.get(id).copied().unwrap_or("missing");
        assert!(
            seen.starts_with(word),
            "{id}: the JSON report says {word}, libtest {seen}"
        );
    }
    let failed = libtest.values().filter(|r| r.starts_with("FAILED")).count();
    let junit = std::fs::read_to_string(folder.join("mcp-error-layers.junit.xml")).unwrap();
    assert_eq!(junit.matches("<failure ").count(), failed, "JUnit failures");
    let tap = std::fs::read_to_string(folder.join("mcp-error-layers.tap")).unwrap();
    let not_ok = tap
        .lines()
        .filter(|l| l.starts_with("not ok") && !l.contains(" # TODO "));
    assert_eq!(not_ok.count(), failed, "TAP failures");
}

/// Builds and runs the fixture, compares its filtered output with `expected` (or rewrites it
/// when blessing) and returns the run's raw output.
fn run_fixture(name: &str, expected: &str, env: &[(&str, &str)]) -> Output {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let fixture = repo().join("tests/fixtures").join(name);
    build(&fixture);
    let output = cargo_test(&fixture, env);
    let actual = transcript(&output, env);
    compare_or_bless(&fixture.join(expected), &actual);
    output
}

/// `cargo test --no-run` first, so that the compared run's output has no build lines.
fn build(crate_dir: &Path) {
    let mut command = cargo(crate_dir);
    command.args(["test", "--quiet", "--no-run", "--test", "mcp_errors"]);
    if !blessing() {
        command.arg("--locked");
    }
    let output = command.output().expect("cargo runs");
    assert!(
        output.status.success(),
        "building {} failed (if its Cargo.lock is out of date, rerun with \
         MCP_ERROR_LAYERS_BLESS=1):\n{}",
        crate_dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The run whose output is compared: one test thread, so that the order is the cases' order.
fn cargo_test(crate_dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = cargo(crate_dir);
    command.args([
        "test",
        "--locked",
        "--test",
        "mcp_errors",
        "--",
        "--test-threads=1",
    ]);
    // Blessing accepts every snapshot as it is now; otherwise a snapshot is never written.
    let update = if blessing() { "always" } else { "no" };
    command.env("INSTA_UPDATE", update);
    command.envs(env.iter().copied());
    command.output().expect("cargo runs")
}

/// A cargo command in `crate_dir` with an environment that does not leak this run's settings.
fn cargo(crate_dir: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(crate_dir);
    for (key, _) in std::env::vars_os() {
        if leaks(&key.to_string_lossy()) {
            command.env_remove(&key);
        }
    }
    command
        .env("CARGO_TARGET_DIR", target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env("RUST_BACKTRACE", "0");
    command
}

/// Variables that would change what a fixture run prints or where it builds.
fn leaks(key: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "MCP_ERROR_LAYERS_",
        "INSTA_",
        "NEXTEST",
        "RUST_TEST_",
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_CRATE_",
        "CARGO_BIN_",
    ];
    const NAMES: [&str; 5] = [
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_TARGET_TMPDIR",
        "CARGO_PRIMARY_PACKAGE",
        "CLICOLOR_FORCE",
    ];
    PREFIXES.iter().any(|p| key.starts_with(p)) || NAMES.contains(&key)
}

/// The command, its exit code and both streams, filtered.
fn transcript(output: &Output, env: &[(&str, &str)]) -> String {
    let mut text = String::from("$ ");
    for (key, value) in env {
        text.push_str(&format!("{key}={} ", normalize_line(value)));
    }
    text.push_str("cargo test --locked --test mcp_errors -- --test-threads=1\n");
    let code = output
        .status
        .code()
        .map_or("none".into(), |c| c.to_string());
    text.push_str(&format!("exit code: {code}\n"));
    let stdout = normalize(&String::from_utf8_lossy(&output.stdout));
    let stderr = normalize(&String::from_utf8_lossy(&output.stderr));
    text.push_str(&format!("--- stdout\n{stdout}--- stderr\n{stderr}"));
    text
}

/// What changes between runs, replaced by placeholders, line by line. Steps are only ever
/// added at the end, so that an expected file blessed before a new step still matches.
fn normalize(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().filter(|line| !is_build_line(line)) {
        out.push_str(&normalize_line(line));
        out.push('\n');
    }
    out
}

fn normalize_line(line: &str) -> String {
    // The fixtures' target folder may lie inside the repository: replace it first.
    let mut line = line
        .replace(&target_dir().display().to_string(), "[fixtures-target]")
        .replace(&repo().display().to_string(), "[repo]")
        .replace(&cargo_home().display().to_string(), "[cargo-home]");
    line = running_line(&line);
    for (prefix, placeholder) in REDACTED_NUMBERS {
        line = redact_number_after(&line, prefix, placeholder);
    }
    // `Retry-After` dates the server made up.
    mcp_error_layers::engine::redact_http_dates(&line)
}

/// Numbers that change from run to run, by the text that precedes them.
const REDACTED_NUMBERS: [(&str, &str); 5] = [
    ("target(s) in ", "[time]"), // cargo's `Finished ... in 0.25s`
    ("finished in ", "[time]"),  // libtest's summary
    ("127.0.0.1:", "[port]"),    // the wire server's port, in client errors
    (", +", "[ms]"),             // transcript times: `(call 0, +2 ms)`
    ("' (", "[thread]"),         // thread ids in panic messages: `thread 'main' (123)`
];

/// Lines cargo prints only when it builds or fetches something.
fn is_build_line(line: &str) -> bool {
    const VERBS: [&str; 9] = [
        "Compiling",
        "Checking",
        "Downloading",
        "Downloaded",
        "Locking",
        "Updating",
        "Adding",
        "Blocking",
        "Unpacking",
    ];
    let word = line.trim_start().split(' ').next().unwrap_or_default();
    VERBS.contains(&word)
}

/// `Running tests/mcp_errors.rs (/abs/target/debug/deps/mcp_errors-hash)` → without the path.
fn running_line(line: &str) -> String {
    match (line.trim_start().starts_with("Running "), line.find(" (")) {
        (true, Some(at)) => format!("{} ([test binary])", &line[..at]),
        _ => line.to_owned(),
    }
}

/// Replaces the digits (and dots) right after each `prefix` with `placeholder`.
fn redact_number_after(line: &str, prefix: &str, placeholder: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(prefix) {
        let after = &rest[at + prefix.len()..];
        let digits = after.len()
            - after
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                .len();
        out.push_str(&rest[..at + prefix.len()]);
        out.push_str(if digits > 0 { placeholder } else { "" });
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

fn compare_or_bless(expected_file: &Path, actual: &str) {
    if blessing() {
        std::fs::write(expected_file, actual).expect("the expected file is writable");
        return;
    }
    let expected = std::fs::read_to_string(expected_file).unwrap_or_default();
    if expected == actual {
        return;
    }
    let actual_file = target_dir().join(format!(
        "{}.actual",
        expected_file
            .display()
            .to_string()
            .replace(['/', '\\'], "_")
    ));
    std::fs::write(&actual_file, actual).expect("the target folder is writable");
    panic!(
        "the output differs from {}{}\nthe whole output is in {}; if the change is right, \
         rerun with MCP_ERROR_LAYERS_BLESS=1",
        expected_file.display(),
        first_difference(&expected, actual),
        actual_file.display()
    );
}

/// The first line where `expected` and `actual` differ, both sides.
fn first_difference(expected: &str, actual: &str) -> String {
    let mut expected_lines = expected.lines();
    let mut actual_lines = actual.lines();
    for number in 1.. {
        match (expected_lines.next(), actual_lines.next()) {
            (None, None) => break,
            (e, a) if e == a => continue,
            (e, a) => {
                return format!(
                    " at line {number}:\n  expected: {}\n  actual:   {}",
                    e.unwrap_or("(end)"),
                    a.unwrap_or("(end)")
                );
            }
        }
    }
    String::new()
}

/// `cargo package` of this crate into `work`; returns `cargo package --list`.
fn cargo_package(work: &Path) -> String {
    let mut package = cargo(&repo());
    package.args([
        "package",
        "-p",
        "mcp-error-layers",
        "--allow-dirty",
        "--no-verify",
        "--quiet",
    ]);
    package.env("CARGO_TARGET_DIR", work);
    let output = package.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "cargo package failed:\n{stderr}");
    let mut list = cargo(&repo());
    list.args([
        "package",
        "-p",
        "mcp-error-layers",
        "--allow-dirty",
        "--list",
        "--quiet",
    ]);
    let output = list.output().expect("cargo runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The `packaged-client` fixture next to the unpacked `.crate`, which its manifest names.
fn prepare_packaged_client(work: &Path) -> PathBuf {
    let client = work.join("packaged-client");
    let _ = std::fs::remove_dir_all(&client);
    std::fs::create_dir_all(client.join("tests")).expect("the target folder is writable");
    let crate_file = work.join(format!(
        "package/mcp-error-layers-{}.crate",
        env!("CARGO_PKG_VERSION")
    ));
    let untar = Command::new("tar")
        .arg("-xzf")
        .arg(&crate_file)
        .arg("-C")
        .arg(&client)
        .status()
        .expect("tar runs");
    assert!(untar.success(), "cannot unpack {}", crate_file.display());
    let fixture = repo().join("tests/fixtures/packaged-client");
    for file in ["Cargo.toml", "Cargo.lock", "tests/mcp_errors.rs"] {
        std::fs::copy(fixture.join(file), client.join(file)).expect("the fixture is readable");
    }
    client
}

fn blessing() -> bool {
    std::env::var_os("MCP_ERROR_LAYERS_BLESS").is_some_and(|v| v != "0")
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `<target>/fixtures`, where `<target>` holds this test binary (`<target>/debug/deps/…`).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary has a path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the binary is in <target>/<profile>/deps");
    target.join("fixtures")
}

fn cargo_home() -> PathBuf {
    match std::env::var_os("CARGO_HOME") {
        Some(home) => PathBuf::from(home),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"),
    }
}
