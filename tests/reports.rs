//! The report writers on real runs: snapshots of each format, stable across runs, and counts
//! that agree between formats and with each case's standing (what its libtest result is).

#[path = "reports/fixture.rs"]
mod fixture;

use mcp_error_layers::engine::Rules;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::engine::{Standing, Status};
use mcp_error_layers::report::Counts;
use mcp_error_layers::report::json::{JsonReport, ReportReadError, SCHEMA};
use mcp_error_layers::report::{
    Format, ReportPaths, Reporter, RunReport, html, json::Json, junit::Junit, tap::Tap, write_all,
};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

/// The fixture's two runs, made once for the whole binary.
struct Runs {
    reference: RunReport,
    careless: RunReport,
}

fn runs() -> &'static Runs {
    static RUNS: OnceLock<Runs> = OnceLock::new();
    RUNS.get_or_init(|| Runs {
        reference: fixture::reference_run(),
        careless: fixture::careless_run(false),
    })
}

fn strict(report: &RunReport) -> RunReport {
    report.under(&Rules::strict(true))
}

fn text(reporter: &dyn Reporter, report: &RunReport) -> String {
    reporter.render(report).expect("a report renders")
}

/// `page` with every cell's contents after it, as a reader sees them once each cell is opened
/// (the page carries them packed).
fn opened(page: &str) -> String {
    let cells = html::cells(page).expect("the page holds packed cells");
    format!("{page}{}", cells.concat())
}

fn matrix(reports: &[&RunReport]) -> String {
    let json: Vec<JsonReport> = reports.iter().map(|r| JsonReport::from_run(r)).collect();
    html::render(&json)
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        snapshot_path => "../snapshots/reports",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn the_careless_run_has_every_verdict_and_every_standing() {
    let careless = &runs().careless;
    let verdicts: BTreeSet<Verdict> = careless.cases.iter().map(|c| c.verdict).collect();
    assert_eq!(verdicts.len(), 5, "{verdicts:?}");
    let standings: BTreeSet<&str> = careless
        .cases
        .iter()
        .chain(&fixture::accepting(careless).cases)
        .map(|c| c.standing.as_str())
        .collect();
    assert_eq!(standings, Standing::words().collect::<BTreeSet<_>>());
    let reference = &runs().reference;
    let failing: Vec<&str> = reference
        .cases
        .iter()
        .filter(|c| c.standing.fails_run())
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(failing, ["fixture/broken"], "the reference passes the rest");
}

#[test]
fn snapshots_of_each_format() {
    let careless = fixture::stable(runs().careless.clone());
    let reference = fixture::stable(runs().reference.clone());
    snapshot("careless.tap", &text(&Tap::default(), &careless));
    snapshot(
        "careless-strict.tap",
        &text(&Tap::default(), &strict(&careless)),
    );
    snapshot("reference.tap", &text(&Tap::default(), &reference));
    snapshot("careless.junit.xml", &text(&Junit, &careless));
    let accepting = fixture::accepting(&careless);
    snapshot("careless-baseline.tap", &text(&Tap::default(), &accepting));
    snapshot("careless-baseline.junit.xml", &text(&Junit, &accepting));
    snapshot("careless.json", &text(&Json, &careless));
    snapshot("matrix.html", &matrix(&[&reference, &careless]));
}

#[test]
fn stable_reports_are_the_same_on_a_second_run() {
    let first = [&runs().reference, &runs().careless].map(|r| fixture::stable(r.clone()));
    let second = [fixture::reference_run(), fixture::careless_run(false)].map(fixture::stable);
    let formats: [&dyn Reporter; 4] = [&Tap::default(), &Junit, &Json, &html::Html];
    for (a, b) in first.iter().zip(&second) {
        for reporter in formats {
            let (a, b) = (text(reporter, a), text(reporter, b));
            assert!(
                a == b,
                "{} differs between runs:\n{}",
                reporter.format(),
                diff(&a, &b)
            );
        }
    }
}

fn diff(a: &str, b: &str) -> String {
    a.lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .take(5)
        .map(|(x, y)| format!("- {x}\n+ {y}\n"))
        .collect()
}

/// What each format says about the run, counted from its own text.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    cases: usize,
    failed: usize,
    /// Deviations that do not fail the run: warnings and accepted ones.
    deviations: usize,
    skipped: usize,
}

