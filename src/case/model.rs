//! The case-file model (cases/README.md): what a TOML case file deserializes into.
//!
//! Unknown keys are rejected everywhere (`deny_unknown_fields`), so a typo is an error that
//! names the key instead of a silently ignored option.

use super::auth::Auth;
use super::reply::Reply;
use super::stdio::{StdioReply, Transport};
use crate::outcome::Outcome;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The client timeout of a call that names none.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;

/// One case file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// One line: what the case serves.
    pub summary: String,
    /// Links to the spec text the expectation rests on.
    #[serde(default)]
    pub spec: Vec<String>,
    /// How much a mismatch matters.
    #[serde(default)]
    pub grade: Grade,
    /// The version the adapter should prefer (`era::DEFAULT_VERSION` when it names
    /// none; one of `era::KNOWN_VERSIONS`).
    #[serde(default = "default_protocol_version")]
    pub protocol_version: String,
    /// The parts of the wire this case's replies break on purpose. Everything else the server
    /// sends for it must validate against the official types of its era (checked by
    /// `cargo test --test third_party`), and each part named here must really be broken there.
    #[serde(default)]
    pub breaks_on_purpose: Vec<WirePart>,
    /// What the case is served over: `http` (the default) or `stdio` (the client starts the
    /// harness's stdio server; each call's answers are `[[call.stdio]]`).
    #[serde(default)]
    pub transport: Transport,
    /// What `tools/list` advertises and what the calls name.
    #[serde(default)]
    pub tool: Tool,
    /// The authorization the MCP endpoint asks for (cases/README.md, "Authorization"): the
    /// credentials the client starts with and what the loopback authorization server answers.
    /// Absent: none is asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<Auth>,
    /// The client calls, run in order against one server.
    pub call: Vec<Call>,
}

/// A part of what the server sends, as the wire validation judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WirePart {
    /// The HTTP framing: a status line, the Content-Type of a 2xx body, an empty 202.
    Http,
    /// The JSON-RPC envelope: JSON, `"jsonrpc": "2.0"`, an id that matches, result or error.
    Envelope,
    /// The result, error, request or notification inside it, against its era's schema.
    Result,
}

fn default_protocol_version() -> String {
    crate::era::DEFAULT_VERSION.to_owned()
}

/// How much a mismatch matters (docs/reports.md, "How a case counts").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// A mismatch fails the run.
    #[default]
    Must,
    /// A mismatch is a warning unless the run is strict.
    Should,
    /// Informational only.
    Info,
}

impl Grade {
    /// The word case files and reports use: `must`, `should`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Grade::Must => "must",
            Grade::Should => "should",
            Grade::Info => "info",
        }
    }
}

impl Grade {
    /// Whether a failure of this grade fails a run (SHOULD only when the run is strict).
    pub fn fails(self, strict: bool) -> bool {
        match self {
            Grade::Must => true,
            Grade::Should => strict,
            Grade::Info => false,
        }
    }
}

impl std::fmt::Display for Grade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tool the server advertises.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// Its name, used by `tools/list` and by the calls.
    #[serde(default = "default_tool_name")]
    pub name: String,
    /// Tool annotations (`readOnlyHint`, `idempotentHint`, ...), as a TOML table. Only the keys
    /// of MCP's `ToolAnnotations` load, each with its type ([`Annotations`]): a misspelt hint
    /// would otherwise be advertised as written and silently mean "not read-only".
    #[serde(default, deserialize_with = "Annotations::checked")]
    pub annotations: BTreeMap<String, toml::Value>,
    /// The tool's input JSON Schema, as a TOML table.
    #[serde(default)]
    pub input_schema: Option<toml::Table>,
    /// The tool's output JSON Schema (`outputSchema` in `tools/list`), as a TOML table whose
    /// `type` is `"object"`. A case with one asks the client to list the tools before calling
    /// ([`crate::adapter::CallContext::list_tools`]), as an application does to learn it.
    #[serde(default)]
    pub output_schema: Option<toml::Table>,
    /// Whether the tool may be called as a task (2025-11-25 `execution.taskSupport` in
    /// `tools/list`); none advertised when absent. 2026-07-28 tools have no such field (the
    /// server decides per request, SEP-2663), so only a 2025-11-25 case may set it.
    #[serde(default)]
    pub task_support: Option<TaskSupport>,
}

/// A tool's `execution.taskSupport` (2025-11-25 basic/utilities/tasks, "Tool-Level
/// Negotiation").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// The client MUST NOT call the tool as a task.
    Forbidden,
    /// The client MAY call the tool as a task.
    Optional,
    /// The client MUST call the tool as a task.
    Required,
}

/// MCP's `ToolAnnotations`: what a case's `[tool] annotations` table may hold. Loading goes
/// through this type so that a key outside it or a value of the wrong type is an error naming
/// the key; the tool keeps the table as written (only these keys).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Annotations {
    /// A human-readable title for the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl Annotations {
    /// Deserializes a table as [`Annotations`] and gives it back as the table [`Tool`] keeps.
    fn checked<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<String, toml::Value>, D::Error> {
        use serde::de::Error;
        let typed = Annotations::deserialize(deserializer)?;
        match toml::Value::try_from(typed).map_err(D::Error::custom)? {
            toml::Value::Table(table) => Ok(table.into_iter().collect()),
            _ => Err(D::Error::custom("annotations must be a table")),
        }
    }
}

fn default_tool_name() -> String {
    "synthetic".to_owned()
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: default_tool_name(),
            annotations: BTreeMap::new(),
            input_schema: None,
            output_schema: None,
            task_support: None,
        }
    }
}

