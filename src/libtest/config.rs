//! [`Config`]: everything optional about a client project's run, and how it resolves against the
//! client crate.

use super::snapshot_check::AssertSnapshot;
use crate::adapter::DriverInfo;
use crate::report::{AdapterInfo, ReportPaths};
use crate::rules::Rules;
use crate::runner::RunOptions;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where snapshots go unless [`Config::snapshots`] says otherwise (in the client crate).
pub const DEFAULT_SNAPSHOTS: &str = "tests/snapshots/mcp-error-layers";

/// The baseline file read unless [`Config::baseline`] says otherwise (in the client crate).
pub const DEFAULT_BASELINE: &str = "tests/mcp-error-layers.baseline.toml";

/// The environment variable that makes a run strict (any value but `0`).
pub const STRICT_VAR: &str = "MCP_ERROR_LAYERS_STRICT";

/// What [`main!`](crate::main!) captures in the client crate.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Caller {
    /// `CARGO_MANIFEST_DIR` of the client crate.
    pub manifest_dir: &'static str,
    /// `CARGO_PKG_NAME` of the client crate.
    pub package: &'static str,
    /// `CARGO_PKG_VERSION` of the client crate.
    pub version: &'static str,
    /// insta's assertion, expanded in the client crate.
    pub assert_snapshot: AssertSnapshot,
}

/// Everything optional about a run of [`main!`](crate::main!), built with chained calls:
///
/// ```
/// use mcp_error_layers::Config;
/// use std::time::Duration;
///
/// let config = Config::new()
///     .cases("tests/mcp-cases")          // your own cases, next to the built-in ones
///     .skip("sse/")                      // built-in cases this client cannot be asked about
///     .deadline_margin(Duration::from_millis(300))
///     .adapter_name("my-client");
/// ```
///
/// Relative paths resolve against the client crate's manifest folder (the folder of the
/// `Cargo.toml` whose test target invokes the macro), not against the working directory.
#[derive(Debug, Clone)]
pub struct Config {
    case_folders: Vec<PathBuf>,
    skip: Vec<String>,
    reports: Option<ReportPaths>,
    strict: Option<bool>,
    deadline_margin: Duration,
    snapshots: Option<PathBuf>,
    baseline: Option<PathBuf>,
    adapter_name: Option<String>,
    adapter_version: Option<String>,
    default_timeout: Option<Duration>,
    test_threads: Option<usize>,
    unavailable: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            case_folders: Vec::new(),
            skip: Vec::new(),
            reports: None,
            strict: None,
            deadline_margin: RunOptions::default().deadline_margin,
            snapshots: Some(PathBuf::from(DEFAULT_SNAPSHOTS)),
            baseline: None,
            adapter_name: None,
            adapter_version: None,
            default_timeout: None,
            test_threads: None,
            unavailable: None,
        }
    }
}

impl Config {
    /// The defaults: the built-in cases, reports from the environment, strict when
    /// `MCP_ERROR_LAYERS_STRICT` is set, snapshots in `tests/snapshots/mcp-error-layers/`, the
    /// baseline `tests/mcp-error-layers.baseline.toml` if it exists.
    pub fn new() -> Self {
        Config::default()
    }

    /// Adds a folder of case files; its cases run next to the built-in ones, with ids relative
    /// to the folder. Call it once per folder. An id that is also a built-in case's is an error.
    pub fn cases(mut self, folder: impl Into<PathBuf>) -> Self {
        self.case_folders.push(folder.into());
        self
    }

    /// Skips built-in cases: an exact id (`sse/keepalive-forever`) or a folder (`sse/` or
    /// `sse`). Skipped cases are listed as ignored and still run with `cargo test -- --ignored`.
    /// A pattern that matches no built-in case is an error, so a typo cannot hide.
    pub fn skip(mut self, pattern: impl Into<String>) -> Self {
        self.skip.push(pattern.into());
        self
    }

    /// Where to write the TAP, JUnit, JSON and HTML reports; the default reads the
    /// `MCP_ERROR_LAYERS_*` variables ([`ReportPaths::from_env`]) when the run starts.
    pub fn reports(mut self, paths: ReportPaths) -> Self {
        self.reports = Some(paths);
        self
    }

