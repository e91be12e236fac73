//! `list`: the selected cases with id, layer, grade and summary.

use super::select::Selection;
use super::{Fatal, print};
use clap::Args;
use mcp_error_layers::case::CaseSource;
use mcp_error_layers::engine::shown_id;
use serde::Serialize;
use std::process::ExitCode;

/// Options of `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    selection: Selection,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// One row of the listing.
#[derive(Debug, Serialize)]
struct Row {
    id: String,
    layer: String,
    grade: String,
    summary: String,
    outcomes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// Prints the selected cases.
pub fn list(args: ListArgs) -> Result<ExitCode, Fatal> {
    let rows: Vec<Row> = args.selection.sources()?.iter().map(row).collect();
    let text = if args.json {
        let json = serde_json::to_string_pretty(&rows).map_err(|e| Fatal::new(e.to_string()))?;
        format!("{json}\n")
    } else {
        table(&rows)
    };
    print(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn table(rows: &[Row]) -> String {
    let ids: Vec<_> = rows.iter().map(|r| shown_id(&r.id)).collect();
    let width = ids.iter().map(|id| id.len()).max().unwrap_or(2).max(2);
    let mut text = format!(
        "{:<width$}  {:<11}  {:<6}  summary\n",
        "id", "layer", "grade"
    );
    for (row, id) in rows.iter().zip(&ids) {
        let summary = row.error.as_deref().unwrap_or(&row.summary);
        let line = format!(
            "{:<width$}  {:<11}  {:<6}  {summary}\n",
            id, row.layer, row.grade
        );
        text.push_str(&line);
    }
    text.push_str(&format!("{} cases\n", rows.len()));
    text
}

/// The layer a case tests is the layer of the outcome its first call expects.
fn row(source: &CaseSource) -> Row {
    match source.load() {
        Ok(case) => Row {
            id: case.id,
            layer: case.file.call[0].expect.outcome.layer().to_string(),
            grade: case.file.grade.to_string(),
            summary: case.file.summary,
            outcomes: case
                .file
                .call
                .iter()
                .map(|c| c.expect.outcome.to_string())
                .collect(),
            error: None,
        },
        Err(error) => Row {
            id: source.id.clone(),
            layer: "-".into(),
            grade: "-".into(),
            summary: String::new(),
            outcomes: Vec::new(),
            error: Some(format!("broken: {error}")),
        },
    }
}
