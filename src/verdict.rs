//! Verdicts (design §3): comparing what a client reported with what the case expects.

use crate::case::Expect;
use crate::observation::Observation;
use serde::Serialize;
use std::fmt;

/// The judgement on one call (or, taking the worst, on one case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The outcome and every named field match.
    Pass,
    /// The adapter declared it cannot run this call (a skip, never a pass).
    Unsupported,
    /// A mismatch.
    Fail,
    /// No observation within the deadline.
    Hang,
    /// The adapter crashed or said something that is not an observation.
    AdapterError,
}

impl Verdict {
    /// The word reports use (`pass`, `adapter-error`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Unsupported => "unsupported",
            Verdict::Fail => "fail",
            Verdict::Hang => "hang",
            Verdict::AdapterError => "adapter-error",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every way `observed` (with `tool_posts` counted by the server) differs from `expect`;
/// empty means pass. Only the fields the expectation names are compared.
pub fn mismatches(expect: &Expect, observed: &Observation, tool_posts: u32) -> Vec<String> {
    let mut found = Vec::new();
    if expect.outcome != observed.outcome {
        found.push(format!(
            "outcome: expected {}, observed {}",
            expect.outcome, observed.outcome
        ));
    }
    if let Some(status) = expect.status
        && observed.status != Some(status)
    {
        found.push(format!(
            "status: expected {status}, observed {}",
            shown(observed.status)
        ));
    }
    if let Some(code) = expect.code
        && observed.code != Some(code)
    {
        found.push(format!(
            "code: expected {code}, observed {}",
            shown(observed.code)
        ));
    }
    if let Some(posts) = expect.tool_posts
        && tool_posts != posts
    {
        found.push(format!(
            "tool_posts: expected {posts}, the server received {tool_posts}"
        ));
    }
    found
}

fn shown<T: fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Outcome;

    fn expect(outcome: Outcome) -> Expect {
        Expect {
            outcome,
            status: None,
            code: None,
            tool_posts: None,
        }
    }

    #[test]
    fn only_named_fields_are_compared() {
        let seen = Observation::new(Outcome::HttpError)
            .with_status(503)
            .with_code(-1);
        assert!(mismatches(&expect(Outcome::HttpError), &seen, 7).is_empty());
    }

    #[test]
    fn each_named_field_can_mismatch() {
        let want = Expect {
            status: Some(429),
            code: Some(-32602),
            tool_posts: Some(1),
            ..expect(Outcome::HttpError)
        };
        let seen = Observation::new(Outcome::ToolSuccess).with_status(200);
        let found = mismatches(&want, &seen, 2);
        assert_eq!(
            found,
            [
                "outcome: expected HTTP_ERROR, observed TOOL_SUCCESS",
                "status: expected 429, observed 200",
                "code: expected -32602, observed none",
                "tool_posts: expected 1, the server received 2",
            ]
        );
    }

    #[test]
    fn verdicts_order_from_best_to_worst() {
        assert!(Verdict::Pass < Verdict::Unsupported);
        assert!(Verdict::Unsupported < Verdict::Fail);
        assert!(Verdict::Fail < Verdict::Hang && Verdict::Hang < Verdict::AdapterError);
    }
}
