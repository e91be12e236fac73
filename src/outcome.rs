//! The outcome vocabulary: the one word a client reports per call (the outcome table: README.md, "Outcomes").

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a client reported for one `tools/call`.
///
/// Layers are checked in order (transport, protocol, interaction, application) and the first
/// layer that fails decides the outcome.
///
/// A call run as a task reports the outcome of the call the task stands for: a `completed`
/// task's result as any result ([`Outcome::ToolError`] for `isError: true`), a `failed` task's
/// JSON-RPC error as [`Outcome::JsonrpcError`] with its code, an error answer to `tasks/get` as
/// that error, and a task the server cancelled as [`Outcome::TaskCancelled`].
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::VariantArray,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    /// No HTTP response at all: refused, reset or closed before a status line.
    ConnectionError,
    /// A non-2xx status.
    HttpError,
    /// A 2xx answer whose Content-Type is neither `application/json` nor `text/event-stream`.
    UnexpectedContentType,
    /// A 2xx answer with no body at all (`202`, `204`, `200` with an empty body).
    NoResult,
    /// The body or SSE stream ended before the response to this request arrived.
    StreamIncomplete,
    /// The client's own deadline passed with no final response.
    Timeout,
    /// The body, or the SSE `data` of the response, is not JSON.
    MalformedJson,
    /// Not a JSON-RPC 2.0 response to this request.
    InvalidEnvelope,
    /// A well-formed JSON-RPC error response.
    JsonrpcError,
    /// A result that is no valid `CallToolResult` / `InputRequiredResult`.
    InvalidToolResult,
    /// `resultType: "input_required"`: the client must gather input and retry.
    InputRequired,
    /// The tool call ran as a task, and the task ended `cancelled` without the client asking:
    /// no result and no error will come (2025-11-25 basic/utilities/tasks, SEP-2663).
    TaskCancelled,
    /// A complete result with `isError: true`.
    ToolError,
    /// A complete result, `isError` absent or false.
    ToolSuccess,
    /// The client failed, but what it surfaces does not say which layer.
    UnclassifiedError,
}

/// The layer an outcome belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// HTTP and the byte stream under it.
    Transport,
    /// The JSON-RPC envelope and the shape of the result.
    Protocol,
    /// MRTR: the server asks for more input.
    Interaction,
    /// The tool itself.
    Application,
    /// The client did not say.
    Unknown,
}

impl Outcome {
    /// Every outcome, in layer order (the order they are declared in; strum lists them).
    pub const ALL: &'static [Outcome] = <Outcome as strum::VariantArray>::VARIANTS;

    /// The layer this outcome belongs to.
    pub fn layer(self) -> Layer {
        use Outcome::*;
        match self {
            ConnectionError
            | HttpError
            | UnexpectedContentType
            | NoResult
            | StreamIncomplete
            | Timeout => Layer::Transport,
            MalformedJson | InvalidEnvelope | JsonrpcError | InvalidToolResult => Layer::Protocol,
            InputRequired => Layer::Interaction,
            TaskCancelled | ToolError | ToolSuccess => Layer::Application,
            UnclassifiedError => Layer::Unknown,
        }
    }

    /// The wire spelling, as in reports and case files (`"HTTP_ERROR"`).
    pub fn as_str(self) -> &'static str {
        use Outcome::*;
        match self {
            ConnectionError => "CONNECTION_ERROR",
            HttpError => "HTTP_ERROR",
            UnexpectedContentType => "UNEXPECTED_CONTENT_TYPE",
            NoResult => "NO_RESULT",
            StreamIncomplete => "STREAM_INCOMPLETE",
            Timeout => "TIMEOUT",
            MalformedJson => "MALFORMED_JSON",
            InvalidEnvelope => "INVALID_ENVELOPE",
            JsonrpcError => "JSONRPC_ERROR",
            InvalidToolResult => "INVALID_TOOL_RESULT",
            InputRequired => "INPUT_REQUIRED",
            TaskCancelled => "TASK_CANCELLED",
            ToolError => "TOOL_ERROR",
            ToolSuccess => "TOOL_SUCCESS",
            UnclassifiedError => "UNCLASSIFIED_ERROR",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = match self {
            Layer::Transport => "transport",
            Layer::Protocol => "protocol",
            Layer::Interaction => "interaction",
            Layer::Application => "application",
            Layer::Unknown => "unknown",
        };
        f.write_str(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_spelling_round_trips_through_serde() {
        for &outcome in Outcome::ALL {
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(json, format!("\"{}\"", outcome.as_str()));
            assert_eq!(serde_json::from_str::<Outcome>(&json).unwrap(), outcome);
        }
    }

    #[test]
    fn all_holds_every_outcome_once() {
        // The array's length is the variant count (a compile error otherwise); a duplicate in
        // place of a missing outcome is caught here.
        let all: std::collections::BTreeSet<_> = Outcome::ALL.iter().copied().collect();
        let variants: std::collections::BTreeSet<_> = <Outcome as strum::VariantArray>::VARIANTS
            .iter()
            .copied()
            .collect();
        assert_eq!(all, variants);
        assert_eq!(all.len(), Outcome::ALL.len());
    }

    #[test]
    fn layers_follow_the_design_table() {
        assert_eq!(Outcome::Timeout.layer(), Layer::Transport);
        assert_eq!(Outcome::InvalidToolResult.layer(), Layer::Protocol);
        assert_eq!(Outcome::InputRequired.layer(), Layer::Interaction);
        assert_eq!(Outcome::ToolError.layer(), Layer::Application);
        assert_eq!(Outcome::UnclassifiedError.layer(), Layer::Unknown);
    }
}
