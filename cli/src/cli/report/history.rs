//! `report history`: a sweep's folder of per-version reports as cases × versions.

use super::super::Fatal;
use mcp_error_layers::report::history::{HTML, History, MARKDOWN};
use mcp_error_layers::report::write_file;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `report history`.
#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// The folder: `<version>.json` reports of one adapter and `<version>.unavailable.txt`
    /// (what `harness/adapters/sweep.py` writes).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Write the markdown here (default: DIR/history.md).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write the HTML page here (default: DIR/history.html).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Writes the history's markdown and page, and says what changed how often.
pub fn history(args: HistoryArgs) -> Result<ExitCode, Fatal> {
    let history = History::read(&args.dir).map_err(|e| Fatal::new(e.to_string()))?;
    let markdown = args.markdown.unwrap_or_else(|| args.dir.join(MARKDOWN));
    let html = args.html.unwrap_or_else(|| args.dir.join(HTML));
    for (path, text) in [(&markdown, history.markdown()), (&html, history.html())] {
        write_file(path, |out| out.write_all(text.as_bytes()))
            .map_err(|e| Fatal::new(e.to_string()))?;
    }
    let unavailable = history.columns.iter().filter(|c| c.run.is_err()).count();
    println!(
        "history of {}: {} versions ({unavailable} unavailable), {} changes: {}, {}",
        history.adapter,
        history.columns.len(),
        history.changes().len(),
        markdown.display(),
        html.display()
    );
    Ok(ExitCode::SUCCESS)
}