fn seen_in_tap(tap: &str) -> Seen {
    let points: Vec<&str> = tap
        .lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("not ok "))
        .collect();
    let plan = tap.lines().find_map(|l| l.strip_prefix("1..")).unwrap();
    assert_eq!(plan.parse::<usize>().unwrap(), points.len(), "plan");
    let count = |f: &dyn Fn(&&&str) -> bool| points.iter().filter(f).count();
    Seen {
        cases: points.len(),
        failed: count(&|l| l.starts_with("not ok") && !l.contains(" # TODO ")),
        deviations: count(&|l| l.starts_with("not ok") && l.contains(" # TODO ")),
        skipped: count(&|l| l.starts_with("ok") && l.contains(" # SKIP ")),
    }
}

fn seen_in_junit(xml: &str) -> Seen {
    Seen {
        cases: xml.matches("<testcase ").count(),
        failed: xml.matches("<failure ").count(),
        deviations: xml.matches("<property name=\"warning\"").count()
            + xml.matches("<property name=\"accepted\"").count(),
        skipped: xml.matches("<skipped ").count(),
    }
}

fn seen_in_json(json: &str) -> Seen {
    let report = JsonReport::parse(json, Path::new("memory")).unwrap();
    let by = |status: Status| report.cases.iter().filter(|c| c.status == status).count();
    let summary = &report.summary;
    let seen = Seen {
        cases: summary.cases,
        failed: summary.failed,
        deviations: summary.warnings + summary.accepted,
        skipped: summary.skipped,
    };
    assert_eq!(
        seen.failed,
        report.cases.iter().filter(|c| c.fails_run).count()
    );
    assert_eq!(
        (seen.failed, seen.deviations),
        (by(Status::Fail), by(Status::Warn))
    );
    assert_eq!(seen.skipped, by(Status::Skip));
    seen
}

fn seen_in_html(page: &str) -> Seen {
    Seen {
        cases: page.matches(" data-verdict=").count(),
        failed: page.matches("data-status=\"fail\"").count(),
        deviations: page.matches("data-status=\"warn\"").count(),
        skipped: page.matches("data-status=\"skip\"").count(),
    }
}

#[test]
fn counts_agree_between_formats_and_with_the_standings() {
    let runs = runs();
    let accepting = fixture::accepting(&runs.careless);
    for report in [
        &runs.reference,
        &runs.careless,
        &strict(&runs.careless),
        &accepting,
    ] {
        let counts = Counts::of(&report.cases);
        let want = Seen {
            cases: report.cases.len(),
            failed: report
                .cases
                .iter()
                .filter(|c| c.standing.fails_run())
                .count(),
            deviations: counts.warnings + counts.accepted,
            skipped: report
                .cases
                .iter()
                .filter(|c| c.verdict == Verdict::Unsupported)
                .count(),
        };
        assert_eq!(want.failed, counts.failed);
        assert_eq!(seen_in_tap(&text(&Tap::default(), report)), want, "TAP");
        assert_eq!(seen_in_junit(&text(&Junit, report)), want, "JUnit");
        assert_eq!(seen_in_json(&text(&Json, report)), want, "JSON");
        assert_eq!(seen_in_html(&text(&html::Html, report)), want, "HTML");
    }
    // Strict mode turns the SHOULD mismatch into a failure; the INFO one stays a warning.
    let (loose, tight) = (
        Counts::of(&runs.careless.cases),
        Counts::of(&strict(&runs.careless).cases),
    );
    assert_eq!(
        (tight.failed, tight.warnings),
        (loose.failed + 1, loose.warnings - 1)
    );
}

