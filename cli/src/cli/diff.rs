//! `diff`: what changed between two runs, from their JSON reports.

use super::{Fatal, print};
use clap::Args;
use mcp_error_layers::report::diff::RunDiff;
use mcp_error_layers::report::json::JsonReport;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The older run's JSON report (from `run --json` or `cargo test` with MCP_ERROR_LAYERS_JSON).
    #[arg(value_name = "OLD.json")]
    old: PathBuf,
    /// The newer run's JSON report.
    #[arg(value_name = "NEW.json")]
    new: PathBuf,
    /// Print the comparison as JSON (schema mcp-error-layers/diff/v1).
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// Print the comparison as markdown, for a pull-request comment.
    #[arg(long)]
    markdown: bool,
}

/// Compares the two reports; exit 1 when something regressed.
pub fn diff(args: DiffArgs) -> Result<ExitCode, Fatal> {
    let read = |path: &PathBuf| JsonReport::read(path).map_err(|e| Fatal::new(e.to_string()));
    let diff = RunDiff::of(&read(&args.old)?, &read(&args.new)?);
    let text = match (args.json, args.markdown) {
        (true, _) => diff.json(),
        (_, true) => diff.markdown(),
        _ => diff.text(),
    };
    print(&text)?;
    Ok(match diff.regressed_any() {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    })
}
