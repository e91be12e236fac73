//! How many cases of a run ended how: the one vocabulary of counts every summary uses.

use crate::record::CaseRecord;
use crate::standing::Standing;
use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};
use std::fmt;

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
    /// Cases with a call judged coarsely, whatever their standing: the adapter tells only
    /// success or error (a conformance client's exit status) and the expectation needs more,
    /// so the call was judged on its request checks and server counts only (`crate::coarse`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub coarse: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
            if record.is_coarse() {
                counts.coarse += 1;
            }
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
    /// errors 0`, then `; 57 judged coarsely (exit status only)` when some were.
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
        )?;
        if self.coarse > 0 {
            write!(f, "; {} judged coarsely (exit status only)", self.coarse)?;
        }
        Ok(())
    }
}
