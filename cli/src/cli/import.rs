//! `import`: a HAR file's `tools/call` exchanges as cases (docs/record-import.md), one line per
//! case written or skipped.

use super::{Fatal, print};
use clap::Args;
use mcp_error_layers::engine::recording::{
    Fault, Report, read_har, stem, writable_out, write_family,
};
use std::path::PathBuf;
use std::process::ExitCode;

/// The end of `import --help`.
pub const IMPORT_HELP: &str = "\
Each tools/call becomes NNN-TOOL.toml (and NNN-TOOL-FAULT.toml per --fault), with the expectation
the reference classifier gives its reply, printed for review (docs/record-import.md).

Example:
  mcp-error-layers import capture.har --out imported --fault wrong-id
  mcp-error-layers run --cases imported --no-builtin";

/// Options of `import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The HAR file (HTTP Archive 1.2, as browser devtools, mitmproxy and MCP inspectors export);
    /// `-` reads it from standard input.
    har: PathBuf,
    /// The folder the cases are written to (created; existing files are never overwritten).
    #[arg(long, value_name = "DIR", default_value = "imported")]
    out: PathBuf,
    /// Also write this faulted variant of each exchange: http-503-before, cut-after-event=N,
    /// stall or wrong-id (repeatable).
    #[arg(long, value_name = "FAULT")]
    fault: Vec<Fault>,
}

/// Writes the cases; exit 2 when the file holds no `tools/call` exchange.
pub fn import(args: ImportArgs) -> Result<ExitCode, Fatal> {
    let imported = read_har(&args.har).map_err(|e| Fatal::new(e.to_string()))?;
    writable_out(&args.out).map_err(Fatal::new)?;
    let exchanges = imported.exchanges;
    for note in imported.notes {
        print(&format!("skipped {note}\n"))?;
    }
    if exchanges.is_empty() {
        return Err(Fatal::new(format!(
            "{}: no tools/call exchange (a POST whose JSON body has \"method\": \"tools/call\") to import",
            args.har.display()
        )));
    }
    let mut written = 0;
    for (n, (exchange, session)) in exchanges.iter().enumerate() {
        let stem = stem(n + 1, exchange.tool_name().unwrap_or("call"));
        for report in write_family(&args.out, &stem, exchange, session, &args.fault) {
            written += usize::from(matches!(report, Report::Wrote(_)));
            print(&format!("{report}\n"))?;
        }
    }
    print(&format!(
        "{written} case(s) written to {}\n",
        args.out.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}
