//! One process per call (docs/adapters.md): start the program with the endpoint as its last
//! argument, read its stdout and stderr until it has exited and they are closed (bounded: a
//! grandchild may hold them open), kill what is left of its group, and read the report on stdout.

use super::Program;
use super::group::{Exit, ProcessGroup};
use super::output::{CHUNK, STDOUT_CAP, has_line, lines, parse_report, shown};
use crate::adapter::{AdapterLog, CallContext};
use crate::observation::AdapterReport;
use std::os::fd::OwnedFd;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::time::Instant;

/// How long the runner keeps reading after the adapter exited (a grandchild may hold its pipes
/// open) or after it printed a complete line (it may linger instead of exiting).
pub(super) const OUTPUT_GRACE: Duration = Duration::from_millis(500);

/// Runs `call` in a fresh process of `program`.
pub(super) async fn run(
    program: &Program,
    call: &CallContext,
    log: &AdapterLog,
) -> Result<AdapterReport, String> {
    let (mut group, mut child) =
        ProcessGroup::spawn(&mut program.one_shot(call)).map_err(|e| program.cannot_start(&e))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("the adapter's output was not captured".to_owned());
    };
    let output = collect(&mut group, receiver(stdout)?, receiver(stderr)?, log).await;
    drop(group); // the group is killed before its output is read
    report_of(&output).map_err(|message| match lines(&output.stdout).is_empty() {
        true => log.with_cause(message),
        false => message,
    })
}

/// A pipe end, registered with the current runtime.
pub(super) fn receiver(end: impl Into<OwnedFd>) -> Result<pipe::Receiver, String> {
    pipe::Receiver::from_owned_fd(end.into())
        .map_err(|e| format!("cannot read the adapter's output: {e}"))
}

/// What one process printed, and how it ended if it did.
struct Output {
    stdout: Vec<u8>,
    overflow: bool,
    exit: Option<Exit>,
}

/// What the reading loop is waiting for.
struct Reading {
    stdout_open: bool,
    stderr_open: bool,
    exit: Option<Exit>,
    /// Set once the process exited or printed a line: reading stops then at the latest.
    grace_until: Option<Instant>,
}

impl Reading {
    fn done(&self) -> bool {
        !self.stdout_open && !self.stderr_open && self.exit.is_some()
    }

    fn start_grace(&mut self) {
        self.grace_until
            .get_or_insert_with(|| Instant::now() + OUTPUT_GRACE);
    }
}

/// Reads stdout (bounded) and stderr (into `log`) until the process has exited and both are
/// closed, or the grace after its exit or its first line is over.
async fn collect(
    group: &mut ProcessGroup,
    mut stdout: pipe::Receiver,
    mut stderr: pipe::Receiver,
    log: &AdapterLog,
) -> Output {
    let mut output = Output {
        stdout: Vec::new(),
        overflow: false,
        exit: None,
    };
    let mut state = Reading {
        stdout_open: true,
        stderr_open: true,
        exit: None,
        grace_until: None,
    };
    let (mut out_chunk, mut err_chunk) = (vec![0; CHUNK], vec![0; CHUNK]);
    // Never reached: the sleep branch is disabled until a grace starts.
    let far = Instant::now() + Duration::from_secs(86_400 * 365);
    while !state.done() {
        tokio::select! {
            read = stdout.read(&mut out_chunk), if state.stdout_open => match read {
                Ok(0) | Err(_) => state.stdout_open = false,
                Ok(n) => {
                    output.stdout.extend_from_slice(&out_chunk[..n]);
                    if output.stdout.len() > STDOUT_CAP {
                        output.overflow = true;
                        break;
                    }
                    if has_line(&output.stdout) {
                        state.start_grace();
                    }
                }
            },
            read = stderr.read(&mut err_chunk), if state.stderr_open => match read {
                Ok(0) | Err(_) => state.stderr_open = false,
                Ok(n) => log.append(&err_chunk[..n]),
            },
            exit = group.wait(), if state.exit.is_none() => {
                state.exit = Some(exit);
                state.start_grace();
            }
            () = tokio::time::sleep_until(state.grace_until.unwrap_or(far)),
                if state.grace_until.is_some() => {
                note_grace_over(&state, log);
                break;
            }
        }
    }
    output.exit = state.exit;
    output
}

fn note_grace_over(state: &Reading, log: &AdapterLog) {
    let grace = OUTPUT_GRACE.as_millis();
    if state.exit.is_some() {
        log.note(format!(
            "the adapter exited but its stdout/stderr stayed open (a child process of its \
             own?); reading stopped {grace} ms later and its process group was killed"
        ));
    } else {
        log.note(format!(
            "the adapter printed a line but had not exited {grace} ms later; its process \
             group was killed"
        ));
    }
}

/// Exactly one non-blank stdout line that is an observation (or `unsupported`), whatever the
/// exit status; anything else is an adapter error that says what was printed and how the
/// process ended.
fn report_of(output: &Output) -> Result<AdapterReport, String> {
    if output.overflow {
        return Err(format!(
            "the adapter printed more than {} KiB on stdout; the contract is one JSON line: {}",
            STDOUT_CAP / 1024,
            shown(&output.stdout)
        ));
    }
    match lines(&output.stdout).as_slice() {
        [] => Err(format!(
            "the adapter {} without printing an observation",
            ended(output.exit)
        )),
        [line] => parse_report(line),
        more => Err(format!(
            "the adapter printed {} lines on stdout; the contract is exactly one JSON line: {}",
            more.len(),
            shown(&output.stdout)
        )),
    }
}

fn ended(exit: Option<Exit>) -> String {
    exit.map_or_else(|| "did not exit".to_owned(), |exit| exit.to_string())
}
