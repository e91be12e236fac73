//! Validation of the reports by readers someone else wrote (`cargo test --test third_party`).
//!
//! Two real runs write their reports to a temporary folder: the reference client over every
//! built-in case (what `mcp-error-layers run --out` writes), and the fixture's careless client,
//! whose run has every verdict. Then tap.py parses the TAP, junitparser reads the JUnit XML
//! (both from PyPI, pinned in `harness/report-readers/requirements.txt`, installed once into a
//! virtualenv under the target folder), and headless Chromium renders the HTML pages; each
//! trial compares what the reader understood with the run itself. The `wire::` trials read
//! what the wire server sent in the reference and careless runs with the PyPI `mcp-types`
//! models (`third_party/wire.rs`): the harness's own wire must be valid MCP but for the parts
//! a case breaks on purpose.
//!
//! A reader that is not installed makes its trials IGNORED, with the reason and the install
//! command, never passed. `MCP_ERROR_LAYERS_REQUIRE_READERS=1` (CI sets it) makes that a
//! failure instead. `MCP_ERROR_LAYERS_CHROMIUM` names another Chromium binary.

#[path = "../tests/reports/fixture.rs"]
mod fixture;
#[path = "third_party/wire.rs"]
mod wire;

use libtest_mimic::{Arguments, Completion, Trial};
use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::builtin;
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Standing;
use mcp_error_layers::engine::transcript;
use mcp_error_layers::engine::{Run as Engine, default_jobs};
use mcp_error_layers::engine::{expected, observed};
use mcp_error_layers::report::Counts;
use mcp_error_layers::report::json::JsonReport;
use mcp_error_layers::report::junit::classname;
use mcp_error_layers::report::{
    AdapterInfo, ReportPaths, RunReport, RunSettings, adapter_log, html, mismatch_line, write_all,
};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

const READERS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/harness/report-readers");

fn main() {
    let args = Arguments::from_args();
    let shared = Arc::new(Shared {
        dir: tempfile::tempdir().expect("a temporary folder"),
        runs: OnceLock::new(),
    });
    let trials = [Run::Reference, Run::Careless, Run::Accepting]
        .into_iter()
        .flat_map(|run| {
            [
                trial(&shared, "tap", run, tap_trial),
                trial(&shared, "junit", run, junit_trial),
                trial(&shared, "html", run, page_trial),
            ]
        })
        .chain([
            trial(&shared, "html", Run::Matrix, matrix_trial),
            named_trial(&shared, "html::cell-from-address", Run::Matrix, cell_trial),
            trial(&shared, "wire", Run::Reference, wire::run_trial),
            trial(&shared, "wire", Run::Careless, wire::run_trial),
            named_trial(
                &shared,
                "wire::validator",
                Run::Reference,
                wire::validator_trial,
            ),
            named_trial(
                &shared,
                "wire::prelude",
                Run::Reference,
                wire::prelude_trial,
            ),
        ])
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    drop(shared); // removes the reports before exiting, which skips destructors
    conclusion.exit();
}

/// What every trial shares: the folder with the reports and the runs they came from.
struct Shared {
    dir: tempfile::TempDir,
    runs: OnceLock<[RunReport; 3]>,
}

#[derive(Debug, Clone, Copy)]
enum Run {
    Reference,
    Careless,
    /// The careless run under a baseline that accepts some of its deviations (and lists a case
    /// it passes): readers must count the accepted ones as cargo test does, not as failures.
    Accepting,
    /// The reference and careless runs in one HTML matrix, built from their JSON files.
    Matrix,
}

impl Run {
    fn name(self) -> &'static str {
        match self {
            Run::Reference => "reference",
            Run::Careless => "careless",
            Run::Accepting => "careless-baseline",
            Run::Matrix => "matrix",
        }
    }
}

