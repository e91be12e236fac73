//! Writing one recorded exchange as a family of cases: the recorded answer, and one variant per
//! `--fault`, each with the expectation the reference classifier gives its reply.

use super::case_text::{CaseText, escape_controls};
use super::exchange::Exchange;
use super::expect::{classify_reply, expectation};
use super::fault::{Fault, Faulted, STALL_TIMEOUT_MS};
use super::reply::{Recorded, media_type};
use super::session::Session;
use crate::case::model::DEFAULT_TIMEOUT_MS;
use crate::case::{CaseSource, End, Expect, MAX_DURATION_MS, Reply, Tool};
use crate::classify::Classification;
use crate::era::{DEFAULT_VERSION, KNOWN_VERSIONS};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A case file written.
#[derive(Debug, Clone)]
pub struct Written {
    /// Its path.
    pub path: PathBuf,
    /// `recorded`, or the fault's name.
    pub variant: String,
    /// Its expectation.
    pub expect: Expect,
    /// The classifier's reason, for review.
    pub reason: String,
}

/// What happened to one case of a family.
#[derive(Debug, Clone)]
pub enum Report {
    /// It was written.
    Wrote(Written),
    /// It was not, and why.
    Skipped {
        /// The file it would have been.
        path: PathBuf,
        /// Why not.
        why: String,
    },
}

impl std::fmt::Display for Report {
    /// One line for review: `wrote PATH: expect OUTCOME (status, code): the reason`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Report::Wrote(w) => {
                let mut expect = w.expect.outcome.to_string();
                if let Some(status) = w.expect.status {
                    expect.push_str(&format!(" status {status}"));
                }
                if let Some(code) = w.expect.code {
                    expect.push_str(&format!(" code {code}"));
                }
                if let Some(posts) = w.expect.tool_posts {
                    expect.push_str(&format!(" tool_posts {posts}"));
                }
                write!(
                    f,
                    "wrote {}: expect {expect}: {}",
                    w.path.display(),
                    w.reason
                )
            }
            Report::Skipped { path, why } => write!(f, "skipped {}: {why}", path.display()),
        }
    }
}

/// Writes the cases of `exchange` into `dir` as `STEM.toml` and `STEM-FAULT.toml`. A file
/// that exists is never overwritten (reported as skipped).
pub fn write_family(
    dir: &Path,
    stem: &str,
    exchange: &Exchange,
    session: &Session,
    faults: &[Fault],
) -> Vec<Report> {
    let base = dir.join(format!("{stem}.toml"));
    if let Some(why) = exchange.unusable() {
        return vec![Report::Skipped { path: base, why }];
    }
    let recorded = match Recorded::of(exchange) {
        Ok(recorded) => recorded,
        Err(why) => return vec![Report::Skipped { path: base, why }],
    };
    let family = Family::new(exchange, session, &recorded.notes);
    let as_recorded = match recorded.end {
        End::Stall => Faulted {
            replies: vec![recorded.reply()],
            timeout_ms: Some(STALL_TIMEOUT_MS),
        },
        _ => one(recorded.reply()),
    };
    let mut reports = vec![family.write(&base, "recorded", as_recorded, None)];
    for (at, fault) in faults.iter().enumerate() {
        // The same fault twice is one variant (its file is the same).
        if faults[..at].contains(fault) {
            continue;
        }
        let path = dir.join(format!("{stem}-{fault}.toml"));
        let report = match fault.apply(&recorded) {
            Ok(faulted) => family.write(&path, &fault.to_string(), faulted, Some(*fault)),
            Err(why) => Report::Skipped { path, why },
        };
        reports.push(report);
    }
    reports
}

fn one(reply: Reply) -> Faulted {
    Faulted {
        replies: vec![reply],
        timeout_ms: None,
    }
}

/// What the cases of one exchange share.
struct Family<'a> {
    exchange: &'a Exchange,
    tool: Tool,
    version: String,
    arguments: String,
    notes: Vec<String>,
    /// The tool without its schemas, when it has any: the fallback for a case that would not
    /// load with them.
    without_schemas: Option<Tool>,
}

