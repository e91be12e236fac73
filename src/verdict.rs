//! Verdicts (docs/reports.md, "How a case counts"): comparing what a client reported with what the case expects.

use crate::case::Expect;
use crate::observation::Observation;
use crate::wire::{Answerer, Exchange};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The judgement on one call (or, taking the worst, on one case). Its word (`pass`,
/// `adapter-error`, ...) is its variant's name in kebab case, for serde and strum alike: the
/// one home of the verdict words.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
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
    /// Every verdict, in the order they are declared in (strum lists them, so none is left out).
    pub const ALL: &'static [Verdict] = <Verdict as strum::VariantArray>::VARIANTS;

    /// The word reports use (`pass`, `adapter-error`, ...).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the server counted during one call, for the expectation's counting keys.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerCounts {
    /// `tools/call` POSTs.
    pub tool_posts: u32,
    /// Milliseconds between consecutive `tools/call` POSTs.
    pub gaps_ms: Vec<u64>,
    /// `initialize` requests.
    pub initializes: u32,
    /// GET requests that resume a stream (with `Last-Event-ID`).
    pub resumes: u32,
    /// Token requests: POSTs to the authorization server's token endpoint.
    pub token_posts: u32,
    /// Interactive authorizations asked for: requests to the authorization endpoint.
    pub authorizations: u32,
    /// Requests the case's own script answered (its replies, resumptions and task answers),
    /// as opposed to the server's protocol answers: 0 means the client never reached what
    /// the call tests.
    pub scripted: u32,
    /// Requests of any kind.
    pub requests: u32,
}

impl ServerCounts {
    /// Counts the exchanges of call `index`.
    pub fn of(exchanges: &[Exchange], index: usize) -> Self {
        let mine = || exchanges.iter().filter(|e| e.call == index);
        let posts: Vec<u64> = mine()
            .filter(|e| e.is_tool_call())
            .map(|e| e.at_ms)
            .collect();
        let initialize = |e: &&Exchange| e.jsonrpc_method.as_deref() == Some("initialize");
        ServerCounts {
            tool_posts: saturating_u32(posts.len()),
            gaps_ms: posts
                .windows(2)
                .map(|w| w[1].saturating_sub(w[0]))
                .collect(),
            initializes: saturating_u32(mine().filter(initialize).count()),
            resumes: saturating_u32(mine().filter(|e| e.is_resumption()).count()),
            token_posts: saturating_u32(mine().filter(|e| e.is_token_request()).count()),
            authorizations: saturating_u32(mine().filter(|e| e.is_authorization()).count()),
            scripted: saturating_u32(mine().filter(|e| e.reply.by.is_scripted()).count()),
            requests: saturating_u32(mine().count()),
        }
    }
}

/// The protocol version the client spoke in call `call`, as the server's record shows it:
/// 2026-07-28 when the call's first `tools/call` says so (its `MCP-Protocol-Version` header or
/// its `_meta`); else the version negotiated by the last `initialize` the server answered before
/// that `tools/call` (in this call or an earlier one of the case: they share one client), or by
/// one the authorization server refused; else
/// the version the case speaks (`case_version`). A 2025-only client in a 2026-07-28 case speaks
/// a session (the server offers `initialize` for the fall back) and is judged by that era's
/// expectation ([`crate::case::Call::expectation`]; cases/README.md, "The era a client speaks").
pub fn spoken(exchanges: &[Exchange], call: usize, case_version: &str) -> String {
    let upto: Vec<&Exchange> = exchanges.iter().filter(|e| e.call <= call).collect();
    let first_call = upto.iter().position(|e| e.call == call && e.is_tool_call());
    if let Some(at) = first_call
        && upto[at].says_modern()
    {
        return crate::era::MODERN_VERSION.to_owned();
    }
    let before = &upto[..first_call.unwrap_or(upto.len())];
    // An `initialize` the authorization server refused (401) still says the client speaks a
    // session: the version it asked for is the one the server would have negotiated.
    let session = before.iter().rev().find(|e| {
        let answered =
            e.reply.by == Answerer::Prelude && e.reply.status.is_none_or(|status| status == 200);
        e.jsonrpc_method.as_deref() == Some("initialize")
            && (answered || e.reply.by == Answerer::Auth)
    });
    match session {
        Some(initialize) => {
            let message: Value = serde_json::from_str(&initialize.body).unwrap_or(Value::Null);
            let asked = message
                .pointer("/params/protocolVersion")
                .and_then(Value::as_str);
            crate::era::negotiated(asked).to_owned()
        }
        None => case_version.to_owned(),
    }
}

