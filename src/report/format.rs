//! The one list of report formats. Each [`Format`] carries everything that differs between
//! them: its [`Reporter`], its label in messages, the environment variable that asks for it
//! under `cargo test` and its file name in a report folder. [`ReportPaths`], the CLI's flags,
//! the env reading and the "reports written" lines all loop over [`Format::ALL`].

use super::tap::TapVersion;
use super::{Reporter, html, json, junit, tap};
use std::path::{Path, PathBuf};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// TAP 14 (or 13, [`ReportPaths::with_tap_version`]).
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

    /// Its writer (TAP 14 for [`Format::Tap`]; [`ReportPaths::reporter`] follows the version
    /// asked for).
    pub fn reporter(self) -> &'static dyn Reporter {
        match self {
            Format::Tap => &tap::Tap {
                version: TapVersion::V14,
            },
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

/// The variable that picks the TAP version under `cargo test`: `13` or `14` (the default).
pub const TAP_VERSION_VAR: &str = "MCP_ERROR_LAYERS_TAP_VERSION";

/// Where to write each report (a format without a path is skipped), and which TAP version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportPaths {
    paths: std::collections::BTreeMap<Format, PathBuf>,
    /// The TAP version, or why the environment's value is not one: the error surfaces when
    /// the TAP report is written, naming the variable.
    tap_version: Result<TapVersion, String>,
}

impl Default for ReportPaths {
    fn default() -> Self {
        ReportPaths {
            paths: Default::default(),
            tap_version: Ok(TapVersion::default()),
        }
    }
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
        let paths = match var(REPORT_DIR_VAR) {
            Some(dir) => own.or(&Self::all_in(&dir)),
            None => own,
        };
        ReportPaths {
            tap_version: tap_version_of(std::env::var_os(TAP_VERSION_VAR)),
            ..paths
        }
    }

    /// These paths with TAP written as `version`.
    pub fn with_tap_version(mut self, version: TapVersion) -> Self {
        self.tap_version = Ok(version);
        self
    }

    /// The writer of `format`, in the TAP version asked for; `Err` says why the asked-for
    /// version is not one.
    pub fn reporter(&self, format: Format) -> Result<&'static dyn Reporter, String> {
        match (format, &self.tap_version) {
            (Format::Tap, Err(why)) => Err(why.clone()),
            (Format::Tap, Ok(TapVersion::V13)) => Ok(&tap::Tap {
                version: TapVersion::V13,
            }),
            _ => Ok(format.reporter()),
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

/// The TAP version [`TAP_VERSION_VAR`]'s value asks for: unset or empty is 14.
fn tap_version_of(value: Option<std::ffi::OsString>) -> Result<TapVersion, String> {
    let Some(value) = value.filter(|v| !v.is_empty()) else {
        return Ok(TapVersion::default());
    };
    value.to_str().and_then(TapVersion::parse).ok_or_else(|| {
        format!("{TAP_VERSION_VAR} is {value:?}: set it to 13 or 14, or unset it for 14")
    })
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

    #[test]
    fn the_tap_version_changes_only_the_version_line() {
        let report = super::super::RunReport {
            adapter: super::super::AdapterInfo {
                name: "a".into(),
                version: None,
            },
            protocol_version: None,
            strict: false,
            settings: super::super::RunSettings::default(),
            duration: std::time::Duration::ZERO,
            cases: Vec::new(),
            shard: None,
        };
        let render = |paths: ReportPaths| paths.reporter(Format::Tap).unwrap().render(&report);
        let v14 = render(ReportPaths::none()).unwrap();
        let v13 = render(ReportPaths::none().with_tap_version(TapVersion::V13)).unwrap();
        assert!(v14.starts_with("TAP version 14\n"), "{v14}");
        assert_eq!(v13, v14.replacen("TAP version 14", "TAP version 13", 1));
    }

    #[test]
    fn the_tap_version_variable_takes_13_or_14_and_names_itself_otherwise() {
        let of = |v: &str| tap_version_of(Some(v.into()));
        assert_eq!(tap_version_of(None), Ok(TapVersion::V14));
        assert_eq!(of(""), Ok(TapVersion::V14));
        assert_eq!(of("13"), Ok(TapVersion::V13));
        assert_eq!(of("14"), Ok(TapVersion::V14));
        assert_eq!(
            of("12"),
            Err(
                "MCP_ERROR_LAYERS_TAP_VERSION is \"12\": set it to 13 or 14, or unset it for 14"
                    .into()
            )
        );
    }
}
