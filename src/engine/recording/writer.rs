//! Writing one recorded exchange as a family of cases: the recorded answer, and one variant per
//! `--fault`, each with the expectation the reference classifier gives its reply.

use super::case_text::CaseText;
use super::exchange::Exchange;
use super::expect::{classify_reply, expectation};
use super::fault::{Fault, Faulted};
use super::reply::{Recorded, media_type};
use super::session::Session;
use crate::case::{CaseSource, Expect, Reply, Tool};
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
    let recorded = match Recorded::of(exchange) {
        Ok(recorded) => recorded,
        Err(why) => return vec![Report::Skipped { path: base, why }],
    };
    let family = Family::new(exchange, session);
    let mut reports = vec![family.write(&base, "recorded", one(recorded.reply()), None)];
    for fault in faults {
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
}

impl<'a> Family<'a> {
    fn new(exchange: &'a Exchange, session: &Session) -> Self {
        let name = exchange.tool_name().unwrap_or("synthetic");
        let (tool, mut notes) = session.tool(name);
        let version = version(exchange, session, &mut notes);
        let arguments = match exchange.request.pointer("/params/arguments") {
            Some(args) if args.is_object() => args.to_string(),
            _ => "{}".to_owned(),
        };
        Family {
            exchange,
            tool,
            version,
            arguments,
            notes,
        }
    }

    fn write(&self, path: &Path, variant: &str, faulted: Faulted, fault: Option<Fault>) -> Report {
        let (classification, expect) = self.judge(&faulted, fault);
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
        let mut notes = vec![format!(
            "Written by mcp-error-layers from a recorded exchange ({variant}); the expectation is \
             the reference classifier's: {}",
            classification.reason
        )];
        notes.extend(self.notes.iter().cloned());
        let text = CaseText {
            notes,
            summary,
            protocol_version: &self.version,
            tool: &self.tool,
            arguments: self.arguments.clone(),
            timeout_ms: faulted.timeout_ms,
            expect: &expect,
            replies: &faulted.replies,
        }
        .render();
        let path = path.to_path_buf();
        match save(&path, &text) {
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

/// Checks that `text` loads as a case, then writes it to a new file.
fn save(path: &Path, text: &str) -> Result<(), String> {
    let source = CaseSource {
        id: path.with_extension("").display().to_string(),
        origin: path.display().to_string(),
        text: Ok(text.to_owned()),
    };
    source
        .load()
        .map_err(|e| format!("the written case would not load ({e}); please report this"))?;
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