impl<'a> Family<'a> {
    fn new(exchange: &'a Exchange, session: &Session, answer_notes: &[String]) -> Self {
        let name = exchange.tool_name().unwrap_or("synthetic");
        let (tool, mut notes) = session.tool(name);
        notes.extend(answer_notes.iter().cloned());
        let version = version(exchange, session, &mut notes);
        let arguments = match exchange.request.pointer("/params/arguments") {
            Some(args) if args.is_object() => args.to_string(),
            _ => "{}".to_owned(),
        };
        let without_schemas =
            (tool.input_schema.is_some() || tool.output_schema.is_some()).then(|| Tool {
                input_schema: None,
                output_schema: None,
                ..tool.clone()
            });
        Family {
            exchange,
            tool,
            version,
            arguments,
            notes,
            without_schemas,
        }
    }

    fn write(&self, path: &Path, variant: &str, faulted: Faulted, fault: Option<Fault>) -> Report {
        let (classification, expect) = self.judge(&faulted, fault);
        let waited = patience(&faulted);
        let status = self.exchange.status;
        let media = media_type(self.exchange.header("content-type"));
        let answered = format!("answered {status} {media}").trim_end().to_owned();
        let tool = &self.tool.name;
        let summary = match fault {
            None => format!(
                "Recorded from {}: tools/call {tool} {answered}",
                self.exchange.origin
            ),
            Some(fault) => format!(
                "Recorded from {}: tools/call {tool} {answered}, with the fault {fault}",
                self.exchange.origin
            ),
        };
        // A summary is one line of text: a name or URL with control characters shows them escaped.
        let summary = escape_controls(&summary);
        let mut notes = vec![format!(
            "Written by mcp-error-layers from a recorded exchange ({variant}); the expectation is \
             the reference classifier's: {}",
            classification.reason
        )];
        notes.extend(self.notes.iter().cloned());
        notes.extend(waited.note);
        let mut text = CaseText {
            notes,
            summary,
            protocol_version: &self.version,
            tool: &self.tool,
            arguments: self.arguments.clone(),
            timeout_ms: waited.timeout_ms,
            expect: &expect,
            replies: &faulted.replies,
        };
        let path = path.to_path_buf();
        let saved = match loads(&path, &text.render()) {
            Ok(()) => save(&path, &text.render()),
            // What TOML or the case format cannot take is most likely in a server's schema
            // (nesting past the TOML parser's depth): the case goes without the schemas.
            Err(why) if self.without_schemas.is_some() => {
                text.tool = self.without_schemas.as_ref().unwrap_or(&self.tool);
                text.notes.push(format!(
                    "the tool's schemas are left out: with them the case would not load ({why})"
                ));
                let rendered = text.render();
                loads(&path, &rendered)
                    .map_err(unloadable)
                    .and_then(|()| save(&path, &rendered))
            }
            Err(why) => Err(unloadable(why)),
        };
        match saved {
            Ok(()) => Report::Wrote(Written {
                path,
                variant: variant.to_owned(),
                expect,
                reason: classification.reason,
            }),
            Err(why) => Report::Skipped { path, why },
        }
    }

    /// The classifier's judgement of the reply a client gets. After `http-503-before` that is
    /// the 503, unless the tool is read-only or idempotent: then a correct client may send the
    /// call again (the retry table, cases/README.md), and the recorded answer decides.
    fn judge(&self, faulted: &Faulted, fault: Option<Fault>) -> (Classification, Expect) {
        let request = &self.exchange.request;
        let repeatable = ["readOnlyHint", "idempotentHint"]
            .iter()
            .any(|hint| self.tool.annotations.get(*hint) == Some(&toml::Value::Boolean(true)));
        let decisive = match (fault, faulted.replies.as_slice()) {
            (Some(Fault::Http503Before), [_, recorded]) if repeatable => recorded,
            (_, [first, ..]) => first,
            // Never: every variant has a reply.
            (_, []) => {
                return (
                    Classification::connection_error("no reply"),
                    Expect::new(crate::outcome::Outcome::ConnectionError),
                );
            }
        };
        let classification = classify_reply(decisive, request);
        let mut expect = expectation(&classification);
        if fault == Some(Fault::Http503Before) {
            expect.tool_posts = Some(if repeatable { 2 } else { 1 });
        }
        (classification, expect)
    }
}

/// The call's timeout, and why it is not the default.
struct Patience {
    timeout_ms: Option<u64>,
    note: Option<String>,
}