impl Shared {
    /// The three runs, made and written on first use (not while listing trials).
    fn runs(&self) -> &[RunReport; 3] {
        self.runs.get_or_init(|| {
            let careless = with_adapter_logs(fixture::careless_run(false));
            let mut accepting = fixture::accepting(&careless);
            accepting.adapter.name = Run::Accepting.name().to_owned();
            let runs = [reference_run(), careless, accepting];
            for run in &runs {
                let paths = ReportPaths::all_in(&self.dir.path().join(&run.adapter.name));
                write_all(run, &paths).expect("the reports are written");
            }
            runs
        })
    }

    /// The run behind a trial (the matrix trial reads both through their files instead).
    fn run(&self, run: Run) -> &RunReport {
        let [reference, careless, accepting] = self.runs();
        match run {
            Run::Careless => careless,
            Run::Accepting => accepting,
            Run::Reference | Run::Matrix => reference,
        }
    }

    /// A path in the reports' folder for a trial's own files.
    fn scratch(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn file(&self, run: Run, extension: &str) -> PathBuf {
        self.runs();
        let name = format!("mcp-error-layers.{extension}");
        self.dir.path().join(run.name()).join(name)
    }
}

/// Stderr lines an out-of-process adapter might leave, put on the careless run's failing
/// calls, so that the readers also see the multi-line (YAML block) and escaped forms.
fn with_adapter_logs(mut run: RunReport) -> RunReport {
    let logs = [
        "sdk: POST /mcp\n\n  -> 200 <json> & \"quoted\"\n→ done\n",
        " leading space\n...\n---\ncontrol \u{1b}[31m\u{7} and tab\t and \u{2028}\n",
    ];
    let failing = run.cases.iter_mut().filter(|c| c.standing.fails_run());
    for (case, log) in failing.filter(|c| !c.calls.is_empty()).zip(logs) {
        case.calls[0].adapter_log = Some(log.to_owned());
    }
    run
}

/// The reference client over every built-in case, as `run --out` runs it.
fn reference_run() -> RunReport {
    let client = ReferenceAdapter::new();
    let cases = Engine::new(&client).cases(builtin()).execute(&()).cases;
    RunReport {
        adapter: AdapterInfo {
            name: "reference".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
        protocol_version: None,
        strict: false,
        settings: RunSettings {
            jobs: default_jobs(),
            deadline_margin_ms: 1000,
            ..RunSettings::default()
        },
        duration: std::time::Duration::ZERO,
        cases,
        shard: None,
    }
}

type Check = fn(&Shared, Run) -> Result<(), Outcome>;

fn trial(shared: &Arc<Shared>, format: &str, run: Run, check: Check) -> Trial {
    named_trial(shared, &format!("{format}::{}", run.name()), run, check)
}

fn named_trial(shared: &Arc<Shared>, name: &str, run: Run, check: Check) -> Trial {
    let shared = Arc::clone(shared);
    Trial::ignorable_test(name, move || match check(&shared, run) {
        Ok(()) => Ok(Completion::Completed),
        Err(Outcome::Missing(why)) if !readers_required() => Ok(Completion::ignored_with(why)),
        Err(Outcome::Missing(why) | Outcome::Failed(why)) => Err(why.into()),
    })
    .with_kind("readers")
}

/// Why a trial did not pass: a reader that is not installed, or a real failure.
enum Outcome {
    Missing(String),
    Failed(String),
}

impl From<String> for Outcome {
    fn from(why: String) -> Self {
        Outcome::Failed(why)
    }
}

fn readers_required() -> bool {
    std::env::var_os("MCP_ERROR_LAYERS_REQUIRE_READERS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Fails with `what` unless `seen == want`.
fn same<T: PartialEq + std::fmt::Debug>(what: &str, seen: T, want: T) -> Result<(), Outcome> {
    if seen == want {
        Ok(())
    } else {
        Err(Outcome::Failed(format!(
            "{what}: the reader saw {seen:?}, the run has {want:?}"
        )))
    }
}

// ---- TAP, read by tap.py -------------------------------------------------------------------

fn tap_trial(shared: &Shared, run: Run) -> Result<(), Outcome> {
    let report = shared.run(run);
    let seen = python_reader("read_tap.py", &shared.file(run, "tap"))?;
    same("TAP version", seen["version"].as_u64(), Some(14))?;
    same(
        "plan",
        seen["plan"].as_u64(),
        Some(report.cases.len() as u64),
    )?;
    same("unparsed lines", &seen["unknown"], &Value::Array(vec![]))?;
    let points = seen["points"].as_array().cloned().unwrap_or_default();
    same("test points", points.len(), report.cases.len())?;
    for (index, (point, record)) in points.iter().zip(&report.cases).enumerate() {
        tap_point(point, index + 1, record).map_err(|why| {
            Outcome::Failed(format!("test point {} ({}): {why}", index + 1, record.id))
        })?;
    }
    tap_counts(&points, Counts::of(&report.cases))
}

fn tap_point(point: &Value, number: usize, record: &CaseRecord) -> Result<(), String> {
    let text = |key: &str| point[key].as_str().unwrap_or_default().to_owned();
    let flag = |key: &str| point[key].as_bool().unwrap_or_default();
    check("number", point["number"].as_u64(), Some(number as u64))?;
    check(
        "description",
        text("description"),
        format!("- {}", record.id),
    )?;
    let standing = &record.standing;
    let want = match standing {
        Standing::Pass => (true, false, false),
        Standing::Unsupported(_) => (true, true, false),
        Standing::Warning(_) | Standing::Accepted(_) => (false, false, true),
        _ => (false, false, false),
    };
    check(
        "(ok, skip, todo)",
        (flag("ok"), flag("skip"), flag("todo")),
        want,
    )?;
    if let Standing::Accepted(why) = standing {
        let directive = text("directive");
        // tap.py keeps TAP's `\#` escape in the directive text.
        let escaped = why.replace('#', "\\#");
        if !directive.starts_with("TODO accepted: ") || !directive.contains(&escaped) {
            return Err(format!(
                "the TODO directive {directive:?} lacks the reason {why:?}"
            ));
        }
    }
    if standing != &Standing::Pass && !matches!(standing, Standing::Unsupported(_)) {
        tap_yaml(&point["yaml"], record)?;
    }
    Ok(())
}

/// The YAML block as PyYAML read it holds exactly the strings of the run.
fn tap_yaml(yaml: &Value, record: &CaseRecord) -> Result<(), String> {
    if !yaml.is_object() {
        return Err(format!("no readable YAML block: {yaml}"));
    }
    let s = |v: &Value| v.as_str().map(str::to_owned);
    check("yaml id", s(&yaml["id"]), Some(record.id.clone()))?;
    check(
        "yaml verdict",
        s(&yaml["verdict"]),
        Some(record.verdict.to_string()),
    )?;
    check(
        "yaml message",
        s(&yaml["message"]),
        Some(mismatch_line(record)),
    )?;
    let standing = &record.standing;
    check(
        "yaml standing",
        s(&yaml["standing"]),
        Some(standing.to_string()),
    )?;
    check(
        "yaml reason",
        s(&yaml["reason"]),
        standing.reason().map(str::to_owned),
    )?;
    let error = record
        .error
        .as_deref()
        .map(|e| e.trim_end_matches('\n').to_owned());
    check("yaml error", s(&yaml["error"]), error)?;
    let calls = yaml["calls"].as_array().cloned().unwrap_or_default();
    check("yaml calls", calls.len(), record.calls.len())?;
    for (seen, call) in calls.iter().zip(&record.calls) {
        check("yaml expected", s(&seen["expected"]), Some(expected(call)))?;
        check("yaml observed", s(&seen["observed"]), Some(observed(call)))?;
        let problems: Vec<String> = seen["problems"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(s)
            .collect();
        check("yaml problems", problems, call.all_problems())?;
        let log = adapter_log(call).map(|l| l.trim_end_matches('\n').to_owned());
        check("yaml adapter_log", s(&seen["adapter_log"]), log)?;
    }
    if record.error.is_none() {
        tap_transcript(yaml["transcript"].as_str().unwrap_or_default(), record)?;
    }
    Ok(())
}

/// The block's transcript keeps every request and reply line of the full transcript.
fn tap_transcript(seen: &str, record: &CaseRecord) -> Result<(), String> {
    let full = transcript(&record.exchanges);
    let key = full
        .lines()
        .filter(|l| l.starts_with(['→', '←']) || l.starts_with('('));
    match key.into_iter().find(|line| !seen.contains(line)) {
        Some(line) => Err(format!("the YAML transcript lacks {line:?}: {seen:?}")),
        None => Ok(()),
    }
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, seen: T, want: T) -> Result<(), String> {
    if seen == want {
        Ok(())
    } else {
        Err(format!(
            "{what}: the reader saw {seen:?}, the run has {want:?}"
        ))
    }
}

fn tap_counts(points: &[Value], counts: Counts) -> Result<(), Outcome> {
    let count = |f: &dyn Fn(&Value) -> bool| points.iter().filter(|p| f(p)).count();
    let ok = |p: &Value| p["ok"].as_bool() == Some(true);
    let todo = |p: &Value| p["todo"].as_bool() == Some(true);
    let skip = |p: &Value| p["skip"].as_bool() == Some(true);
    same("ok points", count(&ok), counts.passed + counts.skipped)?;
    same(
        "not ok points",
        count(&|p| !ok(p) && !todo(p)),
        counts.failed,
    )?;
    same(
        "TODO points",
        count(&todo),
        counts.warnings + counts.accepted,
    )?;
    same("SKIP points", count(&skip), counts.skipped)
}

// ---- JUnit, read by junitparser ------------------------------------------------------------

fn junit_trial(shared: &Shared, run: Run) -> Result<(), Outcome> {
    let report = shared.run(run);
    let seen = python_reader("read_junit.py", &shared.file(run, "junit.xml"))?;
    let suites = seen["suites"].as_array().cloned().unwrap_or_default();
    same("test suites", suites.len(), 1)?;
    let suite = &suites[0];
    same(
        "suite name",
        suite["name"].as_str(),
        Some(report.adapter.name.as_str()),
    )?;
    let counts = Counts::of(&report.cases);
    let attribute = |key: &str| suite[key].as_u64().and_then(|n| usize::try_from(n).ok());
    same("tests=", attribute("tests"), Some(counts.cases))?;
    same("failures=", attribute("failures"), Some(counts.failed))?;
    same("skipped=", attribute("skipped"), Some(counts.skipped))?;
    same("errors=", attribute("errors"), Some(0))?;
    let cases = suite["cases"].as_array().cloned().unwrap_or_default();
    same("test cases", cases.len(), report.cases.len())?;
    for (seen, record) in cases.iter().zip(&report.cases) {
        junit_case(seen, record)
            .map_err(|why| Outcome::Failed(format!("test case {}: {why}", record.id)))?;
    }
    Ok(())
}

fn junit_case(seen: &Value, record: &CaseRecord) -> Result<(), String> {
    check("name", seen["name"].as_str(), Some(record.id.as_str()))?;
    check(
        "classname",
        seen["classname"].as_str(),
        Some(classname(&record.id)),
    )?;
    if !seen["time"].as_f64().is_some_and(|t| t >= 0.0) {
        return Err(format!("no time: {seen}"));
    }
    let results = seen["results"].as_array().cloned().unwrap_or_default();
    let kinds: Vec<&str> = results.iter().filter_map(|r| r["kind"].as_str()).collect();
    let property = |name: &str| seen["properties"][name].as_str().map(str::to_owned);
    let standing = &record.standing;
    check("standing", property("standing"), Some(standing.to_string()))?;
    match standing {
        Standing::Pass | Standing::Warning(_) => check("results", kinds, vec![]),
        Standing::Accepted(why) => {
            check("results", kinds, vec![])?;
            check("accepted", property("accepted"), Some(why.clone()))?;
            let out = seen["system_out"].as_str().unwrap_or_default();
            check(
                "system-out has the reason",
                out.contains(why.as_str()),
                true,
            )
        }
        Standing::Unsupported(_) => check("results", kinds, vec!["skipped"]),
        failing => {
            check("results", kinds, vec!["failure"])?;
            check("type", results[0]["type"].as_str(), Some(failing.as_str()))?;
            check(
                "message",
                results[0]["message"].as_str().map(str::to_owned),
                Some(mismatch_line(record)),
            )?;
            check("system-out", seen["system_out"].is_string(), true)
        }
    }
}

// ---- the Python readers --------------------------------------------------------------------

/// Runs `script` from `harness/report-readers` on `report` and returns the JSON it wrote.
fn python_reader(script: &str, report: &Path) -> Result<Value, Outcome> {
    let out = report.with_extension("read.json");
    python_script(script, &[report.as_os_str()], &out)
}

/// Runs `script` from `harness/report-readers` with `args` and then `out`, and returns the JSON
/// it wrote into `out`.
fn python_script(script: &str, args: &[&OsStr], out: &Path) -> Result<Value, Outcome> {
    let python = readers_python()?;
    let output = Command::new(python)
        .arg(Path::new(READERS).join(script))
        .args(args)
        .arg(out)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{script} failed on {args:?}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let text = std::fs::read_to_string(out).map_err(|e| format!("{script} wrote nothing: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{script} wrote no JSON: {e}").into())
}

/// The virtualenv's Python, made on first use: once per set of pins, however many trials or
/// test processes (nextest) ask at once.
fn readers_python() -> Result<&'static Path, Outcome> {
    static PYTHON: OnceLock<Result<PathBuf, (bool, String)>> = OnceLock::new();
    match PYTHON.get_or_init(|| {
        make_venv().map_err(|o| match o {
            Outcome::Missing(why) => (true, why),
            Outcome::Failed(why) => (false, why),
        })
    }) {
        Ok(path) => Ok(path),
        Err((true, why)) => Err(Outcome::Missing(why.clone())),
        Err((false, why)) => Err(Outcome::Failed(why.clone())),
    }
}

const PYTHON_INSTALL: &str =
    "install Python 3 with its venv module (Debian: apt-get install -y python3 python3-venv)";

fn make_venv() -> Result<PathBuf, Outcome> {
    let requirements = Path::new(READERS).join("requirements.txt");
    let pins = std::fs::read(&requirements)
        .map_err(|e| format!("cannot read {}: {e}", requirements.display()))?;
    let home = target_dir().join("report-readers-venv");
    let venv = home.join(format!("{:016x}", fnv1a(&pins)));
    let python = venv.join("bin/python");
    if venv.join(".installed").exists() {
        return Ok(python);
    }
    // Built under a name of this process's own, then renamed into place in one step, so that
    // test processes running at once never see (or use) a half-installed environment.
    let building = home.join(format!("building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    create_venv(&building)?;
    pip_install(&building, &requirements)?;
    std::fs::write(building.join(".installed"), &pins).map_err(|e| e.to_string())?;
    if std::fs::rename(&building, &venv).is_err() {
        let _ = std::fs::remove_dir_all(&building);
        if !venv.join(".installed").exists() {
            return Err(format!(
                "cannot move the readers' virtualenv into {}",
                venv.display()
            )
            .into());
        }
    }
    Ok(python)
}

fn create_venv(dir: &Path) -> Result<(), Outcome> {
    let output = match Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(dir)
        .output()
    {
        Ok(output) => output,
        Err(e) => {
            return Err(Outcome::Missing(format!(
                "python3 cannot be started ({e}): {PYTHON_INSTALL}"
            )));
        }
    };
    if output.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&output.stderr);
    Err(Outcome::Missing(format!(
        "python3 -m venv failed ({}): {PYTHON_INSTALL}",
        err.trim()
    )))
}

fn pip_install(venv: &Path, requirements: &Path) -> Result<(), Outcome> {
    let output = Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
            "-q",
            "-r",
        ])
        .arg(requirements)
        .output()
        .map_err(|e| format!("cannot start the virtualenv's python: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "pip could not install the readers pinned in {}:\n{}",
        requirements.display(),
        String::from_utf8_lossy(&output.stderr)
    )
    .into())
}

/// The cargo target folder this test binary was built into (`target/debug/deps/..` → `target`).
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(Path::to_path_buf))
        .unwrap_or_else(std::env::temp_dir)
}

/// A hash that is the same in every build (unlike `DefaultHasher`): it names the virtualenv.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

// ---- HTML, rendered by headless Chromium ---------------------------------------------------

/// The single-run page `write_all` wrote.
fn page_trial(shared: &Shared, run: Run) -> Result<(), Outcome> {
    let report = JsonReport::from_run(shared.run(run));
    rendered_matrix(&shared.file(run, "html"), &[report])
}

/// Both runs' JSON files read back and rendered as one matrix, as `report --html` does.
fn matrix_trial(shared: &Shared, _: Run) -> Result<(), Outcome> {
    let reports = matrix_reports(shared)?;
    let page = shared.dir.path().join("matrix.html");
    html::write(&reports, &page).map_err(|e| e.to_string())?;
    rendered_matrix(&page, &reports)
}

/// The reference and careless runs' JSON files, read back.
fn matrix_reports(shared: &Shared) -> Result<Vec<JsonReport>, Outcome> {
    let read = |run| JsonReport::read(&shared.file(run, "json")).map_err(|e| e.to_string());
    Ok(vec![read(Run::Reference)?, read(Run::Careless)?])
}

/// The matrix with its address naming a failing cell of the careless column
/// (`#cell=<row id>/<column>`): the page carries the cells' contents packed, and its script
/// unpacks that cell, and no other, into the DOM.
fn cell_trial(shared: &Shared, _: Run) -> Result<(), Outcome> {
    const COLUMN: usize = 1;
    let reports = matrix_reports(shared)?;
    let page = shared.scratch("cell.html");
    html::write(&reports, &page).map_err(|e| e.to_string())?;
    let markup = std::fs::read_to_string(&page).map_err(|e| e.to_string())?;
    same(
        "cell contents inline in the written page",
        markup.contains("<dt>observed</dt>"),
        false,
    )?;
    let case = reports[COLUMN]
        .cases
        .iter()
        .find(|c| c.fails_run && c.error.is_none() && !c.calls.is_empty())
        .ok_or_else(|| "the careless run has no failing case with a call".to_owned())?;
    let address = format!("#cell={}/{COLUMN}", html::anchor(&case.id));
    let dom = dump_dom(&page, &address)?;
    same(
        "cells unpacked",
        dom.matches("<div class=\"cell\">").count(),
        1,
    )?;
    let cell = rendered_cell(&dom, &case.id, COLUMN)?;
    for line in opened_cell_lines(case) {
        if !cell.contains(&line) {
            let why = format!("{address}: the opened cell lacks {line:?}:\n{cell}");
            return Err(why.into());
        }
    }
    Ok(())
}

/// What an opened cell of `case` shows, as Chromium's DOM writes it: its first call's
/// expected and observed outcomes, its adapter log's lines and its transcript's first line.
fn opened_cell_lines(case: &mcp_error_layers::report::json::JsonCase) -> Vec<String> {
    let call = &case.calls[0];
    let code =
        |what: &str, text: &str| format!("<dt>{what}</dt><dd><code>{}</code></dd>", dom_text(text));
    let mut lines = vec![
        code("expected", &call.expected_text),
        code("observed", &call.observed_text),
    ];
    let log = call.adapter_log.as_deref().unwrap_or_default();
    lines.extend(log.lines().filter(|l| !l.is_empty()).map(dom_text));
    lines.extend(case.transcript.lines().next().map(dom_text));
    lines
}

/// `text` as Chromium serializes an element's text: only `&`, `<` and `>` (and a no-break
/// space) as references, every line break a line feed.
fn dom_text(text: &str) -> String {
    html::esc(text)
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("\r\n", "\n")
        .replace('\r', "\n")
        .replace('\u{a0}', "&nbsp;")
}

/// The markup of the cell in `column` (counted from 0) of case `id`'s row in `dom`.
fn rendered_cell<'d>(dom: &'d str, id: &str, column: usize) -> Result<&'d str, Outcome> {
    let start = dom
        .find(&format!("<tr id=\"{}\"", html::anchor(id)))
        .ok_or_else(|| format!("no row for {id} in the rendered page"))?;
    let row = &dom[start..];
    let row = &row[..row.find("</tr>").unwrap_or(row.len())];
    match row.split("<td").nth(column + 1) {
        Some(cell) => Ok(cell),
        None => Err(format!("the row of {id} has no column {column}").into()),
    }
}

