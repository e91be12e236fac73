//! Where a case leaves the run: one [`Standing`] per case, decided once by [`Rules`] from the
//! case's verdicts, its grade, the run's strictness and the baseline. The libtest result, the
//! live line, every report, the summary and the exit code read it; none decides again.

use crate::baseline::Baseline;
use crate::case::Grade;
use crate::observation::AdapterReport;
use crate::record::CaseRecord;
use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Where a case leaves the run. Its word (`pass`, `adapter-error`, ...) is its variant's name
/// in kebab case, for serde and for [`StandingKind`] alike: the one home of the standing words.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, strum::EnumDiscriminants)]
#[serde(rename_all = "kebab-case", tag = "standing", content = "reason")]
#[strum_discriminants(
    name(StandingKind),
    doc = "A [`Standing`] without its reason: what the reports and the summary count by.",
    derive(strum::IntoStaticStr, strum::VariantArray, Hash),
    strum(serialize_all = "kebab-case")
)]
pub enum Standing {
    /// Every call met its expectation and every request check passed.
    Pass,
    /// A deviation the baseline accepts, with the baseline's reason: it does not fail the run.
    Accepted(String),
    /// A mismatch whose grade does not fail this run (SHOULD outside strict mode, INFO), with
    /// why: it does not fail the run.
    Warning(String),
    /// A mismatch that fails the run (or a case that could not run at all).
    Fail,
    /// A call that gave no observation within its deadline; fails the run.
    Hang,
    /// An adapter that crashed or answered with something that is no observation; fails the run.
    AdapterError,
    /// A case the baseline accepts although it passes now, with the old reason: fails the run
    /// until the entry is removed.
    Stale(String),
    /// The adapter declined the case, with its reason: neither a pass nor a failure.
    Unsupported(String),
}

impl Standing {
    /// Every standing's word, in report order.
    pub fn words() -> impl Iterator<Item = &'static str> {
        <StandingKind as strum::VariantArray>::VARIANTS
            .iter()
            .map(|kind| kind.as_str())
    }

    /// The word reports use: `pass`, `accepted`, `warning`, `fail`, `hang`, `adapter-error`,
    /// `stale`, `unsupported`.
    pub fn as_str(&self) -> &'static str {
        StandingKind::from(self).as_str()
    }

    /// Whether the case fails the run (its test fails, the exit code is non-zero).
    pub fn fails_run(&self) -> bool {
        StandingKind::from(self).fails_run()
    }

    /// The reason that comes with the standing, if it has one.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Standing::Accepted(why)
            | Standing::Warning(why)
            | Standing::Stale(why)
            | Standing::Unsupported(why) => Some(why),
            _ => None,
        }
    }

    /// The coarse status of report schema v1: `pass`, `fail`, `warn` (a warning or an accepted
    /// deviation: not failing) or `skip`.
    pub fn status(&self) -> Status {
        match self {
            Standing::Pass => Status::Pass,
            Standing::Accepted(_) | Standing::Warning(_) => Status::Warn,
            Standing::Unsupported(_) => Status::Skip,
            _ => Status::Fail,
        }
    }
}

impl fmt::Display for Standing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl StandingKind {
    /// The standing's word.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether a case that stands so fails the run.
    pub fn fails_run(self) -> bool {
        matches!(
            self,
            StandingKind::Fail
                | StandingKind::Hang
                | StandingKind::AdapterError
                | StandingKind::Stale
        )
    }
}

/// The coarse standing the JSON report's `status` key has carried since schema v1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Passed.
    Pass,
    /// Fails the run.
    Fail,
    /// Deviates without failing the run: a warning or an accepted deviation.
    Warn,
    /// Unsupported.
    Skip,
}

impl Status {
    /// `pass`, `fail`, `warn`, `skip`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Warn => "warn",
            Status::Skip => "skip",
        }
    }
}

/// What decides a standing besides the record: strictness and the baseline. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    /// SHOULD-grade mismatches fail the run too.
    pub strict: bool,
    /// The accepted deviations (empty: none).
    pub baseline: Arc<Baseline>,
}

