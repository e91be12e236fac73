//! `diff`: what changed between two runs, from their JSON reports.

use super::{Fatal, print};
use clap::Args;
use mcp_error_layers::report::diff::{FailOn, RunDiff};
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
    /// Which regressions (a standing that got worse) make the exit code 1: those of `must`
    /// cases, of `must` and `should` cases, or of `any` case. Every regression is listed
    /// whatever this says.
    #[arg(long, value_name = "GRADES", value_enum, default_value_t = FailOnArg::Any)]
    fail_on: FailOnArg,
}

/// `--fail-on` as clap spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FailOnArg {
    Must,
    Should,
    Any,
}

impl FailOnArg {
    fn rule(self) -> FailOn {
        match self {
            FailOnArg::Must => FailOn::Must,
            FailOnArg::Should => FailOn::Should,
            FailOnArg::Any => FailOn::Any,
        }
    }
}

/// Compares the two reports; exit 1 when a regression `--fail-on` counts is there.
pub fn diff(args: DiffArgs) -> Result<ExitCode, Fatal> {
    let read = |path: &PathBuf| JsonReport::read(path).map_err(|e| Fatal::new(e.to_string()));
    let diff = RunDiff::of(&read(&args.old)?, &read(&args.new)?);
    let text = match (args.json, args.markdown) {
        (true, _) => diff.json(),
        (_, true) => diff.markdown(),
        _ => diff.text(),
    };
    print(&text)?;
    Ok(match diff.fails(args.fail_on.rule()) {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    })
}
