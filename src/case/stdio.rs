//! Stdio cases (cases/README.md, "Stdio cases"): the transport a case is served over, and what
//! the harness's stdio server writes for a `tools/call` message and how its process ends.
//!
//! Over stdio the HTTP layer is replaced by a process: its faults are lines written badly,
//! streams closed, a process that exits or is killed, and a stderr pipe nobody reads.

use super::problem::{Problem, bounded, json_text};
use serde::{Deserialize, Serialize};

/// The longest line a stdio reply writes, padding included: 16 MiB. A client that reads whole
/// lines needs room for one; past this it tests memory, not error handling.
pub const MAX_LINE_BYTES: u64 = 16 * 1024 * 1024;

/// The most a reply writes to stderr: 16 MiB, 256 times what a pipe holds (64 KiB).
pub const MAX_STDERR_BYTES: u64 = 16 * 1024 * 1024;

/// The most pieces one line is written in.
pub const MAX_SPLIT: u32 = 64;

/// What a case is served over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// Streamable HTTP on a loopback port (`[[call.reply]]`).
    #[default]
    Http,
    /// The client starts the harness's stdio server and speaks newline-delimited JSON-RPC on
    /// its stdin and stdout (`[[call.stdio]]`).
    Stdio,
}

impl Transport {
    /// The word case files, adapters and reports use: `http`, `stdio`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Stdio => "stdio",
        }
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stdio server's answer to one `tools/call` message: lines on stdout, then how it goes on.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StdioReply {
    /// What is written on stdout, in order.
    #[serde(default)]
    pub line: Vec<Line>,
    /// Wait before writing anything.
    #[serde(default)]
    pub delay_ms: u64,
    /// Every line in one write (two messages in one read for the client).
    #[serde(default)]
    pub together: bool,
    /// Written to stderr before the lines, as log text: a client that does not read the
    /// server's stderr fills the pipe and blocks the server here.
    #[serde(default)]
    pub stderr_bytes: u64,
    /// What the process does after the lines.
    #[serde(default)]
    pub end: StdioEnd,
    /// The exit status of `end = "exit"` (0-255; default 1).
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// The signal of `end = "kill"` (default `KILL`).
    #[serde(default)]
    pub signal: Option<Signal>,
}

impl StdioReply {
    /// The exit status an `exit` ending uses.
    pub fn exit_status(&self) -> i32 {
        self.exit_code.unwrap_or(1)
    }
}

/// What the stdio server does after a reply's lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StdioEnd {
    /// Goes on serving.
    #[default]
    Stay,
    /// Exits with `exit_code`.
    Exit,
    /// Kills itself with `signal` (a crash).
    Kill,
    /// Closes its stdout and stays alive, reading stdin, until stdin closes.
    CloseStdout,
}

/// A signal a stdio server kills itself with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Signal {
    /// SIGKILL: no handler runs, as when the OOM killer strikes.
    Kill,
    /// SIGTERM.
    Term,
    /// SIGABRT: an abort (a panic that aborts, a failed assertion in C).
    Abrt,
}

/// One line on the server's stdout.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    /// A JSON text, checked at load time and written compactly, placeholders filled.
    #[serde(default)]
    pub json: Option<String>,
    /// Text written as it is (a log line, half a message), placeholders filled.
    #[serde(default)]
    pub raw: Option<String>,
    /// Whether the line ends with `\n` (default true). Without it the message is never framed.
    #[serde(default = "yes")]
    pub newline: bool,
    /// Written in this many pieces of about equal size, `gap_ms` apart (default 1).
    #[serde(default = "one")]
    pub split: u32,
    /// Wait before this line, and between the pieces of a split line.
    #[serde(default)]
    pub gap_ms: u64,
    /// Pad the line to this many bytes (newline included) by filling the string `"$pad"` in
    /// `json` with `x`s: a line longer than a reader's usual buffer.
    #[serde(default)]
    pub pad_to: Option<u64>,
}

fn yes() -> bool {
    true
}

fn one() -> u32 {
    1
}

/// The string a padded line's `json` holds once, filled to reach `pad_to`.
pub const PAD_PLACEHOLDER: &str = "\"$pad\"";

/// Checks a stdio reply and compacts its JSON texts in place.
pub(super) fn validate_stdio_reply(reply: &mut StdioReply) -> Result<(), Problem> {
    bounded("delay_ms", reply.delay_ms)?;
    if reply.stderr_bytes > MAX_STDERR_BYTES {
        let msg = format!(
            "{} is more than {MAX_STDERR_BYTES} (16 MiB)",
            reply.stderr_bytes
        );
        return Err(("stderr_bytes".into(), msg));
    }
    match (reply.end, reply.exit_code, reply.signal) {
        (StdioEnd::Exit, Some(code), _) if !(0..=255).contains(&code) => {
            let msg = format!("{code} is no exit status (0-255)");
            return Err(("exit_code".into(), msg));
        }
        (end, Some(_), _) if end != StdioEnd::Exit => {
            let msg = "an exit status needs `end = \"exit\"`".to_owned();
            return Err(("exit_code".into(), msg));
        }
        (end, _, Some(_)) if end != StdioEnd::Kill => {
            let msg = "a signal needs `end = \"kill\"`".to_owned();
            return Err(("signal".into(), msg));
        }
        _ => {}
    }
    for (k, line) in reply.line.iter_mut().enumerate() {
        validate_line(line, reply.together)
            .map_err(|(key, msg)| (format!("line[{k}].{key}"), msg))?;
    }
    Ok(())
}

fn validate_line(line: &mut Line, together: bool) -> Result<(), Problem> {
    bounded("gap_ms", line.gap_ms)?;
    match (&mut line.json, &line.raw) {
        (Some(_), Some(_)) | (None, None) => {
            let msg = "give exactly one of `json` and `raw`".to_owned();
            return Err(("json".into(), msg));
        }
        (Some(json), None) => {
            json_text(json).map_err(|msg| ("json".to_owned(), msg))?;
        }
        (None, Some(_)) => {}
    }
    if !(1..=MAX_SPLIT).contains(&line.split) {
        let msg = format!("{} pieces: give 1 to {MAX_SPLIT}", line.split);
        return Err(("split".into(), msg));
    }
    if together && (line.split > 1 || line.gap_ms > 0) {
        let msg = "`together` writes every line in one piece: drop `split` and `gap_ms`";
        return Err(("split".into(), msg.into()));
    }
    if let Some(pad_to) = line.pad_to {
        validate_pad(line.json.as_deref(), pad_to)?;
    }
    Ok(())
}

fn validate_pad(json: Option<&str>, pad_to: u64) -> Result<(), Problem> {
    if pad_to > MAX_LINE_BYTES {
        let msg = format!("{pad_to} is more than {MAX_LINE_BYTES} (16 MiB), the longest line");
        return Err(("pad_to".into(), msg));
    }
    let holds = json.map_or(0, |j| j.matches(PAD_PLACEHOLDER).count());
    if holds != 1 {
        let msg = "padding fills the one string \"$pad\" of `json`: put it in once (in a text \
                   content item, say)";
        return Err(("pad_to".into(), msg.into()));
    }
    Ok(())
}
