//! Sample outputs and names in the docs come from the program:
//!
//! - the careless fixture client's summary in `src/lib.rs` ("Reports") is the line its real run
//!   prints, which `tests/fixtures_run.rs` keeps in
//!   `tests/fixtures/careless-client/expected-output.txt` (when a case is added, the fixture is
//!   re-blessed and this test names the doc line to update);
//! - `docs/reports.md`'s JSON sample is the head of the reference client's JSON report;
//! - every table of request checks (`docs/adapters.md`, the crate docs, `cases/README.md`) names
//!   each check the program judges, with the grade it judges it at, and no other.
//!
//! (`tests/client_crate.rs` does the same for the crate tutorial's sample run.)

use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::builtin;
use mcp_error_layers::engine::CHECK_NAMES as NAMES;
use mcp_error_layers::engine::Run;
use mcp_error_layers::report::json::Json;
use mcp_error_layers::report::{AdapterInfo, Reporter, RunReport};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Cases at once in the sample run: fixed, since the sample shows it (`run`'s default is 32 per
/// core).
const JOBS: usize = 64;

/// The reference client over every built-in case, as `mcp-error-layers run` does it.
fn reference_run() -> &'static RunReport {
    static RUN: OnceLock<RunReport> = OnceLock::new();
    RUN.get_or_init(|| {
        let client = ReferenceAdapter::new();
        let mut report = Run::new(&client)
            .cases(builtin())
            .jobs(JOBS)
            .stdio_server(env!("CARGO_BIN_EXE_mcp-error-layers-stdio"))
            .execute(&());
        report.adapter = AdapterInfo {
            name: "reference".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        };
        // The samples print no time.
        report.duration = std::time::Duration::ZERO;
        report
    })
}

fn lines_starting(text: &str, prefix: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start_matches("//! ").strip_prefix(prefix))
        .map(|rest| format!("{prefix}{rest}"))
        .collect()
}

#[test]
fn the_crate_docs_show_the_careless_clients_real_summary() {
    let docs = std::fs::read_to_string("src/lib.rs").unwrap();
    let run =
        std::fs::read_to_string("tests/fixtures/careless-client/expected-output.txt").unwrap();
    for prefix in [
        "mcp-error-layers: careless-client: ",
        "mcp-error-layers: accepted by the baseline: ",
    ] {
        let printed = lines_starting(&run, prefix);
        let shown = lines_starting(&docs, prefix);
        assert!(
            !printed.is_empty(),
            "the fixture's run prints no `{prefix}` line"
        );
        assert_eq!(
            shown, printed,
            "src/lib.rs shows {shown:?}; the careless client's run prints {printed:?}"
        );
    }
}

/// The lines of the first fenced block of `language` after `marker` in `text`.
fn block_after<'a>(text: &'a str, marker: &str, language: &str) -> Vec<&'a str> {
    let start = text.find(marker).unwrap_or_else(|| panic!("no `{marker}`"));
    let fence = format!("```{language}\n");
    let open = start + text[start..].find(&fence).expect("a block follows") + fence.len();
    let close = open + text[open..].find("```").expect("the block closes");
    text[open..close].lines().collect()
}

#[test]
fn the_json_sample_in_docs_reports_is_the_head_of_a_real_report() {
    let docs = std::fs::read_to_string("docs/reports.md").unwrap();
    let sample = block_after(&docs, "## JSON, schema v1", "json");
    let written = Json.render(reference_run()).unwrap();
    // The sample stops at the case list, which it elides.
    let head: Vec<&str> = written
        .lines()
        .take_while(|l| !l.starts_with("  \"cases\": ["))
        .collect();
    assert!(
        sample.len() > head.len() && sample[..head.len()] == head[..],
        "docs/reports.md's JSON sample should begin with the report's head, which is:\n{}",
        head.join("\n")
    );
}

