//! Commands: `run`, `list`, `serve`, `classify`, `record`, `import`, `report`, `diff`, `completions`, `man`. Exit codes: 0 when every case that
//! counts passes, 1 when one fails, 2 for a usage or infrastructure error (one line, naming the
//! path or the case).

mod classify;
mod colour;
mod diff;
mod generate;
mod import;
mod list;
mod record;
mod report;
mod run;
mod select;
mod serve;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub use colour::parse;

/// The end of the top-level `--help`: what a person looks for after the options.
const AFTER_HELP: &str = "\
Examples:
  mcp-error-layers                          every built-in case against the reference client
  mcp-error-layers run tool/ --json -       the tool/ cases, the JSON report on stdout
  mcp-error-layers run -- ./my-adapter.sh   an adapter program (the endpoint URL is appended)
  mcp-error-layers list --json              the cases as JSON
  mcp-error-layers import capture.har       a HAR file's tools/call exchanges as cases
  mcp-error-layers completions bash         a bash completion script (also zsh, fish, ...)

Exit codes:
  0  every case that counts passed (MUST cases; SHOULD cases too with --strict)
  1  a case failed (`diff`: a case regressed)
  2  the run cannot happen: a usage error, an unreadable case folder or report, a report that
     cannot be written, an adapter program that cannot be started (one line on stderr)

Environment:
  NO_COLOR        set and not empty: no colour (`--color always` still wins)
  CLICOLOR_FORCE  set and not 0: colour even when not on a terminal
  MCP_ERROR_LAYERS_TAP, _TAP_VERSION, _JUNIT, _JSON, _HTML, _REPORT_DIR, _STRICT
                  the reports of a client crate's `cargo test` (docs/reports.md)";

/// A conformance test harness for how MCP clients handle errors.
#[derive(Debug, Parser)]
#[command(name = "mcp-error-layers", version, about, long_about = None, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Colour: `auto` (on a terminal, unless NO_COLOR is set), `always` or `never`.
    #[arg(long, global = true, value_name = "WHEN", value_enum, default_value_t = clap::ColorChoice::Auto)]
    color: clap::ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run cases against a client and write reports (the default command).
    #[command(after_help = run::RUN_HELP)]
    Run(Box<run::RunArgs>),
    /// List the cases: id, layer, grade, summary.
    List(list::ListArgs),
    /// Serve one case's wire script on a loopback port and log each request.
    Serve(serve::ServeArgs),
    /// Classify a captured HTTP response (a file, or stdin) with the reference classifier.
    #[command(after_help = classify::CLASSIFY_HELP)]
    Classify(classify::ClassifyArgs),
    /// Record a real local server's answers as cases: a loopback proxy between a client and
    /// the server.
    #[command(after_help = record::RECORD_HELP)]
    Record(record::RecordArgs),
    /// Turn a HAR file's tools/call exchanges into cases.
    #[command(after_help = import::IMPORT_HELP)]
    Import(import::ImportArgs),
    /// Build the HTML matrix of cases × adapters from JSON reports.
    ///
    /// `report merge` joins the JSON reports of `run --shard K/N` into one; `report history`
    /// builds a sweep's cases × versions (harness/adapters/sweep.py).
    Report(report::ReportArgs),
    /// Compare two JSON reports: which cases regressed, were fixed or changed (exit 1 when one
    /// regressed).
    Diff(diff::DiffArgs),
    /// Print a shell completion script generated from these options (bash, zsh, fish,
    /// elvish, powershell).
    #[command(after_help = generate::COMPLETIONS_HELP)]
    Completions(generate::CompletionsArgs),
    /// Print the man page (roff) generated from these options.
    #[command(after_help = generate::MAN_HELP)]
    Man,
    /// Serve a stdio case as the MCP server a client starts (the runner names this command
    /// to stdio adapters; docs/stdio.md).
    StdioServer(StdioServerArgs),
}

/// `stdio-server --session FILE`.
#[derive(Debug, clap::Args)]
struct StdioServerArgs {
    /// The session file the runner wrote for one case run (it points at the case's wire
    /// server on loopback).
    #[arg(long, value_name = "FILE")]
    session: std::path::PathBuf,
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
    write_to(&mut std::io::stdout().lock(), "stdout", text.as_bytes())
}

/// Writes `bytes` to `out` (named `name` in the error); a closed pipe is not an error.
pub fn write_to(out: &mut dyn std::io::Write, name: &str, bytes: &[u8]) -> Result<(), Fatal> {
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Fatal::new(format!("cannot write to {name}: {e}")))
        }
        _ => Ok(()),
    }
}

/// Runs the command `args` names.
pub fn dispatch(args: Cli) -> Result<ExitCode, Fatal> {
    colour::choose(args.color);
    match args.command.unwrap_or(Command::Run(Box::default())) {
        Command::Run(args) => run::run(*args),
        Command::List(args) => list::list(args),
        Command::Serve(args) => serve::serve(args),
        Command::Classify(args) => classify::classify(args),
        Command::Record(args) => record::record(args),
        Command::Import(args) => import::import(args),
        Command::Report(args) => report::report(args),
        Command::Diff(args) => diff::diff(args),
        Command::Completions(args) => generate::completions(args),
        Command::Man => generate::man(),
        Command::StdioServer(args) => Ok(mcp_error_layers::stdio::serve(&args.session)),
    }
}
