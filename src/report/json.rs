//! The JSON report: schema `mcp-error-layers/report/v1`, documented in `docs/reports.md`.
//!
//! The types below are the schema: the writer serializes them and the reader
//! ([`JsonReport::read`]) deserializes the same types, so the two cannot drift apart. Keys come
//! out in declaration order. Within v1 fields are only added, never renamed or removed, and
//! readers ignore keys they do not know; anything else moves to `v2`.

use super::settings::millis;
use super::shard::ShardInfo;
use super::{Counts, Reporter, RunReport, RunSettings, adapter_log};
// The types the schema names, re-exported so that a reader of reports finds them here.
pub use crate::case::{Expect, Grade};
use crate::checks::Check;
use crate::explain::{expected, observed};
pub use crate::fidelity::LayerFidelity;
use crate::observation::AdapterReport;
use crate::record::{CallRecord, CaseRecord};
pub use crate::standing::Status;
use crate::transcript;
pub use crate::verdict::Verdict;
use crate::wire::{Ended, Exchange};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The schema id every report carries in its `schema` key.
pub const SCHEMA: &str = "mcp-error-layers/report/v1";

/// The JSON writer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl Reporter for Json {
    fn format(&self) -> &'static str {
        "JSON"
    }

    fn write(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &JsonReport::from_run(report))?;
        writeln!(out)
    }
}

/// One run, as the JSON report holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonReport {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// What wrote the report: `mcp-error-layers 0.1.0`.
    pub generator: String,
    /// The client under test.
    pub adapter: JsonAdapter,
    /// The protocol version the run forced; `null` when each case chose its own.
    pub protocol_version: Option<String>,
    /// Whether SHOULD-grade mismatches failed the run.
    pub strict: bool,
    /// The settings that decided the verdicts, and the `run` flags that repeat them (added in
    /// v1 later; absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<JsonSettings>,
    /// The run's wall time; in a merged report the longest shard's, since shards run side by
    /// side (added in v1 later; absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The counts.
    pub summary: JsonSummary,
    /// One entry per case, in id order.
    pub cases: Vec<JsonCase>,
    /// Which shard of a split run this report holds (`run --shard K/N`); absent in a whole
    /// run's report, and in the report `report merge` joins from the shards (added in v1 later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
}

/// The settings of the run, and the flags that spell them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsonSettings {
    /// The settings.
    #[serde(flatten)]
    pub settings: RunSettings,
    /// The same as `mcp-error-layers run` flags ([`RunSettings::flags`]): the flags that run
    /// the cases again as this run did (for an adapter program, with its command after `--`).
    pub flags: String,
}

/// The adapter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonAdapter {
    /// Its name.
    pub name: String,
    /// The client's version, when known.
    pub version: Option<String>,
}

impl JsonAdapter {
    /// `name version`, or the name alone when the version is unknown: how the matrix and
    /// `diff` name a run.
    pub fn label(&self) -> String {
        label(&self.name, self.version.as_deref())
    }
}

/// `name version`, or `name` when there is no version.
pub(crate) fn label(name: &str, version: Option<&str>) -> String {
    match version {
        Some(version) => format!("{name} {version}"),
        None => name.to_owned(),
    }
}

/// How many cases ended how, and how many had each verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonSummary {
    /// All cases.
    pub cases: usize,
    /// Cases that passed outright.
    pub passed: usize,
    /// Cases that fail the run.
    pub failed: usize,
    /// Mismatches whose grade does not fail the run.
    pub warnings: usize,
    /// Unsupported cases.
    pub skipped: usize,
    /// Deviations the baseline accepts (added in v1.1; 0 when absent).
    #[serde(default)]
    pub accepted: usize,
    /// Cases by verdict.
    pub verdicts: VerdictCounts,
    /// Of the cases the adapter did not decline, how many it reported in the layer a correct
    /// client names, for every call (added in v1 later; absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer_fidelity: Option<LayerFidelity>,
    /// An agent's run (`settings.agent`): its layer fidelity, which for an agent is its *model
    /// fidelity*: of the cases where a correct client reports a definite layer, in how many
    /// the model was told that layer (added in v1 later; absent for other clients).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_fidelity: Option<LayerFidelity>,
    /// A bridge's run (`settings.bridge`): its *hop fidelity*, of the cases it ran, in how
    /// many every call arrived downstream with its upstream layer's facts intact
    /// (docs/bridges.md; added in v1 later; absent for other clients).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hop_fidelity: Option<LayerFidelity>,
    /// Cases with a call judged coarsely: on its request checks and server counts only, the
    /// adapter telling only success or error (added in v1 later; absent when 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub coarse: usize,
}