#[test]
fn tap_points_carry_skip_and_todo_directives_and_yaml_for_every_miss() {
    let tap = text(&Tap::default(), &runs().careless);
    assert!(tap.starts_with("TAP version 14\n"), "{tap}");
    assert!(tap.contains("ok 3 - fixture/declined # SKIP this client has no SSE \\# support\n"));
    assert!(tap.contains(
        "not ok 4 - fixture/retry-then-success # TODO info-grade fail: never fails the run\n"
    ));
    assert!(
        tap.contains("  - \"check accept-header (must): request 1 (tools/call): Accept is \\\"application/json\\\""),
        "{tap}"
    );
    assert!(
        tap.contains(
            "not ok 7 - jsonrpc/invalid-params\n  ---\n  message: \"expected JSONRPC_ERROR"
        )
    );
    let not_ok = tap.lines().filter(|l| l.starts_with("not ok")).count();
    assert_eq!(tap.matches("\n  ---\n").count(), not_ok);
    assert_eq!(tap.matches("\n  ...\n").count(), not_ok);
}

#[test]
fn the_json_report_reads_back_as_written() {
    let written = text(&Json, &runs().careless);
    let read = JsonReport::parse(&written, Path::new("a.json")).unwrap();
    assert_eq!(read, JsonReport::from_run(&runs().careless));
    assert_eq!(read.schema, SCHEMA);
    // `report --html` from the JSON file draws the same page the run drew.
    assert_eq!(
        html::render(std::slice::from_ref(&read)),
        text(&html::Html, &runs().careless)
    );
    let first_keys: Vec<&str> = written.lines().skip(1).take(4).map(str::trim).collect();
    assert_eq!(
        first_keys,
        [
            "\"schema\": \"mcp-error-layers/report/v1\",",
            &format!(
                "\"generator\": \"mcp-error-layers {}\",",
                env!("CARGO_PKG_VERSION")
            ),
            "\"adapter\": {",
            "\"name\": \"careless\","
        ]
    );
}

#[test]
fn a_report_of_another_schema_or_shape_is_refused_with_its_path() {
    let other = r#"{"schema": "mcp-error-layers/report/v2", "cases": []}"#;
    let err = JsonReport::parse(other, Path::new("old/b.json")).unwrap_err();
    assert!(matches!(err, ReportReadError::Schema { .. }));
    assert_eq!(
        err.to_string(),
        "report old/b.json has schema mcp-error-layers/report/v2; this build reads mcp-error-layers/report/v1"
    );
    let broken = format!(r#"{{"schema": "{SCHEMA}", "cases": 3}}"#);
    let err = JsonReport::parse(&broken, Path::new("c.json")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("report c.json is not a mcp-error-layers/report/v1 report: "),
        "{err}"
    );
    let err = JsonReport::read(Path::new("/nonexistent/d.json")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot read report /nonexistent/d.json: "),
        "{err}"
    );
}

#[test]
fn write_all_creates_folders_and_writes_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let paths = ReportPaths::all_in(&dir.path().join("nested/reports"));
    write_all(&runs().careless, &paths).unwrap();
    let tap = std::fs::read_to_string(paths.get(Format::Tap).unwrap()).unwrap();
    assert_eq!(tap, text(&Tap::default(), &runs().careless));
    for format in [Format::Junit, Format::Json, Format::Html] {
        let path = paths.get(format).unwrap();
        assert!(std::fs::metadata(path).unwrap().len() > 100);
    }
}

#[test]
fn a_report_that_cannot_be_written_names_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "not a folder").unwrap();
    let paths = ReportPaths::none().with(Format::Json, blocker.join("x.json"));
    let err = write_all(&runs().careless, &paths).unwrap_err();
    assert_eq!(err.path, blocker.join("x.json"));
    assert!(err.to_string().starts_with(&format!(
        "cannot write report {}: ",
        blocker.join("x.json").display()
    )));
}