impl Rules {
    /// Rules without a baseline.
    pub fn strict(strict: bool) -> Self {
        Rules {
            strict,
            baseline: Arc::default(),
        }
    }

    /// Rules with `baseline`.
    pub fn with_baseline(self, baseline: Baseline) -> Self {
        Rules {
            baseline: Arc::new(baseline),
            ..self
        }
    }

    /// Decides `record`'s standing again under these rules and stores it.
    pub fn apply(&self, record: &mut CaseRecord) {
        record.standing = self.standing(record);
    }

    /// Where `record` leaves the run under these rules.
    pub fn standing(&self, record: &CaseRecord) -> Standing {
        // A case that did not load or start says nothing about the client: the baseline
        // cannot accept it.
        if record.error.is_some() {
            return Standing::Fail;
        }
        let listed = self.baseline.reason(&record.id).map(str::to_owned);
        match (record.verdict, listed) {
            (Verdict::Unsupported, _) => Standing::Unsupported(unsupported_reason(record)),
            (Verdict::Pass, Some(reason)) => Standing::Stale(reason),
            (Verdict::Pass, None) => Standing::Pass,
            (_, Some(reason)) => Standing::Accepted(reason),
            (verdict, None) => self.unlisted_deviation(record, verdict),
        }
    }

    /// A deviation the baseline does not list by id: failing, accepted by `[checks]`, or a
    /// warning, by the grades of what went wrong.
    fn unlisted_deviation(&self, record: &CaseRecord, verdict: Verdict) -> Standing {
        if self.fails(record) {
            return match verdict {
                Verdict::Hang => Standing::Hang,
                Verdict::AdapterError => Standing::AdapterError,
                _ => Standing::Fail,
            };
        }
        match self.accepted_checks(record) {
            Some(reason) => Standing::Accepted(reason),
            None => Standing::Warning(self.warning_reason(record)),
        }
    }

    /// Whether some call misses its expectation under a failing grade, or fails a request check
    /// that is not accepted and whose own grade fails (MUST always, SHOULD when strict).
    fn fails(&self, record: &CaseRecord) -> bool {
        let case_fails = record.grade.fails(self.strict);
        if record.calls.is_empty() {
            return case_fails;
        }
        record.calls.iter().any(|call| {
            // A call the adapter declined is skipped whole, stray requests included.
            let judged = call.verdict != Verdict::Unsupported;
            let failed_check = judged
                && call.failed_checks().any(|c| {
                    self.baseline.check_reason(c.name).is_none() && c.grade.fails(self.strict)
                });
            (unmet(call.expectation_verdict()) && case_fails) || failed_check
        })
    }

    /// The reasons of the `[checks]` entries, when every expectation is met and every failed
    /// check (other than INFO) is accepted.
    fn accepted_checks(&self, record: &CaseRecord) -> Option<String> {
        let calls = &record.calls;
        if calls.iter().any(|call| unmet(call.expectation_verdict())) {
            return None;
        }
        let mut reasons = Vec::new();
        for check in calls.iter().flat_map(|c| c.failed_checks()) {
            if check.grade == Grade::Info {
                continue;
            }
            let reason = self.baseline.check_reason(check.name)?;
            reasons.push(format!("check {}: {reason}", check.name));
        }
        reasons.sort();
        reasons.dedup();
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }

    /// Why a deviation does not fail this run.
    fn warning_reason(&self, record: &CaseRecord) -> String {
        let calls = &record.calls;
        if calls.is_empty() || calls.iter().any(|call| unmet(call.expectation_verdict())) {
            return format!(
                "{}-grade {}: {}",
                record.grade,
                record.verdict,
                when_it_fails(record.grade)
            );
        }
        let mut lines: Vec<String> = calls
            .iter()
            .flat_map(|c| c.failed_checks())
            .filter(|c| self.baseline.check_reason(c.name).is_none())
            .map(|c| {
                format!(
                    "check {} is {}-grade: {}",
                    c.name,
                    c.grade,
                    when_it_fails(c.grade)
                )
            })
            .collect();
        lines.sort();
        lines.dedup();
        lines.join("; ")
    }
}

