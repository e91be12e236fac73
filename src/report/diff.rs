//! What changed between two runs: two JSON reports (one adapter at two versions, or two
//! adapters) compared case by case, for people (text), programs (JSON) and pull requests
//! (markdown). `docs/reports.md` ("Comparing two runs") documents the groups and the exit rule.
//!
//! A case in both reports lands in exactly one group, by how its standing moved on the scale
//! pass < accepted, warning (it deviates, without failing the run) < fail, adapter-error,
//! stale (it fails the run) < hang:
//! - **regressed**: its standing got worse (pass → warning, warning → fail, anything → hang),
//!   whatever its grade. [`RunDiff::fails`] says whether the regressions of the grades a
//!   [`FailOn`] names are there (the CLI's exit code 1).
//! - **fixed**: it passes now, and did not.
//! - **changed**: anything else that differs: a standing that got better without passing, one
//!   that moved to or from `unsupported` (neither better nor worse: the case did not run), the
//!   verdict, or per call the observed outcome, status, code, `tool_posts` or a request check.
//!
//! Cases only in the new report are *new*, only in the old one *removed*.

use super::json::{JsonCall, JsonCase, JsonReport};
use crate::case::Grade;
use crate::observation::AdapterReport;
use crate::verdict::Verdict;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The schema id of [`RunDiff`]'s JSON form.
pub const SCHEMA: &str = "mcp-error-layers/diff/v1";

/// Which run a report was: its adapter and version.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// The adapter's name.
    pub adapter: String,
    /// Its version, when the report names one.
    pub version: Option<String>,
}

/// One case whose standing differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseChange {
    /// The case id.
    pub id: String,
    /// Its grade in the new report.
    pub grade: Grade,
    /// The verdict before and after.
    pub verdict: (Verdict, Verdict),
    /// The standing word before and after (`pass`, `accepted`, `warning`, `fail`, ...).
    pub standing: (String, String),
    /// What differs, one item per difference (`call 0: outcome TOOL_SUCCESS → TIMEOUT`).
    pub differences: Vec<String>,
}

/// Which regressions fail a comparison (`diff --fail-on`): those of MUST cases only, of MUST
/// and SHOULD cases, or of any case (the default: a SHOULD case that stops retrying a 503 is the
/// news of a new SDK version).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// MUST cases.
    Must,
    /// MUST and SHOULD cases.
    Should,
    /// Every case, INFO included.
    #[default]
    Any,
}

impl FailOn {
    /// Whether a regression of a case of `grade` fails the comparison.
    pub fn counts(self, grade: Grade) -> bool {
        match self {
            FailOn::Must => grade == Grade::Must,
            FailOn::Should => grade != Grade::Info,
            FailOn::Any => true,
        }
    }
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunDiff {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// The old run.
    pub old: Side,
    /// The new run.
    pub new: Side,
    /// Cases in both reports.
    pub compared: usize,
    /// See the module documentation.
    pub regressed: Vec<CaseChange>,
    /// See the module documentation.
    pub fixed: Vec<CaseChange>,
    /// See the module documentation.
    pub changed: Vec<CaseChange>,
    /// Ids only in the new report.
    pub new_cases: Vec<String>,
    /// Ids only in the old report.
    pub removed_cases: Vec<String>,
}

impl RunDiff {
    /// Compares `old` with `new`, case by case (by id).
    pub fn of(old: &JsonReport, new: &JsonReport) -> Self {
        let before: BTreeMap<&str, &JsonCase> = by_id(old);
        let after: BTreeMap<&str, &JsonCase> = by_id(new);
        let mut diff = RunDiff {
            schema: SCHEMA,
            old: side(old),
            new: side(new),
            compared: 0,
            regressed: Vec::new(),
            fixed: Vec::new(),
            changed: Vec::new(),
            new_cases: ids_missing(&after, &before),
            removed_cases: ids_missing(&before, &after),
        };
        for (id, new_case) in &after {
            let Some(old_case) = before.get(id) else {
                continue;
            };
            diff.compared += 1;
            diff.place(old_case, new_case);
        }
        diff
    }

