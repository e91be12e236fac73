//! The one list of report formats. Each [`Format`] carries everything that differs between
//! them: its [`Reporter`], its label in messages, the environment variable that asks for it
//! under `cargo test` and its file name in a report folder. [`ReportPaths`], the CLI's flags,
//! the env reading and the "reports written" lines all loop over [`Format::ALL`].

use super::{Reporter, html, json, junit, tap};
use std::path::{Path, PathBuf};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// TAP 14.
    Tap,
    /// JUnit XML.
    Junit,
    /// JSON, the versioned schema of `docs/reports.md`.
    Json,
    /// The HTML matrix.
    Html,
}

impl Format {
    /// Every format, in the order messages list them.
    pub const ALL: [Format; 4] = [Format::Tap, Format::Junit, Format::Json, Format::Html];

    /// Its writer.
    pub fn reporter(self) -> &'static dyn Reporter {
        match self {
            Format::Tap => &tap::Tap,
            Format::Junit => &junit::Junit,
            Format::Json => &json::Json,
            Format::Html => &html::Html,
        }
    }

    /// Its name in messages: `TAP`, `JUnit`, `JSON`, `HTML`.
    pub fn label(self) -> &'static str {
        match self {
            Format::Tap => "TAP",
            Format::Junit => "JUnit",
            Format::Json => "JSON",
            Format::Html => "HTML",
        }
    }

    /// The variable that names its file under `cargo test` (libtest rejects unknown flags).
    pub fn env_var(self) -> &'static str {
        match self {
            Format::Tap => "MCP_ERROR_LAYERS_TAP",
            Format::Junit => "MCP_ERROR_LAYERS_JUNIT",
            Format::Json => "MCP_ERROR_LAYERS_JSON",
            Format::Html => "MCP_ERROR_LAYERS_HTML",
        }
    }

    /// Its file name in a report folder.
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Tap => "mcp-error-layers.tap",
            Format::Junit => "mcp-error-layers.junit.xml",
            Format::Json => "mcp-error-layers.json",
            Format::Html => "mcp-error-layers.html",
        }
    }
}

/// The variable that names a folder for every format at once.
pub const REPORT_DIR_VAR: &str = "MCP_ERROR_LAYERS_REPORT_DIR";

/// Where to write each report; a format without a path is skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportPaths {
    paths: std::collections::BTreeMap<Format, PathBuf>,
}

impl ReportPaths {
    /// No report.
    pub fn none() -> Self {
        Self::default()
    }

    /// Every format under `dir`, by [`Format::file_name`].
    pub fn all_in(dir: &Path) -> Self {
        Format::ALL.into_iter().fold(Self::none(), |paths, f| {
            paths.with(f, dir.join(f.file_name()))
        })
    }

    /// The paths named by each [`Format::env_var`], and [`REPORT_DIR_VAR`] for every format at
    /// once (a format's own variable wins over the folder). This is how `cargo test` gets
    /// reports.
    pub fn from_env() -> Self {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let own = Format::ALL
            .into_iter()
            .fold(Self::none(), |paths, f| match var(f.env_var()) {
                Some(path) => paths.with(f, path),
                None => paths,
            });
        match var(REPORT_DIR_VAR) {
            Some(dir) => own.or(&Self::all_in(&dir)),
            None => own,
        }
    }

    /// These paths with `format` written to `path`.
    pub fn with(mut self, format: Format, path: impl Into<PathBuf>) -> Self {
        self.paths.insert(format, path.into());
        self
    }

    /// These paths, and `other`'s for the formats these do not name.
    pub fn or(mut self, other: &ReportPaths) -> Self {
        for (format, path) in &other.paths {
            self.paths.entry(*format).or_insert_with(|| path.clone());
        }
        self
    }

    /// Where `format` goes, if anywhere.
    pub fn get(&self, format: Format) -> Option<&Path> {
        self.paths.get(&format).map(PathBuf::as_path)
    }

    /// Each asked-for format with its path, in [`Format::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (Format, &Path)> {
        self.paths.iter().map(|(f, p)| (*f, p.as_path()))
    }

    /// Whether any report is asked for.
    pub fn any(&self) -> bool {
        !self.paths.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_listed_once_and_names_differ() {
        // A match without a wildcard makes the compiler catch a format missing from `ALL`'s
        // methods; this catches one missing from `ALL` itself.
        let listed = |f: Format| match f {
            Format::Tap | Format::Junit | Format::Json | Format::Html => Format::ALL.contains(&f),
        };
        assert!(Format::ALL.into_iter().all(listed));
        for key in [Format::label, Format::env_var, Format::file_name] {
            let mut names: Vec<_> = Format::ALL.into_iter().map(key).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), Format::ALL.len());
        }
        for f in Format::ALL {
            assert_eq!(f.reporter().format(), f.label());
        }
    }

    #[test]
    fn a_named_path_wins_over_the_folder() {
        let paths = ReportPaths::none()
            .with(Format::Json, "a.json")
            .or(&ReportPaths::all_in(Path::new("dir")));
        assert_eq!(paths.get(Format::Json), Some(Path::new("a.json")));
        assert_eq!(
            paths.get(Format::Tap),
            Some(Path::new("dir/mcp-error-layers.tap"))
        );
        assert_eq!(paths.iter().count(), 4);
    }
}
