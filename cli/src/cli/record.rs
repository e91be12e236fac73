//! `record`: a loopback proxy between a client and a real local server that writes each
//! `tools/call` exchange as a case (docs/record-import.md). It prints the address to point the
//! client at, then one line per case written; it stops on Ctrl-C, when stdin closes, or after
//! `--max-exchanges` calls.

use super::{Fatal, print};
use clap::Args;
use mcp_error_layers::engine::recording::{Fault, Recorder, RecorderOptions, Report, writable_out};
use std::path::PathBuf;
use std::process::ExitCode;

/// The end of `record --help`.
pub const RECORD_HELP: &str = "\
Stops on Ctrl-C, when stdin closes (so `record ... < /dev/null` stops at once: keep stdin open,
or use --max-exchanges), or after --max-exchanges tools/call exchanges.

Example:
  mcp-error-layers record --upstream http://127.0.0.1:8000/mcp --fault wrong-id
  # point the client at the printed address, make its calls, press Ctrl-C
  mcp-error-layers run --cases recorded --no-builtin";

/// Options of `record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The server's endpoint: an http:// URL on this machine (127.0.0.1, ::1 or localhost).
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// Where clients connect: a loopback address; port 0 picks a free one.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    listen: String,
    /// The folder the cases are written to (created; existing files are never overwritten).
    #[arg(long, value_name = "DIR", default_value = "recorded")]
    out: PathBuf,
    /// Also write this faulted variant of each exchange: http-503-before, cut-after-event=N,
    /// stall or wrong-id (repeatable).
    #[arg(long, value_name = "FAULT")]
    fault: Vec<Fault>,
    /// Stop after this many tools/call exchanges (1 to 10000).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_exchanges: usize,
}

/// Records until stopped.
pub fn record(args: RecordArgs) -> Result<ExitCode, Fatal> {
    let upstream = args.upstream.clone();
    let mut recorder = Recorder::start(RecorderOptions {
        upstream: args.upstream,
        listen: args.listen,
        out: args.out.clone(),
        faults: args.fault,
        max_exchanges: args.max_exchanges,
    })
    .map_err(|e| Fatal::new(e.to_string()))?;
    writable_out(&args.out).map_err(Fatal::new)?;
    print(&format!(
        "recording at {} (forwarding to {upstream}); cases go to {}\n",
        recorder.url(&upstream),
        args.out.display()
    ))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Fatal::new(format!("cannot start a runtime: {e}")))?;
    let stopped = runtime.block_on(until_stopped(&mut recorder));
    // The thread that reads stdin may still be blocked in a read: do not wait for it.
    runtime.shutdown_background();
    let (written, why) = stopped?;
    let mut written = written;
    for report in recorder.stop() {
        written += usize::from(matches!(report, Report::Wrote(_)));
        print(&format!("{report}\n"))?;
    }
    print(&format!("stopped ({why}): {written} case(s) written\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// Prints reports until Ctrl-C, stdin's end or the recorder's own end; the cases written and
/// why it stopped.
async fn until_stopped(recorder: &mut Recorder) -> Result<(usize, &'static str), Fatal> {
    let mut stdin_closed = tokio::task::spawn_blocking(|| {
        // Reads and drops whatever comes, until the end.
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    });
    let mut written = 0;
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return Ok((written, "Ctrl-C")),
            _ = &mut stdin_closed => return Ok((written, "stdin closed")),
            report = recorder.next_report() => match report {
                Some(report) => {
                    written += usize::from(matches!(report, Report::Wrote(_)));
                    print(&format!("{report}\n"))?;
                }
                None => return Ok((written, "--max-exchanges reached")),
            },
        }
    }
}
