//! Which cases a command works on: the built-in ones, folders added with `--cases`, and name
//! filters.

use super::Fatal;
use clap::Args;
use mcp_error_layers::case::{CaseSource, builtin, discover};
use mcp_error_layers::engine::shown_id;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The case-selection options shared by `run` and `list`.
#[derive(Debug, Clone, Default, Args)]
pub struct Selection {
    /// Add the cases under this folder (repeatable); ids are paths relative to it.
    #[arg(long = "cases", value_name = "DIR")]
    pub folders: Vec<PathBuf>,
    /// Use only the `--cases` folders, not the built-in cases.
    #[arg(long)]
    pub no_builtin: bool,
    /// Keep only cases whose id contains one of these (like libtest filters).
    #[arg(value_name = "FILTER")]
    pub filters: Vec<String>,
    /// Filters must match the whole id.
    #[arg(long)]
    pub exact: bool,
}

impl Selection {
    /// The selected case sources, sorted by id. An unreadable folder, a duplicated id or an
    /// empty selection is fatal.
    pub fn sources(&self) -> Result<Vec<CaseSource>, Fatal> {
        let mut by_id: BTreeMap<String, CaseSource> = BTreeMap::new();
        if !self.no_builtin {
            by_id.extend(builtin().into_iter().map(|s| (s.id.clone(), s)));
        }
        for folder in &self.folders {
            for source in discover(folder).map_err(|e| Fatal::new(e.to_string()))? {
                if let Some(earlier) = by_id.get(&source.id) {
                    return Err(Fatal::new(format!(
                        "case id {} in {} is already taken by {}; rename one, or use --no-builtin",
                        shown_id(&source.id),
                        source.origin,
                        earlier.origin
                    )));
                }
                by_id.insert(source.id.clone(), source);
            }
        }
        let selected: Vec<CaseSource> = by_id
            .into_values()
            .filter(|s| self.matches(&s.id))
            .collect();
        if selected.is_empty() {
            return Err(Fatal::new(
                "no case matches the selection; try `mcp-error-layers list`",
            ));
        }
        Ok(selected)
    }

    fn matches(&self, id: &str) -> bool {
        self.filters.is_empty()
            || self.filters.iter().any(|f| {
                if self.exact {
                    id == f
                } else {
                    id.contains(f.as_str())
                }
            })
    }
}