#[test]
fn the_page_fetches_nothing_and_escapes_what_it_shows() {
    let page = matrix(&[&runs().reference, &runs().careless]);
    for forbidden in [
        " src=",
        "url(",
        "@import",
        "<link",
        "<b>",
        "fetch(",
        "XMLHttpRequest",
    ] {
        assert!(!page.contains(forbidden), "{forbidden}");
    }
    // One script runs, the page's own, by its digest; the cells' data blocks are not scripts
    // a browser runs (`application/gzip`).
    assert_eq!(page.matches("<script>").count(), 1);
    assert!(page.contains("script-src 'sha256-"));
    let blocks = page.matches("<script type=\"application/gzip\"").count();
    assert_eq!(page.matches("<script").count(), 1 + blocks);
    // Links only jump within the page.
    assert_eq!(
        page.matches(" href=").count(),
        page.matches(" href=\"#case-").count()
    );
    assert!(page.contains("503 &amp; then &lt;b&gt;success&lt;/b&gt;: an &quot;info&quot; case"));
    assert!(page.contains("default-src 'none'"));
}

#[test]
fn the_matrix_marks_a_case_missing_from_one_report() {
    let reference = JsonReport::from_run(&runs().reference);
    let mut careless = JsonReport::from_run(&runs().careless);
    careless.cases.retain(|c| c.id != "tool/success");
    let page = html::render(&[reference, careless]);
    assert_eq!(page.matches("data-verdict=\"none\"").count(), 1);
    assert_eq!(
        page.matches("\" data-case=").count(),
        runs().careless.cases.len()
    );
}

/// What an out-of-process adapter wrote to stderr reaches every format, escaped for each.
#[test]
fn an_adapter_log_shows_in_every_format() {
    const ID: &str = "jsonrpc/invalid-params";
    const LOG: &str = "sdk: got <200>\n\n  error -32602 & more\n";
    let mut report = runs().careless.clone();
    let case = report.cases.iter_mut().find(|c| c.id == ID).unwrap();
    case.calls[0].adapter_log = Some(LOG.into());
    let tap = text(&Tap::default(), &report);
    let block =
        "      adapter_log: |-\n        sdk: got <200>\n        \n          error -32602 & more\n";
    assert!(tap.contains(block), "{tap}");
    let junit = text(&Junit, &report);
    let err = "<system-err>adapter stderr, call 0:\nsdk: got &lt;200&gt;\n\n  error -32602 &amp; more\n</system-err>";
    assert!(junit.contains(err), "{junit}");
    let json = JsonReport::from_run(&report);
    let call = &json.cases.iter().find(|c| c.id == ID).unwrap().calls[0];
    assert_eq!(call.adapter_log.as_deref(), Some(LOG));
    let page = opened(&html::render(&[json]));
    let pre =
        "<h4>adapter stderr</h4><pre>sdk: got &lt;200&gt;\n\n  error -32602 &amp; more\n</pre>";
    assert!(page.contains(pre));
}

/// A closed cell says what the adapter observed and what differs, without opening it.
#[test]
fn the_matrix_cells_show_the_observed_outcome_and_what_differs() {
    let json = JsonReport::from_run(&runs().careless);
    let page = html::render(std::slice::from_ref(&json));
    let case = json
        .cases
        .iter()
        .find(|c| c.id == "transport/http-429-retry-after")
        .unwrap();
    let cell_start = page
        .find("data-case=\"transport/http-429-retry-after\"")
        .unwrap();
    let cell = &page[cell_start..page[cell_start..].find("</tr>").unwrap() + cell_start];
    let observed = match &case.calls[0].observed {
        Some(mcp_error_layers::AdapterReport::Observed(o)) => o.outcome.to_string(),
        other => panic!("the careless client observes something here: {other:?}"),
    };
    assert!(
        cell.contains(&format!("<small>{observed} 429</small>")),
        "{cell}"
    );
}

