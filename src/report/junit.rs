//! JUnit XML, written with quick-junit: one `<testsuite>` per adapter, one `<testcase>` per case.
//!
//! A case that fails the run is a `<failure>` whose message is expected vs observed and whose
//! type is the standing word (`fail`, `hang`, `adapter-error`, `stale`); its transcript goes to
//! `system-out`. An unsupported case is `<skipped>`. A deviation that does not fail the run
//! stays a passing test case, since CI readers count every `<failure>` as a failed build: a
//! warning is a property (`warning`) and a note on `system-err`; an accepted deviation is a
//! property (`accepted`, with the baseline's reason) and the explanation on `system-out`.

use super::{Reporter, RunReport, adapter_log, mismatch_line};
use crate::explain::{explain, shown_id};
use crate::record::CaseRecord;
use crate::standing::Standing;
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::fmt::Write as _;
use std::io::{self, Write};

/// The JUnit XML writer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Junit;

impl Reporter for Junit {
    fn format(&self) -> &'static str {
        "JUnit"
    }

    fn write(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        junit_report(report)
            .serialize(out)
            .map_err(|e| io::Error::other(e.to_string()))
    }
}

/// The quick-junit model of `report`: one suite named after the adapter.
pub fn junit_report(report: &RunReport) -> Report {
    let mut suite = TestSuite::new(report.adapter.name.as_str());
    suite.add_properties(suite_properties(report));
    suite.add_test_cases(report.cases.iter().map(test_case));
    // The run's wall time: its cases ran at once, so the sum of theirs says nothing a CI
    // reader wants (a 7.8 s run whose cases add up to 52 s).
    suite.set_time(report.duration);
    let mut junit = Report::new("mcp-error-layers");
    junit.set_time(report.duration);
    junit.add_test_suite(suite);
    junit
}

fn suite_properties(report: &RunReport) -> Vec<Property> {
    let adapter = &report.adapter;
    let mut properties = vec![Property::new("adapter", adapter.name.as_str())];
    if let Some(version) = &adapter.version {
        properties.push(Property::new("adapter_version", version.as_str()));
    }
    if let Some(protocol) = &report.protocol_version {
        properties.push(Property::new("protocol_version", protocol.as_str()));
    }
    properties.push(Property::new("strict", report.strict.to_string()));
    properties.push(Property::new("run_flags", report.flags()));
    properties.push(Property::new("generator", generator()));
    properties
}

/// `coarse: judged on ...`: the `judgement` property of a case judged coarsely.
fn coarse_note() -> String {
    format!("coarse: {}", crate::coarse::NOTE)
}

fn generator() -> String {
    format!("mcp-error-layers {}", env!("CARGO_PKG_VERSION"))
}

fn test_case(record: &CaseRecord) -> TestCase {
    let standing = &record.standing;
    let id = shown_id(&record.id);
    let mut case = TestCase::new(id.as_ref(), case_status(record));
    case.set_classname(classname(&id));
    case.set_time(record.duration);
    case.add_property(Property::new("grade", record.grade.as_str()));
    case.add_property(Property::new("verdict", record.verdict.as_str()));
    case.add_property(Property::new("standing", standing.as_str()));
    if record.is_coarse() {
        case.add_property(Property::new("judgement", coarse_note()));
    }
    match standing {
        Standing::Warning(_) => case.add_property(Property::new("warning", mismatch_line(record))),
        Standing::Accepted(why) => case.add_property(Property::new("accepted", why.as_str())),
        _ => &mut case,
    };
    if standing.fails_run() {
        case.set_system_out(explain(record));
    }
    if let Standing::Accepted(why) = standing {
        let note = format!("accepted by the baseline: {why}\n{}", explain(record));
        case.set_system_out(note);
    }
    let err = system_err(record);
    if !err.is_empty() {
        case.set_system_err(err);
    }
    case
}

/// The warning note of a mismatch that does not fail the run, then whatever an
/// out-of-process adapter wrote to its stderr: that is what `system-err` means to a reader.
fn system_err(record: &CaseRecord) -> String {
    let mut err = String::new();
    if let Standing::Warning(why) = &record.standing {
        let _ = write!(
            err,
            "warning ({why}; does not fail the run):\n{}",
            explain(record)
        );
    }
    for (index, call) in record.calls.iter().enumerate() {
        if let Some(log) = adapter_log(call) {
            let _ = writeln!(err, "adapter stderr, call {index}:\n{}", log.trim_end());
        }
    }
    err
}

fn case_status(record: &CaseRecord) -> TestCaseStatus {
    match &record.standing {
        Standing::Pass | Standing::Warning(_) | Standing::Accepted(_) => TestCaseStatus::success(),
        Standing::Unsupported(why) => {
            let mut skipped = TestCaseStatus::skipped();
            skipped.set_message(why.as_str());
            skipped.set_type("unsupported");
            skipped
        }
        failing => {
            let mut failure = TestCaseStatus::non_success(NonSuccessKind::Failure);
            failure.set_message(mismatch_line(record));
            failure.set_type(failing.as_str());
            failure
        }
    }
}

/// The case's folder (`sse` for `sse/final-result`), which CI tools group test cases by;
/// a case at the top of its cases folder gets `cases`.
pub fn classname(id: &str) -> &str {
    id.rsplit_once('/').map_or("cases", |(folder, _)| folder)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classname_is_the_case_folder() {
        assert_eq!(classname("sse/final-result"), "sse");
        assert_eq!(classname("mine/deep/x"), "mine/deep");
        assert_eq!(classname("top"), "cases");
    }
}
