//! `report`: the HTML matrix of cases × adapters from JSON reports.

use super::Fatal;
use clap::Args;
use mcp_error_layers::report::html;
use mcp_error_layers::report::json::JsonReport;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Write the HTML page here.
    #[arg(long, value_name = "FILE")]
    html: PathBuf,
    /// JSON reports written by `run` (one column per report).
    #[arg(required = true, value_name = "JSON")]
    reports: Vec<PathBuf>,
}

/// Builds the matrix.
pub fn report(args: ReportArgs) -> Result<ExitCode, Fatal> {
    let reports = args
        .reports
        .iter()
        .map(|path| JsonReport::read(path).map_err(|e| Fatal::new(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    html::write(&reports, &args.html).map_err(|e| Fatal::new(e.to_string()))?;
    let adapters: Vec<&str> = reports.iter().map(|r| r.adapter.name.as_str()).collect();
    println!(
        "HTML matrix of {} ({}): {}",
        adapters.len(),
        adapters.join(", "),
        args.html.display()
    );
    Ok(ExitCode::SUCCESS)
}