    /// Whether a regression of a grade that `fail_on` counts is there (the CLI's exit code 1).
    pub fn fails(&self, fail_on: FailOn) -> bool {
        self.regressed.iter().any(|c| fail_on.counts(c.grade))
    }

    /// The regressions by grade: MUST, SHOULD, INFO.
    fn regressed_by_grade(&self) -> [usize; 3] {
        let of = |grade| self.regressed.iter().filter(|c| c.grade == grade).count();
        [of(Grade::Must), of(Grade::Should), of(Grade::Info)]
    }

    fn place(&mut self, old: &JsonCase, new: &JsonCase) {
        // The standing is in every rendering's heading, not among the differences.
        let differences = differences(old, new);
        if differences.is_empty() && standing(old) == standing(new) {
            return;
        }
        let change = CaseChange {
            id: new.id.clone(),
            grade: new.grade,
            verdict: (old.verdict, new.verdict),
            standing: (standing(old), standing(new)),
            differences,
        };
        let group = match Movement::of(old, new) {
            Movement::Regressed => &mut self.regressed,
            Movement::Fixed => &mut self.fixed,
            Movement::Other => &mut self.changed,
        };
        group.push(change);
    }

    /// The comparison as text for a terminal.
    pub fn text(&self) -> String {
        let mut out = format!("{}\n", self.headline());
        for (title, group) in self.groups() {
            if group.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{title} ({}):", group.len());
            for change in group {
                let (was, now) = (&change.standing.0, &change.standing.1);
                let _ = writeln!(out, "  [{}] {}: {was} → {now}", change.grade, change.id);
                for difference in &change.differences {
                    let _ = writeln!(out, "      {difference}");
                }
            }
        }
        self.text_ids(&mut out);
        out
    }

    fn text_ids(&self, out: &mut String) {
        for (title, ids) in [("new", &self.new_cases), ("removed", &self.removed_cases)] {
            if !ids.is_empty() {
                let _ = writeln!(out, "\n{title} cases ({}):", ids.len());
                ids.iter().for_each(|id| {
                    let _ = writeln!(out, "  {id}");
                });
            }
        }
    }

    /// The comparison as a markdown comment for a pull request.
    pub fn markdown(&self) -> String {
        let mut out = format!("### mcp-error-layers: {}\n", self.headline());
        for (title, group) in self.groups() {
            if group.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n#### {title} ({})\n", group.len());
            out.push_str(
                "| case | grade | before | after | what changed |\n|---|---|---|---|---|\n",
            );
            for change in group {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} |",
                    change.id,
                    change.grade,
                    change.standing.0,
                    change.standing.1,
                    cell(&change.differences.join("; "))
                );
            }
        }
        for (title, ids) in [("new", &self.new_cases), ("removed", &self.removed_cases)] {
            if !ids.is_empty() {
                let list: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
                let _ = writeln!(out, "\n{title} cases: {}", list.join(", "));
            }
        }
        out
    }

    /// The comparison as pretty JSON (schema [`SCHEMA`]).
    pub fn json(&self) -> String {
        // Every field is a plain string, number, list or map: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    fn headline(&self) -> String {
        let [must, should, info] = self.regressed_by_grade();
        format!(
            "{} → {}: {} cases compared; {} regressed ({must} must, {should} should, {info} info), \
             {} fixed, {} changed, {} new, {} removed",
            self.old.label(),
            self.new.label(),
            self.compared,
            self.regressed.len(),
            self.fixed.len(),
            self.changed.len(),
            self.new_cases.len(),
            self.removed_cases.len()
        )
    }

    fn groups(&self) -> [(&'static str, &Vec<CaseChange>); 3] {
        [
            ("regressed", &self.regressed),
            ("fixed", &self.fixed),
            ("changed", &self.changed),
        ]
    }
}

impl Side {
    fn label(&self) -> String {
        super::json::label(&self.adapter, self.version.as_deref())
    }
}

/// How a case's verdict moved between the runs.
enum Movement {
    Regressed,
    Fixed,
    Other,
}

