//! Where a case leaves the run: the words of a [`Standing`] (decided once per case by
//! `rules::Rules` from the case's verdicts, its grade, the run's strictness and the baseline).
//! The libtest result, the live line, every report, the summary and the exit code read it; none
//! decides again.

use serde::{Deserialize, Serialize};
use std::fmt;

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