    /// Whether SHOULD-grade mismatches fail the run; the default is whether
    /// `MCP_ERROR_LAYERS_STRICT` is set (to anything but `0`).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = Some(strict);
        self
    }

    /// How long past a call's own timeout the runner waits before it calls the call a hang
    /// (default one second). Shorten it for a client known to hang, to keep runs fast.
    pub fn deadline_margin(mut self, margin: Duration) -> Self {
        self.deadline_margin = margin;
        self
    }

    /// The folder for insta snapshots, one `<id with / as __>.snap` per case.
    pub fn snapshots(mut self, folder: impl Into<PathBuf>) -> Self {
        self.snapshots = Some(folder.into());
        self
    }

    /// No snapshots: cases are judged by their expectations alone.
    pub fn no_snapshots(mut self) -> Self {
        self.snapshots = None;
        self
    }

    /// The baseline file of accepted deviations. A file named here must exist; the default one
    /// is read only if it does.
    pub fn baseline(mut self, file: impl Into<PathBuf>) -> Self {
        self.baseline = Some(file.into());
        self
    }

    /// The client's name in reports (default: the name an adapter program announced, else the
    /// client crate's package name).
    pub fn adapter_name(mut self, name: impl Into<String>) -> Self {
        self.adapter_name = Some(name.into());
        self
    }

    /// The client's version in reports (default: the version an adapter program announced,
    /// else the client crate's package version when the name is the package's).
    pub fn adapter_version(mut self, version: impl Into<String>) -> Self {
        self.adapter_version = Some(version.into());
        self
    }

    /// The client timeout of every call whose case names none (default 5 s, the case format's
    /// own). A shorter one keeps runs fast for a client that waits for its timeout where it
    /// should fail fast; cases that name a timeout keep theirs.
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// How many cases run at once when `--test-threads` is not given (default: libtest's, the
    /// number of cores). Cases mostly wait on sockets and timers, so more than the cores helps.
    pub fn test_threads(mut self, threads: usize) -> Self {
        self.test_threads = Some(threads.max(1));
        self
    }

    /// The client cannot run on this machine (a missing tool, a failed setup): every case is
    /// reported as ignored with `reason`, none runs and none passes.
    pub fn unavailable(mut self, reason: impl Into<String>) -> Self {
        self.unavailable = Some(reason.into());
        self
    }

    /// Every default filled in and every path made absolute.
    pub(super) fn resolve(self, caller: &Caller) -> Resolved {
        let root = Path::new(caller.manifest_dir);
        let baseline_required = self.baseline.is_some();
        let baseline = self.baseline.unwrap_or_else(|| DEFAULT_BASELINE.into());
        let strict = self.strict.unwrap_or_else(strict_from_env);
        Resolved {
            root: root.to_owned(),
            case_folders: self.case_folders.iter().map(|f| root.join(f)).collect(),
            skip: self.skip,
            reports: self.reports.unwrap_or_else(ReportPaths::from_env),
            strict,
            options: RunOptions {
                deadline_margin: self.deadline_margin,
                default_timeout: self.default_timeout,
                rules: Rules::strict(strict),
                ..RunOptions::default()
            },
            snapshots: self.snapshots.map(|folder| root.join(folder)),
            baseline: root.join(baseline),
            baseline_required,
            test_threads: self.test_threads,
            unavailable: self.unavailable,
            naming: Naming {
                name: self.adapter_name,
                version: self.adapter_version,
                package: caller.package,
                package_version: caller.version,
            },
        }
    }
}

/// Where the adapter's name and version in reports come from: the config, else what the
/// adapter announced, else the client crate's package.
#[derive(Debug, Clone)]
pub(super) struct Naming {
    name: Option<String>,
    version: Option<String>,
    package: &'static str,
    package_version: &'static str,
}

impl Naming {
    /// The name and version, given what the driver said about itself after the run. A version
    /// is never taken from another source than the name: an announced name with no version is
    /// a client of unknown version, not one of the client crate's.
    pub fn info(&self, driver: &DriverInfo) -> AdapterInfo {
        let (name, fallback_version) = match (&self.name, &driver.name) {
            (Some(name), _) => (name.clone(), None),
            (None, Some(announced)) => (announced.clone(), driver.version.clone()),
            (None, None) => (
                self.package.to_owned(),
                Some(self.package_version.to_owned()),
            ),
        };
        let version = self
            .version
            .clone()
            .or_else(|| match self.name {
                Some(_) => driver.version.clone(),
                None => None,
            })
            .or(fallback_version);
        AdapterInfo { name, version }
    }
}