impl Movement {
    fn of(old: &JsonCase, new: &JsonCase) -> Movement {
        match (rank(old.standing_word()), rank(new.standing_word())) {
            (Some(was), Some(now)) if now > was => Movement::Regressed,
            (Some(was), Some(0)) if was > 0 => Movement::Fixed,
            _ => Movement::Other,
        }
    }
}

/// Where a standing is on the scale a regression climbs: 0 pass; 1 deviates without failing the
/// run (accepted, warning); 2 fails the run (fail, adapter-error, stale); 3 hang. `None` for
/// `unsupported` (the case did not run) and a word this version does not know.
fn rank(standing: &str) -> Option<u8> {
    match standing {
        "pass" => Some(0),
        "accepted" | "warning" => Some(1),
        "fail" | "adapter-error" | "stale" => Some(2),
        "hang" => Some(3),
        _ => None,
    }
}

fn by_id(report: &JsonReport) -> BTreeMap<&str, &JsonCase> {
    report.cases.iter().map(|c| (c.id.as_str(), c)).collect()
}

fn ids_missing(from: &BTreeMap<&str, &JsonCase>, other: &BTreeMap<&str, &JsonCase>) -> Vec<String> {
    from.keys()
        .filter(|id| !other.contains_key(*id))
        .map(|id| (*id).to_owned())
        .collect()
}

fn side(report: &JsonReport) -> Side {
    Side {
        adapter: report.adapter.name.clone(),
        version: report.adapter.version.clone(),
    }
}

fn standing(case: &JsonCase) -> String {
    case.standing_word().to_owned()
}

/// Every difference between two records of one case, but the standing.
fn differences(old: &JsonCase, new: &JsonCase) -> Vec<String> {
    let mut out = Vec::new();
    if old.verdict != new.verdict {
        out.push(format!("verdict {} → {}", old.verdict, new.verdict));
    }
    if old.calls.len() != new.calls.len() {
        out.push(format!("calls {} → {}", old.calls.len(), new.calls.len()));
    }
    for (index, (a, b)) in old.calls.iter().zip(&new.calls).enumerate() {
        out.extend(
            call_differences(a, b)
                .into_iter()
                .map(|d| format!("call {index}: {d}")),
        );
    }
    out
}

/// What differs between two records of one call.
fn call_differences(old: &JsonCall, new: &JsonCall) -> Vec<String> {
    let (a, b) = (Seen::of(old), Seen::of(new));
    let mut out = Vec::new();
    push_change(&mut out, "outcome", &a.outcome, &b.outcome);
    push_change(&mut out, "status", &a.status, &b.status);
    push_change(&mut out, "code", &a.code, &b.code);
    push_change(
        &mut out,
        "tool_posts",
        &old.tool_posts.to_string(),
        &new.tool_posts.to_string(),
    );
    // The other counted keys are in the report only as the problem a miscount makes.
    for key in COUNTED_KEYS {
        let (was, now) = (counted_problem(old, key), counted_problem(new, key));
        if was != now {
            out.push(format!(
                "{key}: {} → {}",
                was.unwrap_or("as expected"),
                now.unwrap_or("as expected")
            ));
        }
    }
    // A check that applies on one side only (another era's header, say) is a change only
    // where it fails.
    let checks = |call: &JsonCall| -> BTreeMap<String, bool> {
        call.checks
            .iter()
            .map(|c| (c.name.clone(), c.passed))
            .collect()
    };
    let (before, after) = (checks(old), checks(new));
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for name in names {
        let (was, now) = (before.get(name).copied(), after.get(name).copied());
        if was.unwrap_or(true) != now.unwrap_or(true) {
            out.push(format!(
                "check {name} {} → {}",
                check_word(was),
                check_word(now)
            ));
        }
    }
    out
}

/// The counts a case can expect besides `tool_posts` (`cases/README.md`); `min_gaps_ms` is left
/// out: a gap depends on the machine's load, not on the client.
const COUNTED_KEYS: [&str; 5] = [
    "max_tool_posts",
    "initializes",
    "resumes",
    "token_posts",
    "authorizations",
];

