//! Reports: one run's records written as TAP 14 (or 13), JUnit XML, JSON and an HTML matrix.
//!
//! What this module documents is what a user names: where the reports go ([`ReportPaths`],
//! one path per [`Format`], for [`Config::reports`](crate::Config::reports)) and the JSON
//! report's schema ([`json`]), for tools that read reports. The formats, the schema and the
//! environment variables are described in `docs/reports.md`.
//!
//! Behind them: every writer reads the same `RunReport`, which
//! holds one record per case (and per call inside it) as the runner kept them; libtest's own
//! output keeps only counts. Each format is a `Reporter`; `write_all` writes the ones a run asks
//! for. Every format reads each case's standing, decided once by the runner, so the formats
//! agree with each other and with the libtest result case by case.

use crate::explain::Mismatch;
use crate::record::{CallRecord, CaseRecord};
pub use crate::standing::Status;
use crate::verdict::Verdict;
pub use counts::Counts;
use serde::Serialize;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

pub use format::{Format, REPORT_DIR_VAR, ReportPaths, TAP_VERSION_VAR};
pub use settings::RunSettings;

mod counts;
pub mod diff;
mod format;
pub mod history;
pub mod html;
pub mod json;
pub mod junit;
pub mod merge;
pub mod settings;
pub mod shard;
pub mod tap;

/// Who was tested, with what: the header of every report.
#[derive(Debug, Clone, Serialize)]
pub struct AdapterInfo {
    /// The adapter's name (`reference`, `typescript-sdk`, ...).
    pub name: String,
    /// The version of the client under test, when known.
    pub version: Option<String>,
}

/// One run: which adapter, which protocol version, every case record in id order.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// The adapter.
    pub adapter: AdapterInfo,
    /// The protocol version the run forced, or `None` when each case chose its own.
    pub protocol_version: Option<String>,
    /// Whether SHOULD-grade mismatches fail the run.
    pub strict: bool,
    /// The settings that decided its verdicts.
    pub settings: RunSettings,
    /// The run's wall time (not the sum of its cases', which ran at once).
    pub duration: std::time::Duration,
    /// The case records, sorted by id.
    pub cases: Vec<CaseRecord>,
    /// Which shard of a split run this is ([`Run::shard`](crate::engine::Run::shard)); the
    /// JSON report carries it for `report merge`.
    pub shard: Option<shard::ShardInfo>,
}

impl RunReport {
    /// The `run` flags that run it again ([`RunSettings::flags`]).
    pub fn flags(&self) -> String {
        self.settings.flags(settings::Named {
            adapter: &self.adapter.name,
            version: self.adapter.version.as_deref(),
            protocol_version: self.protocol_version.as_deref(),
            strict: self.strict,
        })
    }

    /// This run with every standing decided again under `rules` (and `strict` to match), as a
    /// run under those rules would have had them.
    pub fn under(&self, rules: &crate::rules::Rules) -> RunReport {
        let mut report = self.clone();
        report.strict = rules.strict;
        report.cases.iter_mut().for_each(|case| rules.apply(case));
        report
    }
}

/// A report that could not be written: which file, and why.
#[derive(Debug, thiserror::Error)]
#[error("cannot write report {path}: {source}")]
pub struct ReportError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// One report format's writer. Every format reads the same [`RunReport`]; [`write_all`] writes
/// the ones a run asks for. A new format is one file implementing this trait plus one arm in
/// each of [`Format`]'s methods (the compiler lists them): the CLI, the environment variables
/// and the messages follow from [`Format::ALL`].
pub trait Reporter {
    /// The format's name for messages (`TAP`, `JUnit`, `JSON`, `HTML`).
    fn format(&self) -> &'static str;

    /// Writes `report` in this format.
    fn write(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()>;

    /// The report as text.
    fn render(&self, report: &RunReport) -> io::Result<String> {
        let mut out = Vec::new();
        self.write(report, &mut out)?;
        String::from_utf8(out).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

/// Writes every report `paths` asks for, creating parent folders as needed.
pub fn write_all(report: &RunReport, paths: &ReportPaths) -> Result<(), ReportError> {
    for (format, path) in paths.iter() {
        let reporter = paths.reporter(format).map_err(|why| ReportError {
            path: path.to_owned(),
            source: io::Error::other(why),
        })?;
        write_file(path, |out| reporter.write(report, out))?;
    }
    Ok(())
}

/// Creates `path` (and its parent folders) and fills it with `fill`; any error names the path.
pub fn write_file(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), ReportError> {
    let named = |source| ReportError {
        path: path.to_owned(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(named)?;
    }
    let mut out = BufWriter::new(File::create(path).map_err(named)?);
    fill(&mut out).map_err(named)?;
    // An explicit flush: dropping a BufWriter would swallow a late write error.
    out.flush().map_err(named)
}

/// One line saying what went wrong: per call that did not pass, expected vs observed and what
/// differs ([`Mismatch::one_line`]); why the case did not run; or that a baseline entry is stale. Empty for a case whose calls all passed.
pub fn mismatch_line(record: &CaseRecord) -> String {
    if let Some(error) = &record.error {
        return format!("case did not run: {}", one_line(error));
    }
    if let crate::standing::Standing::Stale(why) = &record.standing {
        return format!(
            "passes now: remove it from the baseline (it was accepted because: {})",
            one_line(why)
        );
    }
    let numbered = record.calls.len() > 1;
    let lines: Vec<String> = record
        .calls
        .iter()
        .enumerate()
        .filter(|(_, call)| call.verdict != Verdict::Pass)
        .map(|(index, call)| {
            let lead = if numbered {
                format!("call {index}: ")
            } else {
                String::new()
            };
            format!("{lead}{}", one_line(&Mismatch::of(call).one_line()))
        })
        .collect();
    lines.join("; ")
}

/// What the adapter left on the side for this call (an adapter program's stderr, the
/// driver's notes), when it left anything but whitespace.
pub fn adapter_log(call: &CallRecord) -> Option<&str> {
    call.adapter_log
        .as_deref()
        .filter(|log| !log.trim().is_empty())
}

/// `text` on one line: line breaks and tabs become spaces, so that a message fits in a TAP
/// directive or an XML attribute without changing its meaning.
pub(crate) fn one_line(text: &str) -> String {
    let joined: Vec<&str> = text.split_whitespace().collect();
    joined.join(" ")
}