/// Cases by verdict (a case's verdict is the worst of its calls').
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VerdictCounts {
    /// `pass`.
    pub pass: usize,
    /// `unsupported`.
    pub unsupported: usize,
    /// `fail`.
    pub fail: usize,
    /// `hang`.
    pub hang: usize,
    /// `adapter-error`.
    #[serde(rename = "adapter-error")]
    pub adapter_error: usize,
}

/// One case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonCase {
    /// The case id (`sse/final-result`).
    pub id: String,
    /// Its one-line summary.
    pub summary: String,
    /// `must`, `should` or `info`.
    pub grade: Grade,
    /// The worst verdict of its calls.
    pub verdict: Verdict,
    /// `pass`, `fail`, `warn` or `skip`: the coarse standing (`warn` covers warnings and
    /// accepted deviations).
    pub status: Status,
    /// Whether the case fails the run.
    pub fails_run: bool,
    /// Where the case leaves the run: `pass`, `accepted`, `warning`, `fail`, `hang`,
    /// `adapter-error`, `stale` or `unsupported` (added in v1.1; absent: read from `status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standing: Option<String>,
    /// The standing's reason: the baseline's for `accepted` and `stale`, the grade's for
    /// `warning`, the adapter's for `unsupported`; `null` otherwise.
    #[serde(default)]
    pub reason: Option<String>,
    /// Why the case did not run at all (a file that does not load), else `null`.
    pub error: Option<String>,
    /// Wall time of the case.
    pub duration_ms: u64,
    /// One entry per call that ran.
    pub calls: Vec<JsonCall>,
    /// What the server saw.
    pub server: JsonServer,
    /// The transcript as text, as failures show it.
    pub transcript: String,
}

/// One request check of a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonCheck {
    /// Its name (`accept-header`).
    pub name: String,
    /// `must`, `should` or `info`.
    pub grade: Grade,
    /// Whether it passed.
    pub passed: bool,
    /// The first failure, empty when it passed.
    #[serde(default)]
    pub detail: String,
}

impl JsonCheck {
    fn of(check: &Check) -> Self {
        JsonCheck {
            name: check.name.to_owned(),
            grade: check.grade,
            passed: check.passed,
            detail: check.detail.clone(),
        }
    }
}

/// One call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonCall {
    /// The expectation that applied, as the case file names it: `expect`, or `expect_session`
    /// when the client fell back to a 2025 session in a 2026-07-28 case.
    pub expected: Expect,
    /// The protocol version the client spoke in the call, as the server saw it (added in v1
    /// later; absent in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spoken: Option<String>,
    /// Whether the client fell back to a 2025 session in a 2026-07-28 case (added in v1 later;
    /// absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fell_back: bool,
    /// The adapter's report (an observation or `{"unsupported": why}`); `null` after a hang
    /// or a crash.
    pub observed: Option<AdapterReport>,
    /// The call's verdict.
    pub verdict: Verdict,
    /// The mismatches with the expectation, or what went wrong.
    pub problems: Vec<String>,
    /// The request checks that applied, passed or not.
    #[serde(default)]
    pub checks: Vec<JsonCheck>,
    /// `tools/call` POSTs the server received during the call.
    pub tool_posts: u32,
    /// Wall time of the call.
    pub duration_ms: u64,
    /// `expected` in words: `HTTP_ERROR status=503 tool_posts=1`.
    pub expected_text: String,
    /// `observed` in words.
    pub observed_text: String,
    /// What an out-of-process adapter wrote to stderr, when it was kept.
    #[serde(default)]
    pub adapter_log: Option<String>,
    /// Whether the verdict left the outcome, status and code aside: the adapter tells only
    /// success or error (a conformance client's exit status) and the expectation needs more
    /// (added in v1 later; absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub coarse: bool,
}

