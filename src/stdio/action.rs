//! What passes between the stdio server process and its wire server: the actions it is told to
//! take for a line it read, and the events it reports about itself.

use crate::case::Signal;
use serde::{Deserialize, Serialize};

/// One step the stdio server takes, in order, for a message it read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Write these bytes on stdout in one `write` call sequence (no buffering in between).
    Write(String),
    /// Pause this long, in milliseconds.
    SleepMs(u64),
    /// Write this many bytes of log text to stderr, then report [`Event::StderrWritten`].
    Stderr(u64),
    /// Report [`Event::Exit`], then exit with this status.
    Exit(i32),
    /// Report [`Event::Kill`], then kill itself with this signal.
    Kill(Signal),
    /// Close stdout (the client reads end-of-file) and go on reading stdin.
    CloseStdout,
}

/// What the stdio server reports about itself, besides the lines it read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub enum Event {
    /// It wrote all of a stderr flood: its client reads stderr.
    StderrWritten {
        /// How many bytes.
        bytes: u64,
    },
    /// It is about to exit with this status.
    Exit {
        /// The exit status.
        code: i32,
    },
    /// It is about to kill itself with this signal.
    Kill {
        /// The signal.
        signal: Signal,
    },
    /// It closed its stdout.
    StdoutClosed,
    /// Its stdin closed: the client is done with it; it exits.
    StdinClosed,
}

/// The wire server's paths for the stdio server's requests.
pub mod paths {
    /// `POST`: one line read on stdin, as the body; the answer is a JSON array of [`super::Action`]s.
    pub const LINE: &str = "/stdio/line";
    /// `POST`: one [`super::Event`], as JSON.
    pub const EVENT: &str = "/stdio/event";
    /// `GET /stdio/hold?pid=N`: held open for the life of the process. Its opening records the
    /// start and the pid; its closing (the kernel closes it when the process dies, however it
    /// dies) records the end.
    pub const HOLD: &str = "/stdio/hold";
}

/// Whether an HTTP request target is one of the stdio server's.
pub fn is_stdio_path(path: &str) -> bool {
    path.starts_with("/stdio/")
}
