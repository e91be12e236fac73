//! From a case record to a test result: grade, strictness and the baseline decide.

use super::baseline::Baseline;
use super::message;
use crate::runner::CaseRecord;
use crate::verdict::Verdict;
use libtest_mimic::{Completion, Failed};

/// What a case's record means for its test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Disposition {
    /// It passed.
    Pass,
    /// The adapter could not run it: the test is ignored.
    Unsupported,
    /// A SHOULD or INFO mismatch outside strict mode: passes with a warning.
    Warned,
    /// A deviation the baseline lists: passes with a note.
    Accepted,
    /// It passed although the baseline lists it: fails until the entry is removed.
    Stale,
    /// It fails the run.
    Failed,
}

/// Judges records; cheap to clone, shared by every trial.
#[derive(Debug, Clone)]
pub(crate) struct Judge {
    /// Whether SHOULD-grade mismatches fail.
    pub strict: bool,
    /// The accepted deviations.
    pub baseline: Baseline,
    /// The baseline file as a person reads it, for messages.
    pub baseline_shown: String,
}

impl Judge {
    /// What `record` means.
    pub(crate) fn dispose(&self, record: &CaseRecord) -> Disposition {
        // A case that did not load or start says nothing about the client: the baseline
        // cannot accept it.
        if record.error.is_some() {
            return Disposition::Failed;
        }
        let listed = self.baseline.reason(&record.id).is_some();
        let accepted = |name: &str| self.baseline.check_reason(name).is_some();
        match record.verdict {
            Verdict::Unsupported => Disposition::Unsupported,
            Verdict::Pass if listed => Disposition::Stale,
            Verdict::Pass => Disposition::Pass,
            _ if listed => Disposition::Accepted,
            _ if !record.fails_run_accepting(self.strict, &accepted) => {
                if self.only_accepted_checks_failed(record) {
                    Disposition::Accepted
                } else {
                    Disposition::Warned
                }
            }
            _ => Disposition::Failed,
        }
    }

    /// Some check failed, every failed check (other than INFO) is accepted and every
    /// expectation is met.
    fn only_accepted_checks_failed(&self, record: &CaseRecord) -> bool {
        let any_failed = record
            .calls
            .iter()
            .any(|c| c.failed_checks().next().is_some());
        any_failed
            && record.calls.iter().all(|call| {
                matches!(
                    call.expectation_verdict(),
                    Verdict::Pass | Verdict::Unsupported
                ) && call
                    .failed_checks()
                    .filter(|c| c.grade != crate::case::Grade::Info)
                    .all(|c| self.baseline.check_reason(c.name).is_some())
            })
    }

    /// Why the baseline accepts `record`: its own entry, or the entries of its failed checks.
    fn accepted_reason(&self, record: &CaseRecord) -> String {
        if let Some(reason) = self.baseline.reason(&record.id) {
            return reason.to_owned();
        }
        let mut lines: Vec<String> = record
            .calls
            .iter()
            .flat_map(|call| call.failed_checks())
            .filter_map(|c| {
                let reason = self.baseline.check_reason(c.name)?;
                Some(format!("check {}: {reason}", c.name))
            })
            .collect();
        lines.sort();
        lines.dedup();
        lines.join("; ")
    }

    /// The test result for `record`; warnings and notes go to stderr as they happen.
    pub(crate) fn outcome(&self, record: &CaseRecord) -> Result<Completion, Failed> {
        let reason = || self.accepted_reason(record);
        match self.dispose(record) {
            Disposition::Pass => Ok(Completion::Completed),
            Disposition::Unsupported => Ok(Completion::ignored_with(message::unsupported(record))),
            Disposition::Warned => {
                eprintln!("{}", message::warning(record));
                Ok(Completion::Completed)
            }
            Disposition::Accepted => {
                eprintln!(
                    "{}",
                    message::accepted(record, &reason(), &self.baseline_shown)
                );
                Ok(Completion::Completed)
            }
            Disposition::Stale => {
                Err(message::stale(record, &reason(), &self.baseline_shown).into())
            }
            Disposition::Failed => Err(message::failure(record).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Grade;

    fn record(verdict: Verdict, grade: Grade) -> CaseRecord {
        let mut record = CaseRecord::broken("sse/x", String::new());
        record.error = None;
        record.verdict = verdict;
        record.grade = grade;
        record
    }

    fn judge(strict: bool, baseline: &str) -> Judge {
        Judge {
            strict,
            baseline: Baseline::parse(baseline).unwrap(),
            baseline_shown: "b.toml".into(),
        }
    }

    const LISTED: &str = "[accepted]\n\"sse/x\" = \"known\"\n";

    #[test]
    fn grades_and_strictness_decide_without_a_baseline() {
        let lenient = judge(false, "");
        let strict = judge(true, "");
        let should_fail = record(Verdict::Hang, Grade::Should);
        assert_eq!(lenient.dispose(&should_fail), Disposition::Warned);
        assert_eq!(strict.dispose(&should_fail), Disposition::Failed);
        let info_fail = record(Verdict::Fail, Grade::Info);
        assert_eq!(strict.dispose(&info_fail), Disposition::Warned);
        let must_fail = record(Verdict::AdapterError, Grade::Must);
        assert_eq!(lenient.dispose(&must_fail), Disposition::Failed);
        let skipped = record(Verdict::Unsupported, Grade::Must);
        assert_eq!(strict.dispose(&skipped), Disposition::Unsupported);
        assert_eq!(
            lenient.dispose(&record(Verdict::Pass, Grade::Must)),
            Disposition::Pass
        );
    }

    #[test]
    fn the_baseline_accepts_deviations_and_fails_stale_entries() {
        let judge = judge(true, LISTED);
        let failing = record(Verdict::Fail, Grade::Must);
        assert_eq!(judge.dispose(&failing), Disposition::Accepted);
        assert!(judge.outcome(&failing).is_ok());
        let passing = record(Verdict::Pass, Grade::Must);
        assert_eq!(judge.dispose(&passing), Disposition::Stale);
        let Err(failed) = judge.outcome(&passing) else {
            panic!("a stale entry must fail");
        };
        let text = failed.message().unwrap();
        assert!(
            text.contains("remove it from the baseline b.toml"),
            "{text}"
        );
        assert!(text.contains("known"), "{text}");
    }

    #[test]
    fn a_case_that_did_not_run_fails_even_when_listed() {
        let broken = CaseRecord::broken("sse/x", "bad file".into());
        assert_eq!(judge(false, LISTED).dispose(&broken), Disposition::Failed);
        let Err(failed) = judge(false, "").outcome(&broken) else {
            panic!("a broken case must fail");
        };
        assert!(
            failed
                .message()
                .unwrap()
                .contains("case did not run: bad file")
        );
    }
}
