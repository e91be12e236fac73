//! `report`: the HTML matrix of cases × adapters from JSON reports; `report merge`: shard
//! reports joined into one; `report history`: a sweep's cases × versions.

use super::Fatal;
use clap::{Args, Subcommand};
use mcp_error_layers::report::html;
use mcp_error_layers::report::json::JsonReport;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod history;
mod merge;

/// Options of `report`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ReportArgs {
    #[command(subcommand)]
    command: Option<ReportCommand>,
    /// Write the HTML page here.
    #[arg(long, value_name = "FILE", required = true)]
    html: Option<PathBuf>,
    /// JSON reports written by `run` (one column per report).
    #[arg(required = true, value_name = "JSON")]
    reports: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum ReportCommand {
    /// Join the JSON reports of `run --shard 1/N` .. `--shard N/N` into the report of the
    /// whole run (refused unless they are all the shards of one run).
    Merge(merge::MergeArgs),
    /// Build a sweep's history, cases × versions, from what a history folder keeps
    /// (`versions.tsv`, `cases.tsv`) and per-version reports (`harness/adapters/sweep.py`
    /// writes them), and keep it there.
    History(history::HistoryArgs),
}

/// Builds the matrix, or runs `report`'s subcommand.
pub fn report(args: ReportArgs) -> Result<ExitCode, Fatal> {
    let html_path = match (args.command, args.html) {
        (Some(ReportCommand::Merge(merge)), _) => return merge::merge(merge),
        (Some(ReportCommand::History(history)), _) => return history::history(history),
        (None, Some(path)) => path,
        // clap requires --html without a subcommand.
        (None, None) => return Err(Fatal::new("report: --html FILE is required")),
    };
    let reports = read_all(&args.reports)?;
    html::write(&reports, &html_path).map_err(|e| Fatal::new(e.to_string()))?;
    let adapters: Vec<&str> = reports.iter().map(|r| r.adapter.name.as_str()).collect();
    println!(
        "HTML matrix of {} ({}): {}",
        adapters.len(),
        adapters.join(", "),
        html_path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads every report; the first that cannot be read is fatal, naming its file.
fn read_all(paths: &[PathBuf]) -> Result<Vec<JsonReport>, Fatal> {
    paths.iter().map(|path| read(path)).collect()
}

fn read(path: &Path) -> Result<JsonReport, Fatal> {
    JsonReport::read(path).map_err(|e| Fatal::new(e.to_string()))
}
