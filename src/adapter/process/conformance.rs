//! A conformance client (docs/conformance-clients.md): the program an SDK runs under the
//! official MCP conformance suite, started the way that suite's runner starts it
//! (`src/runner/client.ts` of github.com/modelcontextprotocol/conformance):
//!
//! - its command, then the server URL as the last argument;
//! - `MCP_CONFORMANCE_SCENARIO=tools_call` and `MCP_CONFORMANCE_PROTOCOL_VERSION` (the case's
//!   version) in the environment; `MCP_CONFORMANCE_CONTEXT` is not set, as the suite's runner
//!   sets it only for scenarios with data of their own and `tools_call` has none;
//! - one process per call, killed (its whole group) at the call's deadline.
//!
//! What it says is its exit status: 0 becomes `TOOL_SUCCESS`, any other end
//! `UNCLASSIFIED_ERROR` with the status and the last line it wrote in the detail. Its stdout
//! and stderr are both logs (the contract gives stdout no meaning), kept for the report.

use super::Program;
use super::group::{Exit, ProcessGroup};
use super::oneshot::{OUTPUT_GRACE, receiver};
use super::output::CHUNK;
use crate::adapter::{AdapterLog, CallContext};
use crate::coarse::SCENARIO;
use crate::observation::{AdapterReport, Observation};
use crate::outcome::Outcome;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

/// The scenario's name.
pub const ENV_SCENARIO: &str = "MCP_CONFORMANCE_SCENARIO";
/// The protocol version the scenario runs at.
pub const ENV_PROTOCOL_VERSION: &str = "MCP_CONFORMANCE_PROTOCOL_VERSION";
/// Scenario data as JSON; never set for `tools_call` (and removed if inherited).
pub const ENV_CONTEXT: &str = "MCP_CONFORMANCE_CONTEXT";

/// The words of a `--conformance-client "CMD ARGS"` command line: split at whitespace, as the
/// suite's runner splits its `--command` (no quoting: a command whose words hold spaces goes
/// into a script). `Err` says why there is no command.
pub fn split_command(text: &str) -> Result<Vec<String>, String> {
    let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    match words.is_empty() {
        true => Err(
            "the conformance client's command is empty: give the program and its \
                     arguments, as in --conformance-client \"node client.mjs\""
                .to_owned(),
        ),
        false => Ok(words),
    }
}

impl Program {
    /// One call of a conformance client: the endpoint last, the scenario in the environment,
    /// stdin closed.
    fn conformance(&self, call: &CallContext) -> std::process::Command {
        let mut command = self.command();
        command
            .arg(&call.endpoint)
            .env(ENV_SCENARIO, SCENARIO)
            .env(ENV_PROTOCOL_VERSION, &call.protocol_version)
            .env_remove(ENV_CONTEXT)
            .stdin(std::process::Stdio::null());
        command
    }
}

/// Runs `call` in a fresh process of the conformance client `program`.
pub(super) async fn run(
    program: &Program,
    call: &CallContext,
    log: &AdapterLog,
) -> Result<AdapterReport, String> {
    let (mut group, mut child) = ProcessGroup::spawn(&mut program.conformance(call))
        .map_err(|e| program.cannot_start(&e))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("the conformance client's output was not captured".to_owned());
    };
    let exit = watch(&mut group, receiver(stdout)?, receiver(stderr)?, log).await;
    drop(group); // what is left of its group is killed
    Ok(observation(exit, log).into())
}

/// The observation an exit stands for.
fn observation(exit: Exit, log: &AdapterLog) -> Observation {
    match exit {
        Exit::Code(0) => Observation::new(Outcome::ToolSuccess).with_detail("exit status 0"),
        other => {
            let detail = log.with_cause(format!("the conformance client {other}"));
            Observation::new(Outcome::UnclassifiedError).with_detail(detail)
        }
    }
}

/// Copies stdout and stderr into `log` until the process has exited and both are closed, or
/// [`OUTPUT_GRACE`] after its exit (a child of its own may hold them open); returns its exit.
async fn watch(
    group: &mut ProcessGroup,
    mut stdout: pipe::Receiver,
    mut stderr: pipe::Receiver,
    log: &AdapterLog,
) -> Exit {
    let (mut out_open, mut err_open) = (true, true);
    let mut exit = None;
    let (mut out_chunk, mut err_chunk) = (vec![0; CHUNK], vec![0; CHUNK]);
    // Disabled until the exit: then the grace starts.
    let mut grace = Box::pin(tokio::time::sleep(Duration::MAX));
    while out_open || err_open || exit.is_none() {
        tokio::select! {
            read = stdout.read(&mut out_chunk), if out_open => match read {
                Ok(0) | Err(_) => out_open = false,
                Ok(n) => log.append(&out_chunk[..n]),
            },
            read = stderr.read(&mut err_chunk), if err_open => match read {
                Ok(0) | Err(_) => err_open = false,
                Ok(n) => log.append(&err_chunk[..n]),
            },
            ended = group.wait(), if exit.is_none() => {
                exit = Some(ended);
                grace.as_mut().reset(tokio::time::Instant::now() + OUTPUT_GRACE);
            }
            () = &mut grace, if exit.is_some() => {
                log.note(format!(
                    "the conformance client exited but its stdout/stderr stayed open (a child \
                     process of its own?); reading stopped {} ms later and its process group \
                     was killed",
                    OUTPUT_GRACE.as_millis()
                ));
                break;
            }
        }
    }
    exit.unwrap_or(Exit::Unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_splits_at_whitespace_and_an_empty_one_says_what_to_give() {
        assert_eq!(
            split_command("  node  client.mjs\t--x ").unwrap(),
            ["node", "client.mjs", "--x"]
        );
        let why = split_command(" ").unwrap_err();
        assert!(
            why.contains("--conformance-client \"node client.mjs\""),
            "{why}"
        );
    }

    #[test]
    fn exit_zero_is_success_and_anything_else_an_error_with_its_last_line() {
        let log = AdapterLog::new();
        assert_eq!(
            observation(Exit::Code(0), &log),
            Observation::new(Outcome::ToolSuccess).with_detail("exit status 0")
        );
        log.append(b"Error: HTTP 503\n");
        let failed = observation(Exit::Code(1), &log);
        assert_eq!(failed.outcome, Outcome::UnclassifiedError);
        assert_eq!(
            failed.detail,
            "the conformance client exited with status 1; its stderr ended with: Error: HTTP 503"
        );
    }
}