/// The summary counts each standing, and the deviations list links to rows that exist.
#[test]
fn the_matrix_summary_counts_standings_and_its_links_resolve() {
    let json = JsonReport::from_run(&runs().careless);
    let page = html::render(std::slice::from_ref(&json));
    let failing = json.cases.iter().filter(|c| c.fails_run).count();
    assert!(failing > 0);
    assert!(
        page.contains(&format!("<td class=\"n-fail\">{failing}</td>")),
        "{page}"
    );
    assert!(
        page.contains(&format!(": {failing} fail the run,")),
        "{page}"
    );
    let links: Vec<&str> = page
        .match_indices("href=\"#")
        .map(|(at, _)| {
            let rest = &page[at + 7..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect();
    assert_eq!(
        links.len(),
        failing
            + json
                .cases
                .iter()
                .filter(|c| !c.fails_run && c.standing_word() == "warning")
                .count()
    );
    for link in links {
        assert!(
            page.contains(&format!("<tr id=\"{link}\"")),
            "no row for #{link}"
        );
    }
}

/// A hang or an adapter error is counted as one wherever a reader looks, also when the case's
/// grade makes it a warning: the summary line (the CLI's, TAP's, libtest's), the JSON summary
/// and the HTML page's summary row.
#[test]
fn every_summary_counts_hangs_and_adapter_errors_by_verdict_whatever_the_standing() {
    let mut report = runs().careless.clone();
    for verdict in [Verdict::Hang, Verdict::AdapterError] {
        let case = report
            .cases
            .iter_mut()
            .find(|c| c.verdict == verdict)
            .unwrap();
        case.grade = mcp_error_layers::case::Grade::Should;
    }
    let report = report.under(&Rules::strict(false));
    let softened = report
        .cases
        .iter()
        .filter(|c| matches!(c.verdict, Verdict::Hang | Verdict::AdapterError))
        .filter(|c| matches!(c.standing, Standing::Warning(_)))
        .count();
    assert_eq!(
        softened, 2,
        "a SHOULD hang and adapter error stand as warnings"
    );
    let counts = Counts::of(&report.cases);
    let (hangs, errors) = (counts.hangs, counts.adapter_errors);
    assert!(hangs >= 1 && errors >= 1, "{counts:?}");
    assert!(
        counts
            .to_string()
            .ends_with(&format!("; hangs {hangs}, adapter errors {errors}")),
        "{counts}"
    );
    let json = JsonReport::from_run(&report);
    assert_eq!(
        (
            json.summary.verdicts.hang,
            json.summary.verdicts.adapter_error
        ),
        (hangs, errors)
    );
    let page = html::render(std::slice::from_ref(&json));
    let row =
        format!("<td class=\"n-hang\">{hangs}</td><td class=\"n-adapter-error\">{errors}</td>");
    assert!(page.contains(&row), "{page}");
    let tap = Tap::default().render(&report).unwrap();
    assert!(tap.trim_end().ends_with(&format!("# {counts}")), "{tap}");
}

/// The layer fidelity is computed once, kept in the JSON summary, and shown by the HTML page
/// in its column head and its summary table.
#[test]
fn the_layer_fidelity_of_the_json_summary_is_what_the_page_shows() {
    let json = JsonReport::from_run(&runs().careless);
    let fidelity = json
        .summary
        .layer_fidelity
        .expect("written by this version");
    assert!(
        fidelity.cases > 0 && fidelity.told_apart < fidelity.cases,
        "{fidelity:?}"
    );
    let asked = json
        .cases
        .iter()
        .filter(|c| !c.calls.is_empty() && c.standing_word() != "unsupported")
        .count();
    assert_eq!(
        fidelity.cases, asked,
        "declined cases and cases that did not run are not counted"
    );
    let page = html::render(std::slice::from_ref(&json));
    assert!(
        page.contains(&format!(
            "<small class=\"fidelity\">layer fidelity {fidelity}</small>"
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!("<td class=\"fidelity\">{fidelity}</td>")),
        "{page}"
    );
}

/// A runner note in an adapter's log is shown as the runner's, apart from the adapter's stderr.
#[test]
fn runner_notes_are_not_shown_as_adapter_stderr() {
    const ID: &str = "jsonrpc/invalid-params";
    let mut report = runs().careless.clone();
    let case = report.cases.iter_mut().find(|c| c.id == ID).unwrap();
    case.calls[0].adapter_log =
        Some("sdk line\n[mcp-error-layers] persistent mode was not announced\n".into());
    let page = opened(&html::render(&[JsonReport::from_run(&report)]));
    assert!(
        page.contains("<h4>adapter stderr</h4><pre>sdk line\n</pre>"),
        "{page}"
    );
    assert!(
        page.contains("<h4>runner notes</h4><pre>persistent mode was not announced\n</pre>"),
        "{page}"
    );
}
