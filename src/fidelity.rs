//! Layer fidelity: the one figure of a run that a reader choosing a client understands at
//! once. Of the cases where a correct client names a definite layer (every expectation does),
//! how many this client's application can tell apart: the outcome it reported for every call is
//! of the layer the case expects. The layers are where a call failed (transport, protocol,
//! interaction, the tool's own error) or that it did not: a `TOOL_SUCCESS` is a class of its
//! own, so a tool's `isError` reported as a success is a layer lost, not the same layer. A
//! `JSONRPC_ERROR` where an `HTTP_ERROR 503` was expected is a layer lost; an `HTTP_ERROR 429`
//! where a 503 was expected is the right layer (the status is another matter, which the verdict
//! judges). `UNCLASSIFIED_ERROR` names no layer, so it never tells one apart; neither does a
//! hang or an adapter error, which report nothing. A case the adapter declined (`unsupported`)
//! is not counted at all.
//!
//! Computed here only, from the calls of each case; the JSON report keeps it
//! (`summary.layer_fidelity`), and the matrix pages read it from there.

use crate::observation::AdapterReport;
use crate::outcome::{Layer, Outcome};
use crate::record::CaseRecord;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How many cases a client tells the layer of, of how many it was asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerFidelity {
    /// Cases whose every call reported an outcome of the expected layer.
    pub told_apart: usize,
    /// Cases counted: every case the adapter did not decline.
    pub cases: usize,
}

/// What one call of a case left, as far as layers go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The adapter reported this outcome.
    Reported(Outcome),
    /// The adapter declined the call.
    Declined,
    /// Nothing: a hang, an adapter error.
    Nothing,
}

impl LayerFidelity {
    /// Tallies cases given, per case, each call's expected outcome and what it left.
    pub fn tally<C>(cases: impl IntoIterator<Item = C>) -> Self
    where
        C: IntoIterator<Item = (Outcome, Seen)>,
    {
        let mut fidelity = LayerFidelity::default();
        for calls in cases {
            let calls: Vec<(Outcome, Seen)> = calls.into_iter().collect();
            if calls.is_empty() || calls.iter().any(|(_, seen)| *seen == Seen::Declined) {
                continue;
            }
            fidelity.cases += 1;
            let same_layer = |(expected, seen): &(Outcome, Seen)| match seen {
                Seen::Reported(outcome) => class(*outcome) == class(*expected),
                Seen::Declined | Seen::Nothing => false,
            };
            if calls.iter().all(same_layer) {
                fidelity.told_apart += 1;
            }
        }
        fidelity
    }

    /// The fidelity of a run's records.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a CaseRecord>) -> Self {
        Self::tally(records.into_iter().map(|record| {
            record.calls.iter().map(|call| {
                let seen = match &call.report {
                    Some(AdapterReport::Observed(observation)) => {
                        Seen::Reported(observation.outcome)
                    }
                    Some(AdapterReport::Unsupported { .. }) => Seen::Declined,
                    None => Seen::Nothing,
                };
                (call.expect.outcome, seen)
            })
        }))
    }

    /// The share told apart, in whole percent (0 when no case counted).
    pub fn percent(&self) -> usize {
        (self.told_apart.saturating_mul(100))
            .checked_div(self.cases)
            .unwrap_or(0)
    }
}

/// Where a call failed, or `None` when it did not (`TOOL_SUCCESS`): what layer fidelity compares.
/// `UNCLASSIFIED_ERROR` is the unknown layer, which no expectation names.
fn class(outcome: Outcome) -> Option<Layer> {
    match outcome {
        Outcome::ToolSuccess => None,
        outcome => Some(outcome.layer()),
    }
}

impl fmt::Display for LayerFidelity {
    /// `31/70 (44 %)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{} ({} %)",
            self.told_apart,
            self.cases,
            self.percent()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Outcome::*;

    #[test]
    fn a_case_counts_when_every_call_reports_its_expected_layer() {
        let reported = |outcome| Seen::Reported(outcome);
        let fidelity = LayerFidelity::tally([
            vec![(HttpError, reported(HttpError))],
            // Another status, the same layer: told apart.
            vec![(HttpError, reported(Timeout))],
            // The HTTP status lost in a JSON-RPC error: not.
            vec![(HttpError, reported(JsonrpcError))],
            // The tool's isError reported as a success: not.
            vec![(ToolError, reported(ToolSuccess))],
            vec![(ToolError, reported(UnclassifiedError))],
            vec![
                (ToolSuccess, reported(ToolSuccess)),
                (Timeout, Seen::Nothing),
            ],
            // Declined: not counted.
            vec![(InputRequired, Seen::Declined)],
            vec![],
        ]);
        assert_eq!(
            fidelity,
            LayerFidelity {
                told_apart: 2,
                cases: 6
            }
        );
        assert_eq!(fidelity.to_string(), "2/6 (33 %)");
        assert_eq!(LayerFidelity::default().to_string(), "0/0 (0 %)");
    }
}