fn strict_from_env() -> bool {
    std::env::var_os(STRICT_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// A [`Config`] with its defaults applied: what the run actually uses.
#[derive(Debug, Clone)]
pub(super) struct Resolved {
    /// The client crate's manifest folder.
    pub root: PathBuf,
    pub case_folders: Vec<PathBuf>,
    pub skip: Vec<String>,
    pub reports: ReportPaths,
    pub strict: bool,
    pub options: RunOptions,
    pub snapshots: Option<PathBuf>,
    pub baseline: PathBuf,
    /// Whether the baseline was named explicitly (and so must exist).
    pub baseline_required: bool,
    /// Cases run at once unless `--test-threads` says otherwise.
    pub test_threads: Option<usize>,
    /// Why no case can run: every case trial is ignored with this reason.
    pub unavailable: Option<String>,
    pub naming: Naming,
}

impl Resolved {
    /// `path` as a person reads it in a message: relative to the client crate when inside it.
    pub fn shown(&self, path: &Path) -> String {
        let relative = path.strip_prefix(&self.root).unwrap_or(path);
        relative.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller() -> Caller {
        Caller {
            manifest_dir: "/work/client",
            package: "client",
            version: "1.2.3",
            assert_snapshot: |_, _| {},
        }
    }

    #[test]
    fn defaults_resolve_inside_the_client_crate() {
        let resolved = Config::new().strict(false).resolve(&caller());
        assert_eq!(
            resolved.snapshots.as_deref(),
            Some(Path::new("/work/client/tests/snapshots/mcp-error-layers"))
        );
        assert_eq!(
            resolved.baseline,
            Path::new("/work/client/tests/mcp-error-layers.baseline.toml")
        );
        assert!(!resolved.baseline_required);
        let adapter = resolved.naming.info(&DriverInfo::default());
        assert_eq!(adapter.name, "client");
        assert_eq!(adapter.version.as_deref(), Some("1.2.3"));
        assert_eq!(
            resolved.shown(&resolved.baseline),
            "tests/mcp-error-layers.baseline.toml"
        );
    }

    #[test]
    fn explicit_settings_win_and_absolute_paths_stay() {
        let resolved = Config::new()
            .cases("mine")
            .cases("/elsewhere/cases")
            .baseline("ok.toml")
            .no_snapshots()
            .adapter_name("x")
            .deadline_margin(Duration::from_millis(5))
            .resolve(&caller());
        assert_eq!(
            resolved.case_folders,
            [
                PathBuf::from("/work/client/mine"),
                PathBuf::from("/elsewhere/cases")
            ]
        );
        assert!(resolved.baseline_required && resolved.snapshots.is_none());
        assert_eq!(resolved.naming.info(&DriverInfo::default()).name, "x");
        assert_eq!(resolved.options.deadline_margin, Duration::from_millis(5));
        assert!(resolved.options.default_timeout.is_none() && resolved.unavailable.is_none());
    }

    #[test]
    fn a_name_the_config_gives_wins_over_an_announced_one_and_the_package() {
        let announced = DriverInfo {
            name: Some("fastmcp".into()),
            version: Some("2.13.0".into()),
            ..DriverInfo::default()
        };
        let info = |config: Config| config.resolve(&caller()).naming.info(&announced);
        let plain = info(Config::new());
        assert_eq!(
            (plain.name.as_str(), plain.version.as_deref()),
            ("fastmcp", Some("2.13.0"))
        );
        let named = info(Config::new().adapter_name("fastmcp+strict"));
        assert_eq!(named.name, "fastmcp+strict");
        assert_eq!(
            named.version.as_deref(),
            Some("2.13.0"),
            "the announced version stays"
        );
        let pinned = info(Config::new().adapter_name("x").adapter_version("1"));
        assert_eq!(pinned.version.as_deref(), Some("1"));
        let nameless = DriverInfo {
            name: Some("client-x".into()),
            ..DriverInfo::default()
        };
        let unknown = Config::new().resolve(&caller()).naming.info(&nameless);
        assert_eq!(unknown.version, None, "not the client crate's version");
    }

    #[test]
    fn sdk_settings_reach_the_run() {
        let resolved = Config::new()
            .default_timeout(Duration::from_millis(1_500))
            .test_threads(0)
            .unavailable("no node")
            .resolve(&caller());
        let timeout = resolved.options.default_timeout;
        assert_eq!(timeout, Some(Duration::from_millis(1_500)));
        assert_eq!(resolved.test_threads, Some(1));
        assert_eq!(resolved.unavailable.as_deref(), Some("no node"));
    }
}
