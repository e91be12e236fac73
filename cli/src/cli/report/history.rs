//! `report history`: a sweep's versions as cases × versions, kept in the folder as
//! `versions.tsv` and `cases.tsv` beside the pages built from them.

use super::super::Fatal;
use mcp_error_layers::report::history::{HTML, History, MARKDOWN};
use mcp_error_layers::report::write_file;
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `report history`.
#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// The history's folder: what it keeps (`versions.tsv`, `cases.tsv`), and any
    /// `<version>.json` reports of one adapter and `<version>.unavailable.txt` files in it
    /// (what `harness/adapters/sweep.py` writes). `versions.tsv`, `cases.tsv`, `history.md`
    /// and `history.html` are written here.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Versions to add from elsewhere (a sweep's `<version>.json` reports and
    /// `<version>.unavailable.txt` files): each replaces what DIR has of its version.
    #[arg(value_name = "FILE")]
    add: Vec<PathBuf>,
    /// Write the markdown here (default: DIR/history.md).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write the HTML page here (default: DIR/history.html).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Writes what the history keeps, its markdown and its page, and says what changed how often.
pub fn history(args: HistoryArgs) -> Result<ExitCode, Fatal> {
    let history =
        History::read_adding(&args.dir, &args.add).map_err(|e| Fatal::new(e.to_string()))?;
    let markdown = args.markdown.unwrap_or_else(|| args.dir.join(MARKDOWN));
    let html = args.html.unwrap_or_else(|| args.dir.join(HTML));
    let stored = history
        .tables()
        .map(|(name, text)| (args.dir.join(name), text));
    let pages = [(markdown, history.markdown()), (html, history.html())];
    for (path, text) in stored.iter().chain(&pages) {
        write_file(path, |out| out.write_all(text.as_bytes()))
            .map_err(|e| Fatal::new(e.to_string()))?;
    }
    let unavailable = history.columns.iter().filter(|c| c.run.is_err()).count();
    println!(
        "history of {}: {} versions ({unavailable} unavailable), {} changes: {}, {} (kept in {} \
         and {})",
        history.adapter,
        history.columns.len(),
        history.changes().len(),
        pages[0].0.display(),
        pages[1].0.display(),
        stored[0].0.display(),
        stored[1].0.display()
    );
    Ok(ExitCode::SUCCESS)
}
