//! From a case's standing to its libtest result: the standing is decided by the runner
//! ([`Rules`](crate::rules::Rules)); this only says it the way libtest and a person read it.

use super::wording;
use crate::record::CaseRecord;
use crate::standing::Standing;
use libtest_mimic::{Completion, Failed};

/// The test result of `record`; warnings and notes go to stderr as they happen. `baseline`
/// names the baseline file in messages.
pub(crate) fn test_result(record: &CaseRecord, baseline: &str) -> Result<Completion, Failed> {
    match &record.standing {
        Standing::Pass => Ok(Completion::Completed),
        Standing::Unsupported(why) => Ok(Completion::ignored_with(format!("unsupported: {why}"))),
        Standing::Warning(why) => {
            eprintln!("{}", wording::warning(record, why));
            Ok(Completion::Completed)
        }
        Standing::Accepted(why) => {
            eprintln!("{}", wording::accepted(record, why, baseline));
            Ok(Completion::Completed)
        }
        Standing::Stale(why) => Err(wording::stale(record, why, baseline).into()),
        Standing::Fail | Standing::Hang | Standing::AdapterError => {
            Err(wording::failure(record).into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::Baseline;
    use crate::case::Grade;
    use crate::rules::Rules;
    use crate::verdict::Verdict;

    fn record(verdict: Verdict, grade: Grade) -> CaseRecord {
        let mut record = CaseRecord::broken("sse/x", String::new());
        record.error = None;
        record.verdict = verdict;
        record.grade = grade;
        record
    }

    fn rules(strict: bool, baseline: &str) -> Rules {
        Rules::strict(strict).with_baseline(Baseline::parse(baseline).baseline)
    }

    const LISTED: &str = "[accepted]\n\"sse/x\" = \"known\"\n";

    #[test]
    fn grades_and_strictness_decide_without_a_baseline() {
        let lenient = rules(false, "");
        let strict = rules(true, "");
        let should_fail = record(Verdict::Hang, Grade::Should);
        assert!(matches!(
            lenient.standing(&should_fail),
            Standing::Warning(_)
        ));
        assert_eq!(strict.standing(&should_fail), Standing::Hang);
        let info_fail = record(Verdict::Fail, Grade::Info);
        let Standing::Warning(why) = strict.standing(&info_fail) else {
            panic!("an info case never fails");
        };
        assert_eq!(why, "info-grade fail: never fails the run");
        let must_fail = record(Verdict::AdapterError, Grade::Must);
        assert_eq!(lenient.standing(&must_fail), Standing::AdapterError);
        let skipped = record(Verdict::Unsupported, Grade::Must);
        assert!(matches!(
            strict.standing(&skipped),
            Standing::Unsupported(_)
        ));
        assert_eq!(
            lenient.standing(&record(Verdict::Pass, Grade::Must)),
            Standing::Pass
        );
    }

    #[test]
    fn the_baseline_accepts_deviations_and_fails_stale_entries() {
        let rules = rules(true, LISTED);
        let mut failing = record(Verdict::Fail, Grade::Must);
        rules.apply(&mut failing);
        assert_eq!(failing.standing, Standing::Accepted("known".into()));
        assert!(test_result(&failing, "b.toml").is_ok());
        let mut passing = record(Verdict::Pass, Grade::Must);
        rules.apply(&mut passing);
        assert_eq!(passing.standing, Standing::Stale("known".into()));
        let Err(failed) = test_result(&passing, "b.toml") else {
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
        let mut broken = CaseRecord::broken("sse/x", "bad file".into());
        rules(false, LISTED).apply(&mut broken);
        assert_eq!(broken.standing, Standing::Fail);
        let Err(failed) = test_result(&broken, "b.toml") else {
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