/// One client call and the scripted answers to its `tools/call` POSTs.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// What a correct client reports.
    pub expect: Expect,
    /// What a correct client reports when it speaks a 2025 session in this 2026-07-28 case
    /// (it sent `initialize`, which the server offers for the fall back), where the two eras'
    /// rules differ; without it, `expect` holds in either era. See [`Call::expectation`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect_session: Option<Expect>,
    /// The call's arguments, a JSON text (default `{}`).
    #[serde(default)]
    pub arguments: Option<String>,
    /// The client's own timeout for this call.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Which POSTs the replies answer.
    #[serde(default)]
    pub target: Target,
    /// Answers to this call's `tools/call` POSTs in order; the last repeats (HTTP cases).
    #[serde(default)]
    pub reply: Vec<Reply>,
    /// Answers to this call's `tools/call` messages in order; the last repeats (stdio cases).
    #[serde(default)]
    pub stdio: Vec<StdioReply>,
    /// Answers to this call's GET requests with `Last-Event-ID` (SSE resumptions) in order; the
    /// last repeats. Without any, and for a GET without `Last-Event-ID`, the answer is `405`.
    #[serde(default)]
    pub resume: Vec<Reply>,
    /// The application asks for the call as a task ([`crate::adapter::CallContext::task`]):
    /// with `params.task` in 2025-11-25, by declaring the tasks extension in 2026-07-28.
    #[serde(default)]
    pub task: Option<TaskCall>,
    /// Answers to this call's `tasks/get` POSTs in order; the last repeats. Without any the
    /// server's own answer (`-32601`) goes out.
    #[serde(default)]
    pub task_get: Vec<Reply>,
    /// Answers to this call's `tasks/result` POSTs in order (2025-11-25 only; 2026-07-28 has
    /// no `tasks/result`); the last repeats.
    #[serde(default)]
    pub task_result: Vec<Reply>,
    /// Answers to this call's `tasks/cancel` POSTs in order; the last repeats.
    #[serde(default)]
    pub task_cancel: Vec<Reply>,
}

impl Call {
    /// The expectation for a call the client spoke in `spoken` ([`crate::verdict::spoken`]):
    /// `expect_session` when the client spoke a session version and the case names one,
    /// else `expect`.
    pub fn expectation(&self, spoken: &str) -> &Expect {
        match (&self.expect_session, crate::era::Era::of(spoken)) {
            (Some(session), Some(crate::era::Era::Session) | None) => session,
            _ => &self.expect,
        }
    }

    /// The scripted answers to POSTs of the task method `method` (`tasks/get`, `tasks/result`,
    /// `tasks/cancel`), when it is one; `None` for any other method.
    pub fn task_replies(&self, method: &str) -> Option<&[Reply]> {
        match method {
            "tasks/get" => Some(&self.task_get),
            "tasks/result" => Some(&self.task_result),
            "tasks/cancel" => Some(&self.task_cancel),
            _ => None,
        }
    }

    /// Whether the call involves tasks at all: asked for as one, or with task answers scripted.
    pub fn uses_tasks(&self) -> bool {
        self.task.is_some()
            || !self.task_get.is_empty()
            || !self.task_result.is_empty()
            || !self.task_cancel.is_empty()
    }
}

/// How the application asks for a call as a task (`[call.task]`; the adapter contract's
/// `task`, docs/adapters.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TaskCall {
    /// The task lifetime to request, in milliseconds (2025-11-25 `params.task.ttl`); none when
    /// absent. Sent to the server only: nothing waits for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
}

/// Which POSTs a call's replies answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum Target {
    /// Only `tools/call` POSTs; everything else gets the server's built-in answers.
    #[default]
    #[serde(rename = "tools/call")]
    ToolsCall,
    /// Every POST of the call in arrival order, whatever its method (the way some fault
    /// servers count, so `initialize` can take the first reply); once the replies are used up,
    /// `tools/call` gets the last one and everything else the built-in answers.
    #[serde(rename = "every-post")]
    EveryPost,
}

/// The expected observation of one call.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The outcome a correct client reports.
    pub outcome: Outcome,
    /// The HTTP status it reports, when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The JSON-RPC code it reports, when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// How many `tools/call` POSTs the server received during the call, when named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_posts: Option<u32>,
    /// At most this many `tools/call` POSTs (a client that loops must stop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_posts: Option<u32>,
    /// Lower bounds on the gaps between consecutive `tools/call` POSTs, in milliseconds: the
    /// first entry bounds the gap between POSTs 1 and 2, and so on. Never upper bounds: the
    /// machines that run the cases are noisy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub min_gaps_ms: Vec<u64>,
    /// How many `initialize` requests the server received during the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initializes: Option<u32>,
    /// How many GET requests with `Last-Event-ID` (SSE resumptions) the server received during
    /// the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumes: Option<u32>,
    /// How many token requests (POSTs to the authorization server's token endpoint) the server
    /// received during the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_posts: Option<u32>,
    /// How many interactive authorizations the client asked for (requests to the
    /// authorization endpoint) during the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorizations: Option<u32>,
}

impl Expect {
    /// An expectation that names only the outcome.
    pub fn new(outcome: Outcome) -> Self {
        Expect {
            outcome,
            status: None,
            code: None,
            tool_posts: None,
            max_tool_posts: None,
            min_gaps_ms: Vec::new(),
            initializes: None,
            resumes: None,
            token_posts: None,
            authorizations: None,
        }
    }
}
