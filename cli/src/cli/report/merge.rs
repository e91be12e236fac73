//! `report merge`: the shard reports of one run joined into its whole report.

use super::super::{Fatal, print};
use mcp_error_layers::report::merge::merge as join;
use mcp_error_layers::report::write_file;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `report merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The JSON reports of `run --shard K/N`, every K of one N, in any order.
    #[arg(required = true, value_name = "JSON")]
    reports: Vec<PathBuf>,
    /// Write the merged JSON report here (`-`: stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
}

/// Merges the shards, or says why they are not the shards of one run (exit 2).
pub fn merge(args: MergeArgs) -> Result<ExitCode, Fatal> {
    let reports = args
        .reports
        .iter()
        .map(|path| super::read(path).map(|report| (path.clone(), report)))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = join(&reports).map_err(|e| Fatal::new(format!("report merge: {e}")))?;
    // Every field is a plain string, number, list or map: serializing cannot fail.
    let text = serde_json::to_string_pretty(&merged).unwrap_or_default() + "\n";
    if args.output.as_os_str() == "-" {
        return print(&text).map(|()| ExitCode::SUCCESS);
    }
    write_file(&args.output, |out| out.write_all(text.as_bytes()))
        .map_err(|e| Fatal::new(e.to_string()))?;
    eprintln!(
        "merged {} shards ({} cases) into {}",
        reports.len(),
        merged.cases.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