/// `(check, grade)` in each row of every table whose header has a `check` and a `grade` column;
/// a row whose check cell holds no `` `name` `` (a "—") names none.
fn check_rows(text: &str) -> Vec<(String, String)> {
    let cells = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner.split('|').map(|c| c.trim().to_owned()).collect()
    };
    let mut rows = Vec::new();
    let mut columns: Option<(usize, usize)> = None;
    for line in text.lines().map(|l| l.trim_start_matches("//!").trim()) {
        if !line.starts_with('|') {
            columns = None;
            continue;
        }
        let row = cells(line);
        let header = || {
            let at = |name: &str| row.iter().position(|c| c == name);
            Some((at("check")?, at("grade")?))
        };
        match columns {
            None => columns = header(),
            Some((check, grade)) => {
                let name = row
                    .get(check)
                    .and_then(|c| c.strip_prefix('`')?.strip_suffix('`'));
                if let (Some(name), Some(grade)) = (name, row.get(grade)) {
                    rows.push((name.to_owned(), grade.clone()));
                }
            }
        }
    }
    rows
}

#[test]
fn every_request_check_table_names_the_real_checks_with_their_grades() {
    let mut judged = BTreeMap::new();
    for call in reference_run().cases.iter().flat_map(|c| &c.calls) {
        for check in &call.checks {
            judged.insert(check.name.to_owned(), check.grade.as_str().to_owned());
        }
    }
    // The model-side checks are judged for agent rows only (docs/adapters.md, "What the model
    // was told"), where the docs list them.
    // So are the bridge checks for bridge rows (docs/bridges.md, "Checks").
    let model_side = mcp_error_layers::model::told::CHECKS;
    let hop = mcp_error_layers::hop::CHECKS;
    let never: Vec<&&str> = NAMES
        .iter()
        .filter(|n| !judged.contains_key(**n) && !model_side.contains(*n) && !hop.contains(*n))
        .collect();
    assert!(
        never.is_empty(),
        "no built-in case makes the reference run judge {never:?}: its grade cannot be read"
    );
    for doc in ["docs/adapters.md", "src/lib.rs", "cases/README.md"] {
        let text = std::fs::read_to_string(doc).unwrap();
        let rows = check_rows(&text);
        let mut shown = BTreeMap::new();
        for (name, grade) in &rows {
            let real = judged.get(name);
            assert!(
                real.is_some(),
                "{doc} names the check `{name}`, which the program does not have; its checks \
                 are {NAMES:?}"
            );
            assert_eq!(
                real,
                Some(grade),
                "{doc} grades the check `{name}` {grade}; the program judges it {}",
                real.unwrap()
            );
            shown.insert(name.clone(), grade.clone());
        }
        let missing: Vec<&String> = judged.keys().filter(|n| !shown.contains_key(*n)).collect();
        assert!(
            missing.is_empty(),
            "{doc} has no table row for the checks {missing:?}"
        );
    }
}

#[test]
fn the_bridge_docs_show_the_faithful_hop_table_and_the_bridge_checks() {
    let text = std::fs::read_to_string("docs/bridges.md").unwrap();
    let table = mcp_error_layers::hop::table_markdown();
    assert!(
        text.contains(&table),
        "docs/bridges.md must show the faithful-hop table as the program has it:\n{table}"
    );
    let shown: BTreeMap<String, String> = check_rows(&text).into_iter().collect();
    let real: BTreeMap<String, String> = mcp_error_layers::hop::CHECKS
        .iter()
        .zip(mcp_error_layers::hop::GRADES)
        .map(|(name, grade)| ((*name).to_owned(), grade.as_str().to_owned()))
        .collect();
    assert_eq!(
        shown, real,
        "docs/bridges.md's check table against the program's"
    );
}

/// The README's matrix section (its rows and the generated summary) reads on a laptop screen
/// and in GitHub's renderer without a scroll bar: no line is longer than 120 characters.
#[test]
fn the_readme_matrix_section_fits_in_120_columns() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let heading = "## How real SDKs handle the cases";
    let start = readme
        .find(heading)
        .expect("the README has its matrix section");
    let rest = &readme[start + heading.len()..];
    let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    for (at, line) in section.lines().enumerate() {
        let width = line.chars().count();
        assert!(
            width <= 120,
            "README.md, line {} of the matrix section, is {width} characters: {line}",
            at + 1
        );
    }
}