/// The server's record of a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonServer {
    /// Every request in arrival order, with what went back.
    pub exchanges: Vec<JsonExchange>,
}

/// One request and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonExchange {
    /// Milliseconds since the server started.
    pub at_ms: u64,
    /// Which call was current (0-based).
    pub call: usize,
    /// The HTTP method.
    pub http_method: String,
    /// The request target.
    pub path: String,
    /// The JSON-RPC method, when the body had one.
    pub jsonrpc_method: Option<String>,
    /// The headers as received, `[name, value]` pairs with lowercase names.
    pub headers: Vec<(String, String)>,
    /// The request body (lossy UTF-8), as much of it as the record kept.
    pub body: String,
    /// How many bytes of the request the record did not keep (its bounds); absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped: usize,
    /// What the server sent back.
    pub reply: JsonReply,
}

/// What the server sent back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonReply {
    /// `script` (a case reply), `prelude` or `error`.
    pub by: String,
    /// The status, when a status line went out.
    pub status: Option<u16>,
    /// How the exchange ended: `complete`, `close`, `reset`, `stall` or `cut`.
    pub end: String,
    /// The bytes written, head and body, as text (capped).
    pub bytes: String,
    /// How many bytes written the record did not keep (its bounds); absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A JSON report that cannot be read: which file, and why.
#[derive(Debug, thiserror::Error)]
pub enum ReportReadError {
    /// The file cannot be read: it is missing, not a regular file, or past
    /// [`Kind::Report`](crate::input::Kind::Report)'s bound.
    #[error("cannot read report {path}: {}", source.why())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::input::InputError,
    },
    /// The file is not JSON, or not in the shape of the schema.
    #[error("report {path} is not a {SCHEMA} report: {source}")]
    Shape {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// The file names another schema (or none).
    #[error("report {path} has schema {found}; this build reads {SCHEMA}")]
    Schema {
        /// The file.
        path: PathBuf,
        /// The `schema` it names.
        found: String,
    },
}

impl JsonReport {
    /// The JSON view of one run.
    pub fn from_run(report: &RunReport) -> Self {
        let strict = report.strict;
        JsonReport {
            schema: SCHEMA.to_owned(),
            generator: format!("mcp-error-layers {}", env!("CARGO_PKG_VERSION")),
            adapter: JsonAdapter {
                name: report.adapter.name.clone(),
                version: report.adapter.version.clone(),
            },
            protocol_version: report.protocol_version.clone(),
            strict,
            settings: Some(JsonSettings {
                settings: report.settings.clone(),
                flags: report.flags(),
            }),
            duration_ms: Some(millis(report.duration)),
            summary: JsonSummary::of(report),
            cases: report.cases.iter().map(JsonCase::of).collect(),
            shard: report.shard.clone(),
        }
    }

    /// Reads the report at `path`, checking its schema first so that a report of another
    /// version says so instead of failing on a missing key.
    pub fn read(path: &Path) -> Result<Self, ReportReadError> {
        let text =
            crate::input::read_to_string(path, crate::input::Kind::Report).map_err(|source| {
                ReportReadError::Io {
                    path: path.to_owned(),
                    source,
                }
            })?;
        Self::parse(&text, path)
    }

    /// Parses a report's text; `path` only names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ReportReadError> {
        let shape = |source| ReportReadError::Shape {
            path: path.to_owned(),
            source,
        };
        let value: serde_json::Value = serde_json::from_str(text).map_err(shape)?;
        match value.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => serde_json::from_value(value).map_err(shape),
            other => Err(ReportReadError::Schema {
                path: path.to_owned(),
                found: other.map_or_else(|| "(none)".to_owned(), str::to_owned),
            }),
        }
    }
}

