//! Commands: `run`, `list`, `serve`, `classify`, `report`, `diff`. Exit codes: 0 when every case that
//! counts passes, 1 when one fails, 2 for a usage or infrastructure error (one line, naming the
//! path or the case).

mod classify;
mod diff;
mod list;
mod report;
mod run;
mod select;
mod serve;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// A conformance test harness for how MCP clients handle errors.
#[derive(Debug, Parser)]
#[command(name = "mcp-error-layers", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run cases against a client and write reports (the default command).
    Run(Box<run::RunArgs>),
    /// List the cases: id, layer, grade, summary.
    List(list::ListArgs),
    /// Serve one case's wire script on a loopback port and log each request.
    Serve(serve::ServeArgs),
    /// Classify a captured HTTP response (a file, or stdin) with the reference classifier.
    Classify(classify::ClassifyArgs),
    /// Build the HTML matrix of cases × adapters from JSON reports.
    Report(report::ReportArgs),
    /// Compare two JSON reports: which cases regressed, were fixed or changed (exit 1 when one
    /// regressed).
    Diff(diff::DiffArgs),
}

/// An error that stops the command: a usage or infrastructure problem (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Fatal(pub String);

impl Fatal {
    fn new(message: impl Into<String>) -> Self {
        Fatal(message.into())
    }
}

/// Writes `text` to stdout. A closed pipe (`… | head`) is the reader's choice, not an error.
pub fn print(text: &str) -> Result<(), Fatal> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Fatal::new(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// Runs the command `args` names.
pub fn dispatch(args: Cli) -> Result<ExitCode, Fatal> {
    match args.command.unwrap_or(Command::Run(Box::default())) {
        Command::Run(args) => run::run(*args),
        Command::List(args) => list::list(args),
        Command::Serve(args) => serve::serve(args),
        Command::Classify(args) => classify::classify(args),
        Command::Report(args) => report::report(args),
        Command::Diff(args) => diff::diff(args),
    }
}