/// What the problem about `key` says after `key: `, when the call has one.
fn counted_problem<'a>(call: &'a JsonCall, key: &str) -> Option<&'a str> {
    call.problems
        .iter()
        .find_map(|p| p.strip_prefix(key).and_then(|rest| rest.strip_prefix(": ")))
}

fn check_word(passed: Option<bool>) -> &'static str {
    match passed {
        Some(true) => "pass",
        Some(false) => "fail",
        None => "n/a",
    }
}

fn push_change(out: &mut Vec<String>, what: &str, old: &str, new: &str) {
    if old != new {
        out.push(format!("{what} {old} → {new}"));
    }
}

/// A call's observation in words: `–` where there is none.
struct Seen {
    outcome: String,
    status: String,
    code: String,
}

impl Seen {
    fn of(call: &JsonCall) -> Seen {
        let none = || "–".to_owned();
        match &call.observed {
            Some(AdapterReport::Observed(o)) => Seen {
                outcome: o.outcome.to_string(),
                status: o.status.map_or_else(none, |s| s.to_string()),
                code: o.code.map_or_else(none, |c| c.to_string()),
            },
            Some(AdapterReport::Unsupported { .. }) => Seen {
                outcome: "unsupported".into(),
                status: none(),
                code: none(),
            },
            None => Seen {
                outcome: format!("nothing ({})", call.verdict),
                status: none(),
                code: none(),
            },
        }
    }
}

