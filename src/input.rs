//! Reading an input of the user's with a bound: every file, device, pipe or standard input the
//! harness reads on the user's word goes through [`read`], [`read_to_string`] or [`read_stdin`].
//!
//! A path given on the command line or found under `--cases` may name anything: `/dev/zero`
//! (which never ends), a FIFO with no writer (whose `open` would block forever), a folder, a
//! socket. So a read here
//! - refuses anything that is not a regular file, naming what it is, before it reads a byte: the
//!   type is checked with `metadata` first, the file is opened without blocking (`O_NONBLOCK`, so
//!   that a FIFO swapped in after the check cannot hang `open`) and checked again on the open file;
//! - reads at most the bound of its [`Kind`] and fails past it, naming the bound and the fix;
//!   memory never grows past the bound (plus one 16 KiB chunk), however the input lies about its
//!   size.
//!
//! Every bound is in [`Kind::bound`], and `docs/inputs.md` lists them (a test compares the two).

use std::io::Read;
use std::path::Path;

/// Bytes in a KiB.
const KIB: u64 = 1024;
/// Bytes in a MiB.
const MIB: u64 = 1024 * KIB;
/// How much one `read` call takes at a time: memory past the bound is at most this.
const CHUNK: usize = 16 * 1024;

/// What an input is: each kind has its own bound and its own advice when the input is too large.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A case file (`--cases`, `serve FILE`).
    Case,
    /// An adapter's, agent's or bridge's `adapter.toml`.
    AdapterSpec,
    /// A baseline of accepted deviations.
    Baseline,
    /// The stdio server's session file.
    Session,
    /// A JSON report (`report`, `diff`, a history's sweep file).
    Report,
    /// A history folder's file (`versions.tsv`, `cases.tsv`, a `<version>.unavailable.txt`).
    History,
    /// A HAR file for `import`.
    Har,
    /// A captured HTTP response for `classify` (a file or standard input).
    Capture,
    /// A list of case ids, one a line (the agent rows' sample, `MCP_ERROR_LAYERS_AGENT_CASES`).
    CaseList,
}

impl Kind {
    /// Every kind, in the order `docs/inputs.md` lists them.
    pub const ALL: [Kind; 9] = [
        Kind::Case,
        Kind::AdapterSpec,
        Kind::Baseline,
        Kind::Session,
        Kind::Report,
        Kind::History,
        Kind::Har,
        Kind::Capture,
        Kind::CaseList,
    ];

    /// The most bytes an input of this kind may hold. Each is far above what the input really
    /// is, so that no real input meets it, and low enough that memory stays well under 300 MB
    /// whatever the input:
    /// - a case file: 1 MiB; the largest built-in case is 2.9 KiB (`tasks/poll-interval-zero`),
    ///   and long lines are made by keys (`pad_to`), not written out;
    /// - an `adapter.toml`: 1 MiB; the largest is 2.2 KiB (`copilot-cli`);
    /// - a baseline: 4 MiB; the largest is 22 KiB (`qwen-code`, one line per case of 162);
    /// - a session file: 64 KiB; it is a few dozen bytes;
    /// - a JSON report: 128 MiB; a report of every case of a row weighs a few MB (its record
    ///   keeps at most 1 MiB of a request body and 16 KiB of a reply), so 128 MiB is dozens of
    ///   times that;
    /// - a history file: 16 MiB; a `cases.tsv` of 10 versions of 200 cases is about 120 KiB (the
    ///   largest kept is 81 KiB);
    /// - a HAR file: 256 MiB; a browser's capture holds every request of a session, bodies
    ///   included (`import` keeps only the `tools/call` ones);
    /// - a captured response: 64 MiB; the wire server answers at most 16 MiB of body, and a
    ///   capture of a real server's answer is a few times that at most;
    /// - a list of case ids: 64 KiB; every built-in id, one a line, is about 5 KiB.
    pub const fn bound(self) -> u64 {
        match self {
            Kind::Case => MIB,
            Kind::AdapterSpec => MIB,
            Kind::Baseline => 4 * MIB,
            Kind::Session => 64 * KIB,
            Kind::Report => 128 * MIB,
            Kind::History => 16 * MIB,
            Kind::Har => 256 * MIB,
            Kind::Capture => 64 * MIB,
            Kind::CaseList => 64 * KIB,
        }
    }

    /// What the input is, in the words of an error (`a case file`).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Case => "a case file",
            Kind::AdapterSpec => "an adapter.toml",
            Kind::Baseline => "a baseline",
            Kind::Session => "a session file",
            Kind::Report => "a JSON report",
            Kind::History => "a history file",
            Kind::Har => "a HAR file",
            Kind::Capture => "a captured response",
            Kind::CaseList => "a list of case ids",
        }
    }

    /// What to do about an input past the bound.
    const fn fix(self) -> &'static str {
        match self {
            Kind::Case
            | Kind::AdapterSpec
            | Kind::Baseline
            | Kind::Session
            | Kind::History
            | Kind::CaseList => "is it the right file?",
            Kind::Report => "is it a report written by `mcp-error-layers run --json`?",
            Kind::Har => "split the capture, or export only the MCP endpoint's requests",
            Kind::Capture => "keep the status line, the headers and the start of the body",
        }
    }

    /// What to do about an input that is not a regular file.
    const fn instead(self) -> &'static str {
        match self {
            Kind::Capture => "save it to a file, or pipe it on standard input",
            _ => "save it to a file, and name the file",
        }
    }
}