/// A count as the record keeps it; more than `u32::MAX` requests cannot arrive in one case.
fn saturating_u32(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

/// Every way `observed` (with what the server counted) differs from `expect`; empty means
/// pass. Only the fields the expectation names are compared, and the client's own count of
/// its attempts when it gives one.
pub fn mismatches(expect: &Expect, observed: &Observation, counts: &ServerCounts) -> Vec<String> {
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
    found.extend(count_mismatches(expect, counts));
    if let Some(attempts) = observed.attempts
        && attempts != counts.tool_posts
    {
        found.push(format!(
            "attempts: the client says it sent {attempts} tools/call requests, the server \
             received {}",
            counts.tool_posts
        ));
    }
    found
}

/// [`mismatches`] for an observation of a coarse source (a conformance client's exit status,
/// [`crate::adapter::Observes::ExitStatus`]), and whether the judgement is coarse: a call whose
/// expectation needs a finer outcome ([`crate::coarse::needs_finer`]) is judged on the
/// server's counts alone, its outcome, status and code left aside; any other is judged in full.
/// Neither judgement passes a call whose point the client never reached: when none of the
/// case's scripted replies was served in the call, an exit status and the counts judge
/// nothing, and that is a mismatch of its own.
pub fn coarse_mismatches(
    expect: &Expect,
    observed: &Observation,
    counts: &ServerCounts,
) -> (Vec<String>, bool) {
    // An exit status says nothing of a call whose point the client never reached, success
    // included: a client that exits 0 without connecting "succeeds" at everything.
    let coarse = crate::coarse::needs_finer(expect);
    let mut found = match coarse {
        false => mismatches(expect, observed, counts),
        true => count_mismatches(expect, counts),
    };
    if counts.scripted == 0 {
        found.push(format!(
            "the client never reached what the call tests: none of the case's scripted replies \
             was served (the server received {} request(s) in the call), so its exit status \
             and counts judge nothing",
            counts.requests
        ));
    }
    (found, coarse)
}

/// The mismatches of the counting keys: POSTs, gaps, `initialize`s and GETs.
fn count_mismatches(expect: &Expect, counts: &ServerCounts) -> Vec<String> {
    let mut found = Vec::new();
    let posts = counts.tool_posts;
    if let Some(wanted) = expect.tool_posts
        && posts != wanted
    {
        found.push(format!(
            "tool_posts: expected {wanted}, the server received {posts}"
        ));
    }
    if let Some(most) = expect.max_tool_posts
        && posts > most
    {
        found.push(format!(
            "max_tool_posts: expected at most {most}, the server received {posts}"
        ));
    }
    for (at, (min, gap)) in expect.min_gaps_ms.iter().zip(&counts.gaps_ms).enumerate() {
        if gap < min {
            found.push(format!(
                "min_gaps_ms: tools/call POST {} came {gap} ms after POST {}, expected at least \
                 {min} ms",
                at + 2,
                at + 1
            ));
        }
    }
    let pairs = [
        (
            "initializes",
            expect.initializes,
            counts.initializes,
            "initialize requests",
        ),
        (
            "resumes",
            expect.resumes,
            counts.resumes,
            "GET requests with Last-Event-ID",
        ),
        (
            "token_posts",
            expect.token_posts,
            counts.token_posts,
            "token requests",
        ),
        (
            "authorizations",
            expect.authorizations,
            counts.authorizations,
            "requests to the authorization endpoint",
        ),
    ];
    for (key, wanted, seen, what) in pairs {
        if let Some(wanted) = wanted
            && seen != wanted
        {
            found.push(format!(
                "{key}: expected {wanted}, the server received {seen} {what}"
            ));
        }
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

    #[test]
    fn all_holds_every_verdict_once_and_the_words_are_serdes() {
        let all: std::collections::BTreeSet<_> = Verdict::ALL.iter().copied().collect();
        let variants: std::collections::BTreeSet<_> = <Verdict as strum::VariantArray>::VARIANTS
            .iter()
            .copied()
            .collect();
        assert_eq!((all.len(), &all), (Verdict::ALL.len(), &variants));
        for &verdict in Verdict::ALL {
            let json = serde_json::to_value(verdict).unwrap();
            assert_eq!(json, verdict.as_str());
            assert_eq!(serde_json::from_value::<Verdict>(json).unwrap(), verdict);
        }
        // The JSON report counts cases under the verdict words, in verdict order.
        let counts = serde_json::to_value(crate::report::json::VerdictCounts::default()).unwrap();
        let keys: Vec<&str> = counts
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let words: Vec<&str> = Verdict::ALL.iter().copied().map(Verdict::as_str).collect();
        assert_eq!(keys, words);
    }

    fn expect(outcome: Outcome) -> Expect {
        Expect::new(outcome)
    }

    fn posts(tool_posts: u32) -> ServerCounts {
        ServerCounts {
            tool_posts,
            scripted: tool_posts,
            requests: tool_posts,
            ..ServerCounts::default()
        }
    }

    #[test]
    fn a_coarse_call_whose_scripted_replies_were_never_served_fails() {
        let exited = Observation::new(Outcome::ToolSuccess);
        let expected_error = Expect {
            tool_posts: Some(0),
            ..expect(Outcome::HttpError)
        };
        let (found, coarse) = coarse_mismatches(&expected_error, &exited, &posts(0));
        assert!(coarse);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("the client never reached what the call tests"),
            "{found:?}"
        );
        assert!(found[0].contains("received 0 request(s)"), "{found:?}");
    }

    #[test]
    fn only_named_fields_are_compared() {
        let seen = Observation::new(Outcome::HttpError)
            .with_status(503)
            .with_code(-1);
        assert!(mismatches(&expect(Outcome::HttpError), &seen, &posts(7)).is_empty());
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
        let found = mismatches(&want, &seen, &posts(2));
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
    fn a_coarse_observation_is_judged_on_its_outcome_only_when_success_is_expected() {
        let failed = Observation::new(Outcome::UnclassifiedError);
        let expected_error = Expect {
            status: Some(503),
            tool_posts: Some(1),
            ..expect(Outcome::HttpError)
        };
        assert_eq!(
            coarse_mismatches(&expected_error, &failed, &posts(1)),
            (vec![], true)
        );
        let (found, coarse) = coarse_mismatches(&expected_error, &failed, &posts(3));
        assert_eq!(found, ["tool_posts: expected 1, the server received 3"]);
        assert!(coarse);
        let (found, coarse) = coarse_mismatches(&expect(Outcome::ToolSuccess), &failed, &posts(1));
        assert_eq!(
            found,
            ["outcome: expected TOOL_SUCCESS, observed UNCLASSIFIED_ERROR"]
        );
        assert!(!coarse);
    }

    #[test]
    fn verdicts_order_from_best_to_worst() {
        assert!(Verdict::Pass < Verdict::Unsupported);
        assert!(Verdict::Unsupported < Verdict::Fail);
        assert!(Verdict::Fail < Verdict::Hang && Verdict::Hang < Verdict::AdapterError);
    }
}