/// Chromium's DOM of `page` has a row per case and a cell per case and report, coloured by
/// the right verdicts.
fn rendered_matrix(page: &Path, reports: &[JsonReport]) -> Result<(), Outcome> {
    let dom = dump_dom(page, "")?;
    let mut ids: Vec<&str> = reports
        .iter()
        .flat_map(|r| &r.cases)
        .map(|c| c.id.as_str())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for id in &ids {
        let row = format!(
            "<tr id=\"{}\" data-case=\"{}\">",
            html::anchor(id),
            html::esc(id)
        );
        if !dom.contains(&row) {
            return Err(format!("case {id} is not in the rendered page").into());
        }
    }
    same(
        "rendered rows",
        dom.matches(" data-case=").count(),
        ids.len(),
    )?;
    same(
        "rendered cells",
        dom.matches(" data-verdict=").count(),
        ids.len() * reports.len(),
    )?;
    let cases = || reports.iter().flat_map(|r| &r.cases);
    for verdict in ["pass", "fail", "hang", "adapter-error", "unsupported"] {
        let want = cases().filter(|c| c.verdict.as_str() == verdict).count();
        same(
            verdict,
            dom.matches(&format!("data-verdict=\"{verdict}\"")).count(),
            want,
        )?;
    }
    for standing in Standing::words() {
        let want = cases().filter(|c| c.standing_word() == standing).count();
        same(
            standing,
            dom.matches(&format!("data-standing=\"{standing}\""))
                .count(),
            want,
        )?;
    }
    Ok(())
}