/// The bound as people read it: `64 KiB`, `16 MiB`.
fn shown(bound: u64) -> String {
    if bound >= MIB && bound % MIB == 0 {
        format!("{} MiB", bound / MIB)
    } else if bound >= KIB && bound % KIB == 0 {
        format!("{} KiB", bound / KIB)
    } else {
        format!("{bound} bytes")
    }
}

/// An input that cannot be read: which one, and why, with the fix.
#[derive(Debug, thiserror::Error)]
#[error("{input}: {}", self.why())]
pub struct InputError {
    /// The file as given, or `standard input`.
    pub input: String,
    /// What went wrong.
    pub problem: Problem,
}

/// What went wrong reading an input.
#[derive(Debug)]
pub enum Problem {
    /// It cannot be opened or read (it is missing, unreadable, ...).
    Io(std::io::Error),
    /// It is not a regular file: a FIFO, a device, a socket, a folder.
    NotRegular {
        /// What it is instead (`a FIFO`).
        file_type: &'static str,
        /// What it was read as.
        kind: Kind,
    },
    /// It holds more than its kind's bound.
    TooLarge {
        /// What it was read as: [`Kind::bound`] is the bound.
        kind: Kind,
    },
    /// It is not UTF-8 text ([`read_to_string`] only).
    NotUtf8 {
        /// The offset of the first byte that is not.
        at: usize,
    },
}

impl InputError {
    /// Why, without the input's name: for messages that name it already.
    pub fn why(&self) -> String {
        match &self.problem {
            Problem::Io(e) => format!("cannot read: {e}"),
            Problem::NotRegular { file_type, kind } => format!(
                "is {file_type}, not a regular file, and {} is read from a regular file only: {}",
                kind.name(),
                kind.instead()
            ),
            Problem::TooLarge { kind } => format!(
                "more than {} bytes ({}), the most {} may hold: {}",
                kind.bound(),
                shown(kind.bound()),
                kind.name(),
                kind.fix()
            ),
            Problem::NotUtf8 { at } => {
                format!("is not UTF-8 text (at byte {at}): save it as UTF-8")
            }
        }
    }

    /// Whether the input does not exist (some inputs are optional).
    pub fn is_not_found(&self) -> bool {
        matches!(&self.problem, Problem::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// The bytes of the regular file at `path`, at most `kind`'s bound. It never blocks on a FIFO
/// and never reads a device: anything but a regular file (symbolic links followed) is an error
/// naming what it is.
pub fn read(path: &Path, kind: Kind) -> Result<Vec<u8>, InputError> {
    let error = |problem| InputError {
        input: path.display().to_string(),
        problem,
    };
    let regular = |meta: std::fs::Metadata| {
        if meta.is_file() {
            Ok(meta.len())
        } else {
            let file_type = file_type(&meta.file_type());
            Err(error(Problem::NotRegular { file_type, kind }))
        }
    };
    regular(std::fs::metadata(path).map_err(|e| error(Problem::Io(e)))?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        // What was checked may be replaced before it is opened: opened without blocking, a FIFO
        // cannot hang `open` (a regular file ignores the flag).
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits());
    }
    let file = options.open(path).map_err(|e| error(Problem::Io(e)))?;
    let size = regular(file.metadata().map_err(|e| error(Problem::Io(e)))?)?;
    bounded(file, size, kind).map_err(error)
}

/// The text of the regular file at `path`, as [`read`] reads it; not UTF-8 is an error.
pub fn read_to_string(path: &Path, kind: Kind) -> Result<String, InputError> {
    let bytes = read(path, kind)?;
    String::from_utf8(bytes).map_err(|e| InputError {
        input: path.display().to_string(),
        problem: Problem::NotUtf8 {
            at: e.utf8_error().valid_up_to(),
        },
    })
}

/// Standard input to its end, at most `kind`'s bound (`< /dev/zero` ends with the bound's error).
pub fn read_stdin(kind: Kind) -> Result<Vec<u8>, InputError> {
    bounded(std::io::stdin().lock(), 0, kind).map_err(|problem| InputError {
        input: "standard input".to_owned(),
        problem,
    })
}

/// Everything `reader` gives, or [`Problem::TooLarge`] as soon as it gives more than the bound.
/// `size` (a regular file's length, 0 when unknown) only sizes the first reservation; the
/// buffer then grows by doubling but never past the bound.
fn bounded(mut reader: impl Read, size: u64, kind: Kind) -> Result<Vec<u8>, Problem> {
    let bound = usize::try_from(kind.bound()).unwrap_or(usize::MAX);
    let first = usize::try_from(size).unwrap_or(usize::MAX).min(bound);
    let mut bytes = Vec::with_capacity(first);
    let mut chunk = vec![0; CHUNK];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Problem::Io(e)),
        };
        if n > bound - bytes.len() {
            return Err(Problem::TooLarge { kind });
        }
        if bytes.capacity() - bytes.len() < n {
            let wanted = (bytes.capacity() * 2).max(bytes.len() + n).min(bound);
            bytes.reserve_exact(wanted - bytes.len());
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// What a file that is not a regular file is, in words.
fn file_type(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

#[cfg(test)]
mod tests;