/// The timeout a replay needs: the fault's, else the default unless the recorded waits (each
/// reply's delay and the gaps between its events) come within [`TIMEOUT_MARGIN_MS`] of it;
/// then the waits plus the default, so that the reply arrives well before the deadline.
fn patience(faulted: &Faulted) -> Patience {
    if faulted.timeout_ms.is_some() {
        return Patience {
            timeout_ms: faulted.timeout_ms,
            note: None,
        };
    }
    let waits = faulted.replies.iter().fold(0u64, |sum, reply| {
        let gaps = reply
            .event_gap_ms
            .saturating_mul(u64::try_from(reply.event.len()).unwrap_or(u64::MAX));
        sum.saturating_add(reply.delay_ms).saturating_add(gaps)
    });
    if waits.saturating_add(TIMEOUT_MARGIN_MS) <= DEFAULT_TIMEOUT_MS {
        return Patience {
            timeout_ms: None,
            note: None,
        };
    }
    let timeout_ms = waits
        .saturating_add(DEFAULT_TIMEOUT_MS)
        .min(MAX_DURATION_MS);
    Patience {
        timeout_ms: Some(timeout_ms),
        note: Some(format!(
            "the recorded answer takes {waits} ms to arrive, more than the default timeout of \
             {DEFAULT_TIMEOUT_MS} ms allows with a margin of {TIMEOUT_MARGIN_MS} ms: the call's \
             timeout_ms is {timeout_ms}"
        )),
    }
}

/// How far before the default timeout a recorded answer must arrive to keep it: 1 s.
const TIMEOUT_MARGIN_MS: u64 = 1_000;

/// The case's protocol version: the request's `MCP-Protocol-Version`, else what `initialize`
/// agreed on, else the 2025 default; one that cases cannot name becomes the nearest they can,
/// with a note.
fn version(exchange: &Exchange, session: &Session, notes: &mut Vec<String>) -> String {
    let seen = exchange
        .protocol_version
        .clone()
        .or_else(|| session.protocol_version.clone());
    let Some(seen) = seen else {
        notes.push("no protocol version was recorded: the case uses 2025-06-18".to_owned());
        return KNOWN_VERSIONS[0].to_owned();
    };
    if KNOWN_VERSIONS.contains(&seen.as_str()) {
        return seen;
    }
    let nearest = match seen.as_str() < KNOWN_VERSIONS[0] {
        true => KNOWN_VERSIONS[0],
        false => DEFAULT_VERSION,
    };
    notes.push(format!(
        "the recorded protocol version {seen} is not one cases name: the case uses {nearest}"
    ));
    nearest.to_owned()
}

/// What a skipped case says when it would not load: nothing `record` or `import` knows of
/// should make one.
fn unloadable(why: String) -> String {
    format!("the written case would not load ({why}); please report this")
}

/// Checks that `text` loads as a case.
fn loads(path: &Path, text: &str) -> Result<(), String> {
    let source = CaseSource {
        id: path.with_extension("").display().to_string(),
        origin: path.display().to_string(),
        text: Ok(text.to_owned()),
    };
    source.load().map(drop).map_err(|e| e.to_string())
}

/// Writes `text` to a new file.
fn save(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => {
                "the file exists; choose another --out folder or remove it".to_owned()
            }
            _ => format!("cannot create it: {e}"),
        })?;
    file.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write it: {e}"))
}

/// Checks that cases can be written into `dir`: creates it, then a file in it (removed at
/// once). `Err` names the folder and says why, before any exchange is lost to it.
pub fn writable_out(dir: &Path) -> Result<(), String> {
    let cannot =
        |e: std::io::Error| format!("--out {}: cannot write cases there: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(cannot)?;
    let probe = dir.join(format!(".mcp-error-layers-probe-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(cannot)?;
    std::fs::remove_file(&probe).map_err(cannot)
}

/// The file stem of the `n`-th exchange (from 1), calling `tool`: `001-add_numbers`. The name
/// keeps letters, digits, `-` and `_` (others become `_`), at most 40 of them.
pub fn stem(n: usize, tool: &str) -> String {
    let word: String = tool
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .take(40)
        .collect();
    match word.is_empty() {
        true => format!("{n:03}-call"),
        false => format!("{n:03}-{word}"),
    }
}