const CHROMIUM_INSTALL: &str = "install Chromium (Debian: apt-get install -y chromium) or set MCP_ERROR_LAYERS_CHROMIUM to a Chromium or Chrome binary";

fn chromium() -> PathBuf {
    std::env::var_os("MCP_ERROR_LAYERS_CHROMIUM")
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// The DOM headless Chromium builds from `page` with `fragment` (`#…` or nothing) in its
/// address, with a fresh profile and nothing that reaches the network, once the page's script
/// is done (its unpacking is asynchronous: virtual time lets it finish without a wait in real
/// time); killed (with its helpers) if it takes more than a minute.
fn dump_dom(page: &Path, fragment: &str) -> Result<String, Outcome> {
    let chromium = chromium();
    let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut command = Command::new(&chromium);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
        ])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
        ])
        .args(["--disable-sync", "--no-first-run", "--dump-dom"])
        .arg("--virtual-time-budget=5000")
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}{fragment}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Err(Outcome::Missing(format!(
                "{} cannot be started ({e}): {CHROMIUM_INSTALL}",
                chromium.display()
            )));
        }
    };
    let output = wait_at_most(child, Duration::from_secs(60))?;
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() || !dom.contains("</html>") {
        let err = String::from_utf8_lossy(&output.stderr);
        return Err(format!("chromium rendered nothing ({}):\n{err}", output.status).into());
    }
    Ok(dom)
}

/// The child's output, or a failure after `limit`, when its whole process group is killed.
fn wait_at_most(
    child: std::process::Child,
    limit: Duration,
) -> Result<std::process::Output, Outcome> {
    let group = child.id();
    let (send, receive) = std::sync::mpsc::channel();
    // Reading both pipes to the end on a thread of its own: the DOM is larger than a pipe.
    std::thread::spawn(move || send.send(child.wait_with_output()));
    match receive.recv_timeout(limit) {
        Ok(output) => output.map_err(|e| format!("chromium: {e}").into()),
        Err(_) => {
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(format!("-{group}"))
                .status();
            Err(format!("chromium did not finish within {} s", limit.as_secs()).into())
        }
    }
}