impl JsonSummary {
    /// The summary in the words of every other one (`report::Counts`).
    pub fn counts(&self) -> Counts {
        Counts {
            cases: self.cases,
            passed: self.passed,
            accepted: self.accepted,
            warnings: self.warnings,
            failed: self.failed,
            skipped: self.skipped,
            hangs: self.verdicts.hang,
            adapter_errors: self.verdicts.adapter_error,
            coarse: self.coarse,
        }
    }

    fn of(report: &RunReport) -> Self {
        let counts = Counts::of(&report.cases);
        let mut verdicts = VerdictCounts::default();
        for case in &report.cases {
            *match case.verdict {
                Verdict::Pass => &mut verdicts.pass,
                Verdict::Unsupported => &mut verdicts.unsupported,
                Verdict::Fail => &mut verdicts.fail,
                Verdict::Hang => &mut verdicts.hang,
                Verdict::AdapterError => &mut verdicts.adapter_error,
            } += 1;
        }
        JsonSummary {
            cases: counts.cases,
            passed: counts.passed,
            failed: counts.failed,
            warnings: counts.warnings,
            skipped: counts.skipped,
            accepted: counts.accepted,
            verdicts,
            layer_fidelity: Some(LayerFidelity::of(&report.cases)),
            model_fidelity: report
                .settings
                .agent
                .then(|| LayerFidelity::of(&report.cases)),
            hop_fidelity: report
                .settings
                .bridge
                .map(|_| crate::hop::hop_fidelity(&report.cases)),
            coarse: counts.coarse,
        }
    }
}

impl JsonCase {
    fn of(record: &CaseRecord) -> Self {
        JsonCase {
            id: record.id.clone(),
            summary: record.summary.clone(),
            grade: record.grade,
            verdict: record.verdict,
            status: record.standing.status(),
            fails_run: record.standing.fails_run(),
            standing: Some(record.standing.as_str().to_owned()),
            reason: record.standing.reason().map(str::to_owned),
            error: record.error.clone(),
            duration_ms: millis(record.duration),
            calls: record.calls.iter().map(JsonCall::of).collect(),
            server: JsonServer {
                exchanges: record.exchanges.iter().map(JsonExchange::of).collect(),
            },
            transcript: transcript::render(&record.exchanges),
        }
    }
}

impl JsonCase {
    /// The standing word; from `status` for a report written before `standing` existed.
    pub fn standing_word(&self) -> &str {
        match (&self.standing, self.status) {
            (Some(word), _) => word,
            (None, Status::Pass) => "pass",
            (None, Status::Warn) => "warning",
            (None, Status::Skip) => "unsupported",
            (None, Status::Fail) => self.verdict.as_str(),
        }
    }
}

impl JsonCall {
    fn of(call: &CallRecord) -> Self {
        JsonCall {
            expected: call.expect.clone(),
            spoken: Some(call.spoken.clone()),
            fell_back: call.fell_back,
            observed: call.report.clone(),
            verdict: call.verdict,
            problems: call.problems.clone(),
            checks: call.checks.iter().map(JsonCheck::of).collect(),
            tool_posts: call.tool_posts,
            duration_ms: millis(call.duration),
            expected_text: expected(call),
            observed_text: observed(call),
            adapter_log: adapter_log(call).map(str::to_owned),
            coarse: call.coarse,
        }
    }
}

impl JsonExchange {
    fn of(e: &Exchange) -> Self {
        JsonExchange {
            at_ms: e.at_ms,
            call: e.call,
            http_method: e.http_method.to_string(),
            path: e.path.clone(),
            jsonrpc_method: e.jsonrpc_method.clone(),
            headers: e.headers.clone(),
            body: e.body.clone(),
            dropped: e.dropped,
            reply: JsonReply {
                by: e.reply.by.to_string(),
                status: e.reply.status,
                end: Ended::word(e.reply.end).to_owned(),
                bytes: e.reply.bytes.clone(),
                dropped: e.reply.dropped,
            },
        }
    }
}