fn unmet(verdict: Verdict) -> bool {
    !matches!(verdict, Verdict::Pass | Verdict::Unsupported)
}

fn when_it_fails(grade: Grade) -> &'static str {
    match grade {
        Grade::Info => "never fails the run",
        _ => "fails the run only when strict",
    }
}

/// The adapter's own words for declining the case.
fn unsupported_reason(record: &CaseRecord) -> String {
    let words = record
        .calls
        .iter()
        .rev()
        .find_map(|call| match &call.report {
            Some(AdapterReport::Unsupported { unsupported }) => Some(unsupported.as_str()),
            _ => None,
        });
    words.unwrap_or("the adapter gave no reason").to_owned()
}

/// How many cases ended how, the one vocabulary of every summary (the CLI's, libtest's, TAP's,
/// JSON's, the HTML page's). Five counts by standing, which add up to the cases: passed,
/// accepted, warnings, failed (fail, hang, adapter-error, stale: what fails the run) and
/// skipped. Two by verdict, across them: the cases with a call that hung or whose adapter
/// failed, whatever their standing (a SHOULD case's hang is a warning, and still a hang).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// All cases.
    pub cases: usize,
    /// Cases that passed outright.
    pub passed: usize,
    /// Deviations the baseline accepts.
    pub accepted: usize,
    /// Mismatches whose grade does not fail the run.
    pub warnings: usize,
    /// Cases that fail the run (fail, hang, adapter-error, stale).
    pub failed: usize,
    /// Unsupported cases.
    pub skipped: usize,
    /// Cases with a call that gave no observation in time (verdict `hang`), whatever their
    /// standing.
    pub hangs: usize,
    /// Cases whose adapter crashed or answered with no observation (verdict
    /// `adapter-error`), whatever their standing.
    pub adapter_errors: usize,
}

impl Counts {
    /// Counts the standings and verdicts of `records`.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a CaseRecord>) -> Self {
        let mut counts = Counts::default();
        for record in records {
            counts.cases += 1;
            *match &record.standing {
                Standing::Pass => &mut counts.passed,
                Standing::Accepted(_) => &mut counts.accepted,
                Standing::Warning(_) => &mut counts.warnings,
                Standing::Unsupported(_) => &mut counts.skipped,
                _ => &mut counts.failed,
            } += 1;
            match record.verdict {
                Verdict::Hang => counts.hangs += 1,
                Verdict::AdapterError => counts.adapter_errors += 1,
                _ => {}
            }
        }
        counts
    }
}

impl fmt::Display for Counts {
    /// `101 cases: 90 passed, 3 accepted, 5 warnings, 2 failed, 1 skipped; hangs 1, adapter
    /// errors 0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} cases: {} passed, {} accepted, {} warnings, {} failed, {} skipped; hangs {}, \
             adapter errors {}",
            self.cases,
            self.passed,
            self.accepted,
            self.warnings,
            self.failed,
            self.skipped,
            self.hangs,
            self.adapter_errors
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_standing_is_written_by_its_word_and_counted_by_its_kind() {
        let words: Vec<_> = Standing::words().collect();
        assert_eq!(
            words,
            [
                "pass",
                "accepted",
                "warning",
                "fail",
                "hang",
                "adapter-error",
                "stale",
                "unsupported"
            ]
        );
        let stale = Standing::Stale("fixed".into());
        let json = serde_json::to_value(&stale).unwrap();
        assert_eq!(json["standing"], stale.as_str());
        assert_eq!(
            serde_json::to_value(Standing::AdapterError).unwrap()["standing"],
            "adapter-error"
        );
        let failing: Vec<_> = <StandingKind as strum::VariantArray>::VARIANTS
            .iter()
            .filter(|k| k.fails_run())
            .map(|k| k.as_str())
            .collect();
        assert_eq!(failing, ["fail", "hang", "adapter-error", "stale"]);
        assert!(stale.fails_run() && !Standing::Warning("w".into()).fails_run());
    }
}