/// A markdown table cell: pipes escaped, no line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::path::Path;

    /// A case record as the JSON report holds it: one call.
    fn case(id: &str, grade: &str, verdict: &str, outcome: Option<&str>, posts: u32) -> Value {
        let observed =
            outcome.map(|o| json!({"outcome": o, "status": null, "code": null, "detail": ""}));
        json!({
            "id": id, "summary": "s", "grade": grade, "verdict": verdict,
            "status": if verdict == "pass" { "pass" } else { "fail" }, "fails_run": verdict != "pass",
            "error": null, "duration_ms": 1, "server": {"exchanges": []}, "transcript": "",
            "calls": [{
                "expected": {"outcome": "TOOL_SUCCESS"}, "observed": observed, "verdict": verdict,
                "problems": [], "checks": [{"name": "accept-header", "grade": "must", "passed": true}],
                "tool_posts": posts, "duration_ms": 1, "expected_text": "", "observed_text": ""
            }]
        })
    }

    fn report(version: &str, cases: Vec<Value>) -> JsonReport {
        let value = json!({
            "schema": crate::report::json::SCHEMA, "generator": "test",
            "adapter": {"name": "sdk", "version": version}, "protocol_version": null, "strict": false,
            "summary": {"cases": cases.len(), "passed": 0, "failed": 0, "warnings": 0, "skipped": 0,
                        "verdicts": {"pass": 0, "unsupported": 0, "fail": 0, "hang": 0, "adapter-error": 0}},
            "cases": cases,
        });
        JsonReport::parse(&value.to_string(), Path::new("t.json")).unwrap()
    }

    #[test]
    fn a_counted_key_that_starts_or_stops_missing_is_a_difference() {
        let mut opened = case("s/second-session", "must", "fail", Some("TOOL_SUCCESS"), 1);
        opened["calls"][0]["problems"] =
            json!(["initializes: expected 1, the server received 2 initialize requests"]);
        let kept = case("s/second-session", "must", "pass", Some("TOOL_SUCCESS"), 1);
        let diff = RunDiff::of(&report("1", vec![kept]), &report("2", vec![opened]));
        assert_eq!(
            diff.regressed[0].differences,
            [
                "verdict pass → fail",
                "call 0: initializes: as expected → expected 1, the server received 2 initialize requests"
            ]
        );
    }

    fn ids(group: &[CaseChange]) -> Vec<&str> {
        group.iter().map(|c| c.id.as_str()).collect()
    }

    /// `case`, standing as `standing` (a report of this version names it).
    fn standing_as(mut case: Value, standing: &str) -> Value {
        case["standing"] = json!(standing);
        case
    }

    #[test]
    fn a_standing_that_gets_worse_regresses_whatever_the_grade_and_fail_on_picks_the_grades() {
        let was = |id: &str, grade: &str, standing: &str| {
            standing_as(case(id, grade, "pass", Some("TOOL_SUCCESS"), 1), standing)
        };
        let now = |id: &str, grade: &str, verdict: &str, standing: &str| {
            standing_as(case(id, grade, verdict, Some("TIMEOUT"), 1), standing)
        };
        let old = report(
            "1",
            vec![
                was("a/should-warns-now", "should", "pass"),
                was("b/info-warns-now", "info", "pass"),
                was("c/warning-to-accepted", "should", "warning"),
                was("d/fail-to-warning", "should", "fail"),
                was("e/declined-now", "must", "pass"),
            ],
        );
        let new = report(
            "2",
            vec![
                now("a/should-warns-now", "should", "fail", "warning"),
                now("b/info-warns-now", "info", "fail", "warning"),
                now("c/warning-to-accepted", "should", "fail", "accepted"),
                now("d/fail-to-warning", "should", "fail", "warning"),
                now("e/declined-now", "must", "unsupported", "unsupported"),
            ],
        );
        let diff = RunDiff::of(&old, &new);
        assert_eq!(
            ids(&diff.regressed),
            ["a/should-warns-now", "b/info-warns-now"]
        );
        assert_eq!(
            ids(&diff.changed),
            [
                "c/warning-to-accepted",
                "d/fail-to-warning",
                "e/declined-now"
            ]
        );
        assert!(diff.fails(FailOn::Any) && diff.fails(FailOn::Should));
        assert!(!diff.fails(FailOn::Must), "no MUST case regressed");
        assert!(
            diff.text()
                .contains("2 regressed (0 must, 1 should, 1 info)"),
            "{}",
            diff.text()
        );
    }

    #[test]
    fn each_case_lands_in_one_group_by_how_its_standing_moved() {
        let old = report(
            "1",
            vec![
                case("a/must-breaks", "must", "pass", Some("TOOL_SUCCESS"), 1),
                case("b/should-breaks", "should", "pass", Some("TOOL_SUCCESS"), 1),
                case("c/hangs-now", "should", "fail", Some("TIMEOUT"), 1),
                case("d/fixed", "must", "fail", Some("TIMEOUT"), 1),
                case("e/more-posts", "must", "pass", Some("TOOL_SUCCESS"), 1),
                case("f/same", "must", "pass", Some("TOOL_SUCCESS"), 1),
                case("g/removed", "must", "pass", Some("TOOL_SUCCESS"), 1),
            ],
        );
        let new = report(
            "2",
            vec![
                case("a/must-breaks", "must", "fail", Some("TIMEOUT"), 1),
                case("b/should-breaks", "should", "fail", Some("TIMEOUT"), 1),
                case("c/hangs-now", "should", "hang", None, 0),
                case("d/fixed", "must", "pass", Some("TOOL_SUCCESS"), 1),
                case("e/more-posts", "must", "pass", Some("TOOL_SUCCESS"), 3),
                case("f/same", "must", "pass", Some("TOOL_SUCCESS"), 1),
                case("h/new", "must", "pass", Some("TOOL_SUCCESS"), 1),
            ],
        );
        let diff = RunDiff::of(&old, &new);
        let regressed = ["a/must-breaks", "b/should-breaks", "c/hangs-now"];
        assert_eq!(ids(&diff.regressed), regressed);
        assert_eq!(ids(&diff.fixed), ["d/fixed"]);
        assert_eq!(ids(&diff.changed), ["e/more-posts"]);
        assert_eq!(diff.new_cases, ["h/new"]);
        assert_eq!(diff.removed_cases, ["g/removed"]);
        assert_eq!(diff.compared, 6);
        assert!(diff.fails(FailOn::default()));
        assert_eq!(diff.changed[0].differences, ["call 0: tool_posts 1 → 3"]);
        assert_eq!(
            diff.regressed[0].differences,
            [
                "verdict pass → fail",
                "call 0: outcome TOOL_SUCCESS → TIMEOUT"
            ]
        );
        assert_eq!(
            diff.regressed[2].differences,
            [
                "verdict fail → hang",
                "call 0: outcome TIMEOUT → nothing (hang)",
                "call 0: tool_posts 1 → 0"
            ]
        );
    }

    #[test]
    fn identical_runs_have_no_changes_and_do_not_regress() {
        let one = report("1", vec![case("a/x", "must", "fail", Some("TIMEOUT"), 1)]);
        let diff = RunDiff::of(&one, &one);
        assert!(!diff.fails(FailOn::Any));
        assert!(diff.changed.is_empty() && diff.fixed.is_empty());
        assert_eq!(
            diff.text(),
            "sdk 1 → sdk 1: 1 cases compared; 0 regressed (0 must, 0 should, 0 info), 0 fixed, \
             0 changed, 0 new, 0 removed\n"
        );
    }

    #[test]
    fn a_check_that_starts_failing_is_a_change() {
        let old = report(
            "1",
            vec![case("a/x", "must", "pass", Some("TOOL_SUCCESS"), 1)],
        );
        let mut failing = case("a/x", "must", "pass", Some("TOOL_SUCCESS"), 1);
        failing["calls"][0]["checks"][0]["passed"] = json!(false);
        let diff = RunDiff::of(&old, &report("2", vec![failing]));
        assert_eq!(
            diff.changed[0].differences,
            ["call 0: check accept-header pass → fail"]
        );
    }

    #[test]
    fn a_check_on_one_side_only_is_a_change_only_where_it_fails() {
        let mut without = case("a/x", "must", "pass", Some("TOOL_SUCCESS"), 1);
        without["calls"][0]["checks"] = json!([]);
        let with = case("a/x", "must", "pass", Some("TOOL_SUCCESS"), 1);
        let quiet = RunDiff::of(
            &report("1", vec![without.clone()]),
            &report("2", vec![with]),
        );
        assert!(quiet.changed.is_empty(), "{:?}", quiet.changed);
        let mut failing = case("a/x", "must", "pass", Some("TOOL_SUCCESS"), 1);
        failing["calls"][0]["checks"][0]["passed"] = json!(false);
        let loud = RunDiff::of(&report("1", vec![without]), &report("2", vec![failing]));
        assert_eq!(
            loud.changed[0].differences,
            ["call 0: check accept-header n/a → fail"]
        );
    }

    #[test]
    fn a_standing_that_moves_alone_is_listed() {
        let failed = case("a/x", "must", "fail", Some("TIMEOUT"), 1);
        let accepted = standing_as(failed.clone(), "accepted");
        let diff = RunDiff::of(&report("1", vec![failed]), &report("2", vec![accepted]));
        assert_eq!(
            diff.changed[0].standing,
            ("fail".to_owned(), "accepted".to_owned())
        );
        assert!(diff.changed[0].differences.is_empty());
    }

    #[test]
    fn the_three_renderings_say_the_same() {
        let old = report(
            "1",
            vec![case("a/x|y", "must", "pass", Some("TOOL_SUCCESS"), 1)],
        );
        let new = report("2", vec![case("a/x|y", "must", "fail", Some("TIMEOUT"), 1)]);
        let diff = RunDiff::of(&old, &new);
        let text = diff.text();
        assert!(
            text.contains(
                "regressed (1):\n  [must] a/x|y: pass → fail\n      verdict pass → fail\n"
            ),
            "{text}"
        );
        let markdown = diff.markdown();
        assert!(
            markdown.contains("| case | grade | before | after | what changed |"),
            "{markdown}"
        );
        assert!(markdown.contains("| `a/x|y` | must | pass | fail | verdict pass → fail; call 0: outcome TOOL_SUCCESS → TIMEOUT |"), "{markdown}");
        let json: Value = serde_json::from_str(&diff.json()).unwrap();
        assert_eq!(json["schema"], SCHEMA);
        assert_eq!(json["regressed"][0]["id"], "a/x|y");
        assert_eq!(json["regressed"][0]["verdict"], json!(["pass", "fail"]));
        assert_eq!(json["old"]["version"], "1");
    }
}
