//! What an adapter reports for one call (docs/adapters.md).

use crate::outcome::Outcome;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// One observation: the outcome the client reported, with the fields that go with it.
///
/// It deserializes from an object with these keys and no others; an object with `unsupported`
/// is an unsupported declaration, never an observation, and the error says so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    /// The outcome word.
    pub outcome: Outcome,
    /// The HTTP status the client saw, when it saw one.
    #[serde(default)]
    pub status: Option<u16>,
    /// The JSON-RPC error code, for `JSONRPC_ERROR` and for `HTTP_ERROR` with a JSON-RPC body.
    #[serde(default)]
    pub code: Option<i64>,
    /// Free text from the client: its own words for what happened.
    #[serde(default)]
    pub detail: String,
    /// The retry policy the client ran the call with, in its own words (the reference client
    /// says `never` or `repeatable-tools`). Reports show it next to the server's POST count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<String>,
    /// How many `tools/call` requests the client says it sent. When given, the runner compares
    /// it with what the server received: a difference is a retry the client does not know of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
}

/// How [`Observation`] deserializes once it is known not to be an unsupported declaration: the
/// same fields (serde checks that they match), no others.
#[derive(Deserialize)]
#[serde(remote = "Observation", deny_unknown_fields)]
struct ObservationFields {
    outcome: Outcome,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    code: Option<i64>,
    #[serde(default)]
    detail: String,
    #[serde(default)]
    retry: Option<String>,
    #[serde(default)]
    attempts: Option<u32>,
}

impl<'de> Deserialize<'de> for Observation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.get("unsupported").is_some() {
            let why = match unsupported(value) {
                Ok(_) => "the line declares the call unsupported; it is no observation".to_owned(),
                Err(why) => why,
            };
            return Err(D::Error::custom(why));
        }
        ObservationFields::deserialize(value).map_err(D::Error::custom)
    }
}

/// `{"unsupported": "why"}`, and no other key.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnsupportedLine {
    unsupported: String,
}

/// The reason of an unsupported declaration, or what is wrong with it.
fn unsupported(value: Value) -> Result<String, String> {
    match UnsupportedLine::deserialize(value) {
        Ok(line) => Ok(line.unsupported),
        Err(e) => Err(format!(
            "{e}: `unsupported` stands alone, as in {{\"unsupported\": \"why\"}}; \
             an observation has `outcome` instead"
        )),
    }
}

impl Observation {
    /// An observation with only an outcome.
    pub fn new(outcome: Outcome) -> Self {
        Observation {
            outcome,
            status: None,
            code: None,
            detail: String::new(),
            retry: None,
            attempts: None,
        }
    }

    /// Sets the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Sets the JSON-RPC error code.
    pub fn with_code(mut self, code: i64) -> Self {
        self.code = Some(code);
        self
    }

    /// Sets the retry policy the client ran with.
    pub fn with_retry(mut self, policy: impl Into<String>) -> Self {
        self.retry = Some(policy.into());
        self
    }

    /// Sets how many `tools/call` requests the client sent.
    pub fn with_attempts(mut self, attempts: u32) -> Self {
        self.attempts = Some(attempts);
        self
    }

    /// Sets the free-text detail.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }
}

/// What an adapter returns: an observation, or a declaration that it cannot run the call.
///
/// On the wire (out-of-process adapters) this is either an observation object or
/// `{"unsupported": "why"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum AdapterReport {
    /// The adapter cannot run this call; reported as skipped, never as a pass.
    Unsupported {
        /// Why not.
        unsupported: String,
    },
    /// The client made the call and reported this.
    Observed(Observation),
}

/// An object with `unsupported` is a declaration and takes no other key; any other is an
/// observation. (An untagged derive would ignore keys beside `unsupported`, and say only "did
/// not match any variant" about the rest.)
impl<'de> Deserialize<'de> for AdapterReport {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        if value.get("unsupported").is_some() {
            return unsupported(value)
                .map(|unsupported| AdapterReport::Unsupported { unsupported })
                .map_err(D::Error::custom);
        }
        Observation::deserialize(value)
            .map(AdapterReport::Observed)
            .map_err(D::Error::custom)
    }
}

impl AdapterReport {
    /// The report with every synthetic credential in its text named instead
    /// ([`crate::credential::redact`]): what a client says may quote a token.
    pub(crate) fn redacted(self) -> Self {
        let redact = |text: &str| crate::credential::redact(text).into_owned();
        match self {
            AdapterReport::Unsupported { unsupported } => AdapterReport::Unsupported {
                unsupported: redact(&unsupported),
            },
            AdapterReport::Observed(observation) => AdapterReport::Observed(Observation {
                detail: redact(&observation.detail),
                retry: observation.retry.as_deref().map(redact),
                ..observation
            }),
        }
    }
}

impl From<Observation> for AdapterReport {
    fn from(observation: Observation) -> Self {
        AdapterReport::Observed(observation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_contract_shapes() {
        let seen: AdapterReport = serde_json::from_str(
            r#"{"outcome":"HTTP_ERROR","status":503,"code":null,"detail":"server said 503"}"#,
        )
        .unwrap();
        let want = Observation::new(Outcome::HttpError)
            .with_status(503)
            .with_detail("server said 503");
        assert_eq!(seen, AdapterReport::Observed(want));

        let skipped: AdapterReport = serde_json::from_str(r#"{"unsupported":"no SSE"}"#).unwrap();
        assert_eq!(
            skipped,
            AdapterReport::Unsupported {
                unsupported: "no SSE".into()
            }
        );
    }

    #[test]
    fn rejects_unknown_outcome_words_and_keys() {
        assert!(serde_json::from_str::<AdapterReport>(r#"{"outcome":"FINE"}"#).is_err());
        assert!(serde_json::from_str::<AdapterReport>(r#"{"outcome":"TIMEOUT","x":1}"#).is_err());
    }

    #[test]
    fn an_unsupported_line_takes_no_other_key_and_the_error_names_it() {
        for line in [
            r#"{"unsupported": "x", "bogus": 1}"#,
            r#"{"outcome": "TIMEOUT", "unsupported": "x"}"#,
        ] {
            let report = serde_json::from_str::<AdapterReport>(line);
            let why = report.expect_err(line).to_string();
            let other = if line.contains("bogus") {
                "bogus"
            } else {
                "outcome"
            };
            assert!(why.contains(&format!("unknown field `{other}`")), "{why}");
            assert!(why.contains("`unsupported` stands alone"), "{why}");
            // Asked as an observation (what a process adapter's error message does), the line
            // is still an unsupported declaration with a key too many, not a missing outcome.
            let why = serde_json::from_str::<Observation>(line)
                .unwrap_err()
                .to_string();
            assert!(why.contains(&format!("unknown field `{other}`")), "{why}");
        }
        let why = serde_json::from_str::<Observation>(r#"{"unsupported": "no SSE"}"#)
            .unwrap_err()
            .to_string();
        assert!(why.contains("declares the call unsupported"), "{why}");
        let bad_type = serde_json::from_str::<AdapterReport>(r#"{"unsupported": 1}"#);
        assert!(
            bad_type
                .unwrap_err()
                .to_string()
                .contains("expected a string")
        );
    }
}
