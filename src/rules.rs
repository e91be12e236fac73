//! What decides a case's [`Standing`] besides its record: the run's strictness and the
//! baseline of accepted deviations. The runner applies them once per case.

use crate::baseline::Baseline;
use crate::case::Grade;
use crate::observation::AdapterReport;
use crate::record::{CallRecord, CaseRecord};
use crate::standing::Standing;
use crate::verdict::Verdict;
use std::sync::Arc;

/// What a standing is decided from: a case's record without its standing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub id: &'a str,
    pub grade: Grade,
    pub verdict: Verdict,
    /// Why the case could not run at all.
    pub error: Option<&'a str>,
    pub calls: &'a [CallRecord],
}

/// How a baseline reason starts for a case whose verdict differs from run to run (a row's
/// `racy` case, docs/adapters.md): accepted when it deviates, no stale entry when it passes, and
/// its snapshot is not compared.
pub const RACY: &str = "racy: ";

/// Whether a baseline `reason` calls its case racy ([`RACY`]).
pub(crate) fn is_racy(reason: &str) -> bool {
    reason.starts_with(RACY)
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

    /// Decides `record`'s standing again under these rules and stores it: a finished run read
    /// as a run under other rules would have had it ([`RunReport::under`](crate::report::RunReport::under)).
    pub fn apply(&self, record: &mut CaseRecord) {
        record.standing = self.standing(record);
    }

    /// Where `record` leaves the run under these rules.
    pub fn standing(&self, record: &CaseRecord) -> Standing {
        self.standing_of(&Facts {
            id: &record.id,
            grade: record.grade,
            verdict: record.verdict,
            error: record.error.as_deref(),
            calls: &record.calls,
        })
    }

    /// Where a case with these facts leaves the run: what the runner asks once, before it
    /// builds the case's record.
    pub(crate) fn standing_of(&self, record: &Facts<'_>) -> Standing {
        // A case that did not load or start says nothing about the client: the baseline
        // cannot accept it.
        if record.error.is_some() {
            return Standing::Fail;
        }
        let listed = self.baseline.reason(record.id).map(str::to_owned);
        match (record.verdict, listed) {
            (Verdict::Unsupported, _) => Standing::Unsupported(unsupported_reason(record)),
            // A racy case (an agent that races with itself) may pass in some runs.
            (Verdict::Pass, Some(reason)) if is_racy(&reason) => Standing::Pass,
            (Verdict::Pass, Some(reason)) => Standing::Stale(reason),
            (Verdict::Pass, None) => Standing::Pass,
            (_, Some(reason)) => Standing::Accepted(reason),
            (verdict, None) => self.unlisted_deviation(record, verdict),
        }
    }

    /// A deviation the baseline does not list by id: failing, accepted by `[checks]`, or a
    /// warning, by the grades of what went wrong.
    fn unlisted_deviation(&self, record: &Facts<'_>, verdict: Verdict) -> Standing {
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
    fn fails(&self, record: &Facts<'_>) -> bool {
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
    fn accepted_checks(&self, record: &Facts<'_>) -> Option<String> {
        let calls = record.calls;
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
    fn warning_reason(&self, record: &Facts<'_>) -> String {
        let calls = record.calls;
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
fn unsupported_reason(record: &Facts<'_>) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::Baseline;

    fn standing(reason: &str, verdict: Verdict) -> Standing {
        let text = format!("[accepted]\n\"x/y\" = {reason:?}\n");
        let rules = Rules {
            strict: false,
            baseline: Arc::new(Baseline::parse(&text).baseline),
        };
        rules.standing_of(&Facts {
            id: "x/y",
            grade: Grade::Must,
            verdict,
            error: None,
            calls: &[],
        })
    }

    #[test]
    fn a_racy_entry_accepts_a_deviation_and_lets_a_pass_pass() {
        let racy = "racy: a hang in some runs, the result in others";
        assert_eq!(standing(racy, Verdict::Pass), Standing::Pass);
        assert_eq!(
            standing(racy, Verdict::Hang),
            Standing::Accepted(racy.into())
        );
        let plain = "waits for its timeout";
        assert_eq!(
            standing(plain, Verdict::Pass),
            Standing::Stale(plain.into())
        );
    }
}
