//! One SDK row of `cargo test --test sdk` (`harness/sdk.rs`): the adapter under
//! `harness/adapters/<row>/` (its `adapter.toml`), its automatic, cached setup, and the
//! [`Config`] its matrix runs with. Which rows run, and how, is `sdk_rows.rs`'s.
//!
//! Setup happens before the trials, once per run, under a lock folder so that parallel runs
//! (two `cargo test`s, nextest's processes) do not install into the same place at once:
//!
//! - `install = "npm"`: `npm ci` when `node_modules` is missing or older than
//!   `package-lock.json` (a marker file records the last install);
//! - `install = "pip"`: a virtualenv in `<target>/sdk-venvs/<adapter>` (`python3 -m venv`, then
//!   `pip install --no-deps -r requirements.lock`), rebuilt when the lock's hash, kept in a
//!   marker file, changes;
//! - `install = "cargo"`: `cargo build --release --locked` with
//!   `CARGO_TARGET_DIR=<target>/sdk-rust`, one folder for every Rust adapter, so that what they
//!   share (tokio, hyper, reqwest, serde) is compiled once (cargo caches it);
//! - `install = "go"`: `go build` of the row's module (its committed `go.mod` and `go.sum`,
//!   `GOFLAGS=-mod=readonly`, `GOTOOLCHAIN=local`) into `<target>/sdk-go/bin`, with GOMODCACHE
//!   and GOCACHE under `<target>/sdk-go`;
//! - `install = "maven"`: the JVM rows' reactor (`harness/adapters/jvm/pom.xml`): `mvn
//!   dependency:go-offline` once into `<target>/sdk-maven/m2`, the resolved list checked against
//!   the committed `dependencies.txt`, then `mvn -o package` into `<target>/sdk-maven/build`,
//!   redone when a file of its modules changes; the row runs `java -jar build/<program>`.
//!
//! What each adapter is, and how it is installed, is its `harness/adapters/<id>/adapter.toml`.
//!
//! `<target>` is `CARGO_TARGET_DIR`, else `target/` in this crate. A machine without the tool
//! (or whose setup fails) reports every case of that SDK as ignored, with the reason; with
//! `MCP_ERROR_LAYERS_REQUIRE_SDKS=1` (CI) it fails the run instead.

#[path = "sdk_sample.rs"]
mod sdk_sample;

use mcp_error_layers::Config;
use mcp_error_layers::adapter::process::ProcessAdapter;
use mcp_error_layers::adapter::process::agent::AgentAdapter;
use mcp_error_layers::adapter::process::agent::spec::AgentSpec;
use mcp_error_layers::adapter::process::bridge::BridgeAdapter;
use mcp_error_layers::adapter::process::bridge::spec::BridgeSpec;
use mcp_error_layers::case::Transport;
use mcp_error_layers::input;
use mcp_error_layers::report::{Format, ReportPaths};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

/// The row a process runs: the folder under `harness/adapters/` (set by `sdk_rows.rs` for each
/// row's process).
pub const ROW_VAR: &str = "MCP_ERROR_LAYERS_SDK_ROW";
/// Set (to anything but `0`) to make an SDK that cannot be set up fail the run.
pub const REQUIRE_VAR: &str = "MCP_ERROR_LAYERS_REQUIRE_SDKS";
/// A folder: each SDK row writes its JSON report there as `<id>.json`, so that one
/// `cargo test` runs every row once and leaves what `matrix.py` reads (`.ci/run` does this).
/// A row's own `MCP_ERROR_LAYERS_JSON` still wins.
pub const REPORTS_VAR: &str = "MCP_ERROR_LAYERS_SDK_REPORTS";
/// Set by `harness/adapters/sweep.py` (with [`SWEEP_VERSION_VAR`]): the adapter's command, a
/// JSON array of words, for the SDK installed at another version than the pin. The row then
/// runs that command instead of setting up the pinned one, names that version in its report,
/// and reads neither snapshots nor baseline (they describe the pinned version).
pub const SWEEP_COMMAND_VAR: &str = "MCP_ERROR_LAYERS_SWEEP_COMMAND";
/// The version [`SWEEP_COMMAND_VAR`]'s installation is of.
pub const SWEEP_VERSION_VAR: &str = "MCP_ERROR_LAYERS_SWEEP_VERSION";

/// The client timeout of calls whose case names none, in an SDK or framework row: the case
/// format's own default (5 s). Every case whose point is a timeout names its own `timeout_ms`,
/// so this one only bounds calls that should end by themselves; shorter (the rows had 1.5 s),
/// a slow success on a busy machine turned into TIMEOUT and the record depended on the load
/// (issue 45). An SDK that waits for its timeout where it should fail fast (a `202`, a response
/// with another id, a cut stream) costs this much per such case.
const DEFAULT_TIMEOUT: Duration =
    Duration::from_millis(mcp_error_layers::case::model::DEFAULT_TIMEOUT_MS);
/// The same for an agent or a bridge row: whether its call timed out is decided by the agent's
/// or the bridge's own timeouts (minutes), this only says when the harness counts the call as
/// one that outlived its timeout; their baselines were recorded with it.
const AGENT_DEFAULT_TIMEOUT: Duration = Duration::from_millis(1_500);
/// Cases at once, unless the adapter's `threads` says otherwise: they mostly wait on sockets
/// and timers.
const THREADS: usize = 8;
/// Cases at once of an agent row unless it says otherwise: each case runs a whole agent (a
/// Node or native process of 100 to 300 MB that works while it starts).
const AGENT_THREADS: usize = 4;
/// Cases at once of a bridge row unless it says otherwise: its cases mostly wait for the
/// bridge's own upstream timeout (up to 300 s), on no core, so CI's sample (32 cases) runs in
/// one wave: mcp-proxy's took 637 s with 16 at once, the length of its slowest case twice.
const BRIDGE_THREADS: usize = 32;
/// Past the call's timeout before an agent row's call is a hang, unless it says otherwise: the
/// agent's turn after the result (a model request) and its exit after the final text
/// (`agent::FINISH_WAIT`, 2 s) are inside the call's deadline.
const AGENT_DEADLINE_MARGIN_MS: u64 = 6_000;
/// The most cases at once an `adapter.toml` may ask for: the most calls one persistent process
/// may serve at once (docs/adapters.md, "Serving calls at once").
const MAX_THREADS: usize = 64;
/// How long a persistent adapter has to announce itself (not part of any call's time). The
/// Python adapters import their SDK before they announce (`agents` takes 4 s of CPU), and a
/// machine that runs several rows and builds at once stretches that past 20 s: a bound
/// against a program that never announces, not a speed target.
const ANNOUNCE_TIMEOUT: Duration = Duration::from_secs(60);
/// Past the call's timeout before the runner calls it a hang: room for the SDK's connect and
/// teardown on a loaded machine, so that an SDK's own TIMEOUT is not taken for a hang.
const DEADLINE_MARGIN: Duration = Duration::from_secs(3);
/// The longest any duration an `adapter.toml` names may be (`deadline_margin_ms`,
/// `announce_timeout_ms`, `default_timeout_ms`): ten minutes.
const MAX_MS: u64 = 600_000;

/// One SDK adapter: its `harness/adapters/<name>/adapter.toml`, the single list of adapters
/// (`adapters.py` reads the same files for CI, the matrix and `try.sh`).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sdk {
    /// Its folder under `harness/adapters/`, its name in reports and its snapshot folder.
    #[serde(skip)]
    pub name: String,
    /// The folder its `adapter.toml` is in.
    #[serde(skip)]
    folder: PathBuf,
    /// `"framework"` for a framework on top of an SDK (the matrix groups the rows by kind);
    /// absent for an SDK. Agent and bridge rows say `"agent"` and `"bridge"` (their own specs).
    #[serde(default)]
    kind: Option<String>,
    /// The package as its registry names it (for people and `adapters.py`).
    #[allow(dead_code)]
    sdk: String,
    /// The pinned SDK version.
    pub version: String,
    /// How it is installed: `npm`, `pip`, `cargo`, `go` or `maven`.
    install: Install,
    /// npm and pip: the script, relative to the adapter's folder; cargo and go: the binary's
    /// name.
    program: String,
    /// Arguments before the endpoint URL (a variant's setting, say).
    #[serde(default)]
    args: Vec<String>,
    /// The adapter whose lock is installed and reused (a variant of it); default: this one.
    installed_with: Option<String>,
    /// What a variant changes from the SDK's defaults, for people.
    #[allow(dead_code)]
    setting: Option<String>,
    /// Whether the adapter serves many calls per process (persistent mode): what keeps a
    /// case's client between its calls (docs/adapters.md, "One client per case"); every row has it.
    pub persistent: bool,
    /// The transports its program speaks: `http` and, if its client has a stdio entry point,
    /// `stdio` (docs/stdio.md); default `["http"]`: the stdio cases are `unsupported`.
    #[serde(default = "http_only")]
    transports: Vec<Transport>,
    /// Whether its program hands its client the start credentials of an authorization case
    /// (docs/adapters.md, "Credentials"); default `false`: the auth cases are left out of its
    /// run, as the stdio cases are for an HTTP-only row.
    #[serde(default)]
    auth: bool,
    /// The cases whose result differs from run to run (read by matrix.py, which shows `racy`
    /// for them); their baseline reasons start with `racy: `, so their snapshots are not
    /// compared.
    #[serde(default)]
    #[allow(dead_code)]
    racy: Vec<String>,
    /// Whether the program is an SDK's conformance client (docs/conformance-clients.md) rather
    /// than an adapter: run per call with the conformance suite's contract, judged on its exit
    /// status. Needs `persistent = false`.
    #[serde(default)]
    conformance_client: bool,
    /// How long past a call's timeout the runner waits before it calls a hang, when not
    /// [`DEADLINE_MARGIN`]: a retrying variant whose every attempt gets the whole timeout needs
    /// room for all of them, so that its final outcome is observed. At most [`MAX_MS`].
    deadline_margin_ms: Option<u64>,
    /// How long a persistent process may take to announce, when not [`ANNOUNCE_TIMEOUT`]. At
    /// most [`MAX_MS`].
    announce_timeout_ms: Option<u64>,
    /// The client timeout of a call whose case names none, when not [`DEFAULT_TIMEOUT`]. At
    /// most [`MAX_MS`].
    default_timeout_ms: Option<u64>,
    /// Cases at once in its matrix when not [`THREADS`], from 1 to [`MAX_THREADS`]: a row whose
    /// cases mostly wait (a retrying variant's back-off) runs faster with more, and a persistent
    /// adapter that serves calls at once serves them without more processes.
    threads: Option<usize>,
    /// npm: a folder, relative to the installed one, whose `npm ci` installs the Node that runs
    /// the program (at `node_modules/.bin/node`), for an SDK that needs a newer Node than the
    /// machine's; default: the `node` on `PATH`.
    node: Option<String>,
    /// How `sweep.py` installs the SDK at another version (harness/adapters/README.md).
    #[allow(dead_code)]
    sweep: Option<toml::Table>,
    /// An agent row (`kind = "agent"`, docs/adapters.md "Agent rows"): its `adapter.toml` as
    /// the library reads it; the fields above then say only its version, install and timings.
    #[serde(skip)]
    agent: Option<AgentSpec>,
    /// A bridge row (`kind = "bridge"`, docs/bridges.md): its `adapter.toml` as the library
    /// reads it; the fields above then say only its version, install and timings.
    #[serde(skip)]
    bridge: Option<BridgeSpec>,
}

fn http_only() -> Vec<Transport> {
    vec![Transport::Http]
}

#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Install {
    Npm,
    Pip,
    Cargo,
    /// `go build` of the row's module (its committed `go.mod` and `go.sum`) into
    /// `<target>/sdk-go/bin`, the module and build caches under `<target>/sdk-go`.
    Go,
    /// The JVM rows' Maven reactor (`harness/adapters/jvm/pom.xml`) packaged offline into
    /// `<target>/sdk-maven/build`, its local repository `<target>/sdk-maven/m2` ([`maven_package`]).
    Maven,
}

impl Sdk {
    /// Reads `harness/adapters/<name>/adapter.toml`. A missing file (a packaged copy of this
    /// crate has no `harness/adapters/`) or a broken one makes the SDK unavailable, with the
    /// file and the key named; under [`REQUIRE_VAR`] it fails the run.
    pub fn load(name: &str) -> Result<Sdk, String> {
        Sdk::load_from(&root().join("harness/adapters").join(name), name)
    }

    /// Reads `<folder>/adapter.toml`, an adapter named `name` (a folder elsewhere than under
    /// `harness/adapters/`: a conformance client under `harness/conformance-clients/`).
    pub fn load_from(folder: &Path, name: &str) -> Result<Sdk, String> {
        let path = folder.join("adapter.toml");
        let text =
            input::read_to_string(&path, input::Kind::AdapterSpec).map_err(|e| e.to_string())?;
        if text.lines().any(|line| line.trim() == "kind = \"agent\"") {
            let spec = AgentSpec::load(folder)?;
            return Ok(Sdk::of_agent(spec, folder, name));
        }
        if text.lines().any(|line| line.trim() == "kind = \"bridge\"") {
            let spec = BridgeSpec::load(folder)?;
            return Ok(Sdk::of_bridge(spec, folder, name));
        }
        let mut sdk: Sdk = toml::from_str(&text)
            .map_err(|e| format!("{}: {e} (keys: harness/adapters/README.md)", path.display()))?;
        sdk.name = name.to_owned();
        sdk.folder = folder.to_owned();
        if let Some(kind) = sdk.kind.as_deref().filter(|k| *k != "framework") {
            return Err(format!(
                "{}: `kind = {kind:?}`: an SDK row has none, a framework \"framework\", an agent \
                 \"agent\", a bridge \"bridge\"",
                path.display()
            ));
        }
        if sdk.conformance_client && sdk.persistent {
            return Err(format!(
                "{}: `conformance_client = true` runs one process per call: set \
                 `persistent = false`",
                path.display()
            ));
        }
        if let Some(threads) = sdk.threads {
            if !(1..=MAX_THREADS).contains(&threads) {
                return Err(format!(
                    "{}: `threads = {threads}`: cases at once, from 1 to {MAX_THREADS}",
                    path.display()
                ));
            }
        }
        let durations = [
            ("deadline_margin_ms", sdk.deadline_margin_ms),
            ("announce_timeout_ms", sdk.announce_timeout_ms),
            ("default_timeout_ms", sdk.default_timeout_ms),
        ];
        for (key, ms) in durations {
            if ms.is_some_and(|ms| !(1..=MAX_MS).contains(&ms)) {
                return Err(format!(
                    "{}: `{key}` is {}: milliseconds, from 1 to {MAX_MS}",
                    path.display(),
                    ms.unwrap_or_default()
                ));
            }
        }
        Ok(sdk)
    }

    /// Whether it is an agent row.
    pub fn is_agent(&self) -> bool {
        self.agent.is_some()
    }

    /// An agent row: installed with `npm ci` in its folder, driven by an [`AgentAdapter`].
    fn of_agent(spec: AgentSpec, folder: &Path, name: &str) -> Sdk {
        Sdk {
            sdk: spec.agent.clone(),
            version: spec.version.clone(),
            setting: spec.setting.clone(),
            racy: spec.racy.clone(),
            deadline_margin_ms: spec.deadline_margin_ms.or(Some(AGENT_DEADLINE_MARGIN_MS)),
            default_timeout_ms: spec.default_timeout_ms,
            threads: Some(spec.threads.unwrap_or(AGENT_THREADS)),
            auth: spec.auth.is_some(),
            agent: Some(spec),
            ..Sdk::started_per_case(name, folder, "agent", Install::Npm)
        }
    }

    /// What an agent and a bridge row share: someone else's program, which the harness starts
    /// for every case (no adapter program, no arguments of a variant, not persistent, over HTTP
    /// only); their own specs fill in the rest.
    fn started_per_case(name: &str, folder: &Path, kind: &str, install: Install) -> Sdk {
        Sdk {
            name: name.to_owned(),
            folder: folder.to_owned(),
            kind: Some(kind.to_owned()),
            sdk: String::new(),
            version: String::new(),
            install,
            program: String::new(),
            args: Vec::new(),
            installed_with: None,
            setting: None,
            persistent: false,
            transports: http_only(),
            auth: false,
            racy: Vec::new(),
            conformance_client: false,
            deadline_margin_ms: None,
            announce_timeout_ms: None,
            default_timeout_ms: None,
            threads: None,
            node: None,
            sweep: None,
            agent: None,
            bridge: None,
        }
    }

    /// Whether it is a bridge row.
    pub fn is_bridge(&self) -> bool {
        self.bridge.is_some()
    }

    /// A bridge row: installed with `npm ci` in its folder or into a venv of its own, driven by
    /// a [`BridgeAdapter`] (which tells the runner how long past a call's timeout it may wait:
    /// the bridge's own timeout).
    fn of_bridge(spec: BridgeSpec, folder: &Path, name: &str) -> Sdk {
        let install = match spec.install.as_str() {
            "pip" => Install::Pip,
            _ => Install::Npm,
        };
        Sdk {
            sdk: spec.bridge.clone(),
            version: spec.version.clone(),
            setting: spec.setting.clone(),
            racy: spec.racy.clone(),
            threads: Some(spec.threads.unwrap_or(BRIDGE_THREADS)),
            auth: spec.auth.is_some(),
            bridge: Some(spec),
            ..Sdk::started_per_case(name, folder, "bridge", install)
        }
    }

    /// Its duration `ms` if it names one, else `default` (bounds checked when it was read).
    fn duration(ms: Option<u64>, default: Duration) -> Duration {
        ms.map_or(default, Duration::from_millis)
    }

    /// The Node that runs an npm row: its own (installed from the registry) or the machine's.
    fn node(&self, installed: &Path) -> Result<PathBuf, String> {
        let Some(folder) = &self.node else {
            return Ok("node".into());
        };
        let folder = installed.join(folder);
        npm_ci(&folder)?;
        let node = folder.join("node_modules/.bin/node");
        run(Command::new(&node).arg("--version"), "the row's own node")?;
        Ok(node)
    }

    /// The folder whose lock is installed.
    fn installed(&self) -> &str {
        self.installed_with.as_deref().unwrap_or(&self.name)
    }

    fn setup(&self, paths: &Paths) -> Result<Vec<PathBuf>, String> {
        let own = self.folder.clone();
        let installed = match &self.installed_with {
            Some(other) => own.parent().unwrap_or(&own).join(other),
            None => own.clone(),
        };
        let mut command = match self.install {
            Install::Npm if self.agent.is_some() => {
                npm_install_locked(&installed)?;
                vec![installed.clone()]
            }
            Install::Npm if self.bridge.is_some() => {
                npm_ci(&installed)?;
                vec![installed.clone()]
            }
            Install::Pip if self.bridge.is_some() => {
                let venv = paths.target.join("sdk-venvs").join(self.installed());
                pip_venv(&venv, &installed.join("requirements.lock"))?;
                vec![venv]
            }
            Install::Npm => {
                npm_ci(&installed)?;
                vec![self.node(&installed)?, own.join(&self.program)]
            }
            Install::Pip => {
                let venv = paths.target.join("sdk-venvs").join(self.installed());
                let python = pip_venv(&venv, &installed.join("requirements.lock"))?;
                vec![python, own.join(&self.program)]
            }
            Install::Cargo => {
                let target = paths.target.join(RUST_TARGET);
                cargo_build(&installed, &target)?;
                vec![target.join("release").join(&self.program)]
            }
            Install::Go => {
                let binary = go_build(&installed, &paths.target.join(GO_TARGET), &self.program)?;
                vec![binary]
            }
            Install::Maven => {
                let build = maven_package(&paths.target.join(MAVEN_TARGET))?;
                vec!["java".into(), "-jar".into(), build.join(&self.program)]
            }
        };
        command.extend(self.args.iter().map(PathBuf::from));
        Ok(command)
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where things are.
struct Paths {
    /// The target folder.
    target: PathBuf,
}

/// One adapter, read and set up once per process (each target runs one; the adapter and the
/// config both need it).
struct Prepared {
    /// The adapter's id (its folder), or this target's name when no adapter names it.
    name: String,
    sdk: Result<Sdk, String>,
    /// The program and its arguments, or why there is none.
    command: Result<Vec<PathBuf>, String>,
}

/// The row this process runs, found and set up on first use: the one [`ROW_VAR`] names.
fn prepared() -> &'static Prepared {
    static PREPARED: OnceLock<Prepared> = OnceLock::new();
    PREPARED.get_or_init(|| {
        let (name, sdk) = match std::env::var(ROW_VAR) {
            Ok(name) => {
                let sdk = Sdk::load(&name);
                (name, sdk)
            }
            Err(_) => ("sdk".to_owned(), Err(format!("{ROW_VAR} names no row"))),
        };
        let command = match (&sdk, swept()) {
            (Ok(_), Some((command, _))) => command,
            (Ok(sdk), None) => set_up(sdk),
            (Err(reason), _) => Err(reason.clone()),
        };
        if let Err(reason) = &command {
            let required = std::env::var_os(REQUIRE_VAR).is_some_and(|v| !v.is_empty() && v != "0");
            if required {
                eprintln!("error: {name}: {reason} ({REQUIRE_VAR} is set)");
                std::process::exit(101);
            }
            eprintln!("warning: {name}: every case is ignored: {reason}");
        }
        Prepared { name, sdk, command }
    })
}

/// Every row: the folders under `harness/adapters/` with an `adapter.toml`, sorted (the
/// matrix's column order). A new row is a new folder.
pub fn rows() -> Result<Vec<String>, String> {
    let adapters = root().join("harness/adapters");
    let folders = std::fs::read_dir(&adapters)
        .map_err(|e| format!("cannot read {}: {e}", adapters.display()))?;
    let mut found: Vec<String> = folders
        .flatten()
        .filter(|folder| folder.path().join("adapter.toml").is_file())
        .map(|folder| folder.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    Ok(found)
}

/// Row `name`, installed (cached): its command. For tests that drive a row's SDK with a program
/// of their own (`harness/doc_adapters.rs`).
#[allow(dead_code)] // only harness/doc_adapters.rs uses it
pub fn installed(name: &str) -> Result<Vec<PathBuf>, String> {
    set_up(&Sdk::load(name)?)
}

/// Installs `sdk` (cached) and returns its command.
pub fn set_up(sdk: &Sdk) -> Result<Vec<PathBuf>, String> {
    let root = root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| root.join("target"), |dir| root.join(dir));
    let paths = Paths { target };
    let started = Instant::now();
    // The JVM rows share one reactor build: one lock for all of them.
    let lock = match sdk.install {
        Install::Maven => "maven",
        _ => sdk.installed(),
    };
    let result = locked(&paths.target, lock, || sdk.setup(&paths));
    if result.is_ok() && started.elapsed() > Duration::from_secs(2) {
        eprintln!("{}: set up in {:.1?}", sdk.name, started.elapsed());
    }
    result
}

/// The agent of this target's row, when it is an agent row (`kind = "agent"`).
pub fn agent() -> Option<AgentAdapter> {
    let prepared = prepared();
    let (Ok(sdk), Ok(command)) = (&prepared.sdk, &prepared.command) else {
        return None;
    };
    let spec = sdk.agent.clone()?;
    Some(AgentAdapter::new(spec, &command[0]))
}

/// The bridge of this target's row, when it is a bridge row (`kind = "bridge"`).
pub fn bridge() -> Option<BridgeAdapter> {
    let prepared = prepared();
    let (Ok(sdk), Ok(command)) = (&prepared.sdk, &prepared.command) else {
        return None;
    };
    let spec = sdk.bridge.clone()?;
    Some(BridgeAdapter::new(spec, &command[0]))
}

/// The adapter program of this target's row.
pub fn adapter() -> ProcessAdapter {
    let prepared = prepared();
    let (Ok(sdk), Ok(command)) = (&prepared.sdk, &prepared.command) else {
        // Never started: every trial is ignored (see `config`).
        return ProcessAdapter::new("false", &[] as &[PathBuf]).one_shot();
    };
    sdk.adapter(command)
}

impl Sdk {
    /// The adapter that runs `command`, this adapter's installed program: persistent, one
    /// process per call, or a conformance client.
    pub fn adapter(&self, command: &[PathBuf]) -> ProcessAdapter {
        let adapter = ProcessAdapter::new(&command[0], &command[1..])
            .with_stdio(self.transports.contains(&Transport::Stdio))
            .with_credentials(self.auth);
        match (self.conformance_client, self.persistent) {
            (true, _) => adapter.conformance_client(),
            (false, true) => adapter
                .with_announce_timeout(Sdk::duration(self.announce_timeout_ms, ANNOUNCE_TIMEOUT)),
            (false, false) => adapter.one_shot(),
        }
    }
}

/// The configuration of this target's matrix: its snapshots, its baseline, short timeouts. When
/// the SDK cannot run, neither is read (a packaged copy of this crate has no `harness/adapters/`).
pub fn config() -> Config {
    let prepared = prepared();
    let name = prepared.name.as_str();
    let mut config = Config::new().adapter_name(name);
    if let Ok(sdk) = &prepared.sdk {
        config = config.adapter_version(&sdk.version);
    }
    if let Some((_, version)) = swept() {
        config = config.adapter_version(version).no_snapshots();
    }
    // `command` is an error whenever `sdk` is one.
    if let Err(reason) = &prepared.command {
        return config
            .no_snapshots()
            .unavailable(format!("{name}: {reason}"));
    }
    // An agent races with itself (a notification sent beside the call it re-sends, a stream
    // resumed just inside or outside the deadline), so the request checks of its calls differ
    // from run to run: its baseline (every deviating case, with what the model was told) and its
    // JSON report are its record, not snapshots of every check.
    let agent = prepared.sdk.as_ref().is_ok_and(Sdk::is_agent);
    // A bridge's record is its baseline and JSON report too: its stalled cases wait for the
    // bridge's own timeout, which is when its cancel reaches the upstream server.
    let agent = agent || prepared.sdk.as_ref().is_ok_and(Sdk::is_bridge);
    let config = match (swept(), agent) {
        (Some(_), _) => config.reports(ReportPaths::from_env()),
        (None, true) => config
            .no_snapshots()
            .reports(reports(name))
            .baseline(format!("harness/adapters/{name}/baseline.toml")),
        (None, false) => config
            .reports(reports(name))
            .snapshots(format!("snapshots/{name}"))
            .baseline(format!("harness/adapters/{name}/baseline.toml")),
    };
    let sdk = prepared.sdk.as_ref().ok();
    // A row whose adapter drives no stdio client (today the agent rows, driven over HTTP) leaves
    // the stdio cases out of its run: they would all be `unsupported`, and the agent table is the
    // record of one run of the HTTP cases.
    let config = match sdk.is_some_and(|sdk| sdk.transports.contains(&Transport::Stdio)) {
        true => config,
        false => config.skip("stdio/"),
    };
    // Likewise the authorization cases, for a row whose adapter does not hand its client the
    // credentials yet (`auth = true` in its adapter.toml once it does; an `[auth]` table in an
    // agent's or a bridge's).
    let config = match sdk.is_some_and(|sdk| sdk.auth) {
        true => config,
        false => config.skip("auth/"),
    };
    let config = match agent {
        true => leave_out_of_sample(config),
        false => config,
    };
    let default_timeout = sdk.and_then(|sdk| sdk.default_timeout_ms);
    let margin = sdk.and_then(|sdk| sdk.deadline_margin_ms);
    let timeout = match agent {
        true => AGENT_DEFAULT_TIMEOUT,
        false => DEFAULT_TIMEOUT,
    };
    config
        .default_timeout(Sdk::duration(default_timeout, timeout))
        .deadline_margin(Sdk::duration(margin, DEADLINE_MARGIN))
        .test_threads(sdk_threads(prepared))
}

/// `config` with the cases outside the agent sample ([`sdk_sample::AGENT_CASES_VAR`]) skipped;
/// a sample that cannot be used makes the row unavailable, naming the file and line.
fn leave_out_of_sample(config: Config) -> Config {
    match sdk_sample::left_out() {
        Ok(ids) => ids.into_iter().fold(config, |config, id| config.skip(id)),
        Err(why) => config.no_snapshots().unavailable(why),
    }
}

/// The command and version of a sweep's installation ([`SWEEP_COMMAND_VAR`]), when one is
/// set; a command that is no JSON array of words is an error naming the variable.
fn swept() -> Option<(Result<Vec<PathBuf>, String>, String)> {
    let command = std::env::var(SWEEP_COMMAND_VAR).ok()?;
    let version = std::env::var(SWEEP_VERSION_VAR).unwrap_or_else(|_| "unknown".into());
    let words = serde_json::from_str::<Vec<PathBuf>>(&command)
        .map_err(|e| format!("{SWEEP_COMMAND_VAR} is not a JSON array of words: {e}"))
        .and_then(|words| match words.is_empty() {
            true => Err(format!("{SWEEP_COMMAND_VAR} is an empty command")),
            false => Ok(words),
        });
    Some((words, version))
}

/// The reports the `MCP_ERROR_LAYERS_*` variables ask for, plus `<REPORTS_VAR>/<name>.json`.
fn reports(name: &str) -> ReportPaths {
    let own = ReportPaths::from_env();
    match std::env::var_os(REPORTS_VAR).filter(|dir| !dir.is_empty()) {
        Some(dir) => {
            let json = PathBuf::from(dir).join(format!("{name}.json"));
            own.or(&ReportPaths::none().with(Format::Json, json))
        }
        None => own,
    }
}

/// The cases at once of a set-up adapter (`threads`, checked when it was read), else the
/// default.
fn sdk_threads(prepared: &Prepared) -> usize {
    let threads = prepared.sdk.as_ref().ok().and_then(|sdk| sdk.threads);
    threads.unwrap_or(THREADS)
}

/// `npm ci` in `folder` unless `node_modules` is newer than the lock.
fn npm_ci(folder: &Path) -> Result<(), String> {
    npm_locked(folder, &["ci"], "npm-ci")
}

/// An agent row's install: `npm install --no-save` (the lock's versions, the lock left as it
/// is) unless `node_modules` is newer than the lock. Not `npm ci`: an agent's package lists a
/// native build per platform as optional dependencies, some of which the registry does not
/// have (`opencode-darwin-arm64`, `@teddyzhu/clipboard-darwin-arm64`), and `npm ci` refuses a
/// lock without them while `npm install` skips what it cannot install on this platform.
fn npm_install_locked(folder: &Path) -> Result<(), String> {
    npm_locked(folder, &["install", "--no-save"], "npm-install")
}

/// `npm ARGS --no-audit --no-fund` in `folder` unless the marker `marker` in its
/// `node_modules` is newer than its `package-lock.json`.
fn npm_locked(folder: &Path, args: &[&str], marker: &str) -> Result<(), String> {
    run(Command::new("node").arg("--version"), "node")?;
    let marker = folder.join(format!("node_modules/.mcp-error-layers-{marker}"));
    if modified(&marker) < modified(&folder.join("package-lock.json")) {
        let mut npm = Command::new("npm");
        npm.args(args)
            .args(["--no-audit", "--no-fund"])
            .current_dir(folder);
        run(&mut npm, &format!("npm {}", args.join(" ")))?;
        write(&marker, "")?;
    }
    Ok(())
}

/// A virtualenv at `venv` with `lock` installed, rebuilt when the lock changes; returns its
/// python.
fn pip_venv(venv: &Path, lock: &Path) -> Result<PathBuf, String> {
    let hash = std::fs::read(lock)
        .map(|bytes| format!("{:016x}\n", fnv1a(&bytes)))
        .map_err(|e| format!("cannot read {}: {e}", lock.display()))?;
    let marker = venv.join(".mcp-error-layers-lock-hash");
    let python = venv.join("bin/python");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(hash.as_str()) {
        let _ = std::fs::remove_dir_all(venv);
        let mut create = Command::new("python3");
        create.args(["-m", "venv"]).arg(venv);
        run(&mut create, "python3 -m venv")?;
        let mut pip = Command::new(venv.join("bin/pip"));
        pip.args([
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-deps",
            "-r",
        ])
        .arg(lock);
        run(&mut pip, "pip install -r requirements.lock")?;
        write(&marker, &hash)?;
    }
    Ok(python)
}

/// Where every Rust adapter builds, under `<target>`: one folder, so that the dependencies they
/// share are compiled once (cargo locks it while one builds).
const RUST_TARGET: &str = "sdk-rust";

/// `cargo build --release --locked` of `folder`'s crate into `target` (a no-op when up to
/// date).
fn cargo_build(folder: &Path, target: &Path) -> Result<(), String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args(["build", "-q", "--release", "--locked", "--manifest-path"])
        .arg(folder.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target);
    run(&mut build, "cargo build of the adapter")
}

/// Where every Go adapter builds, under `<target>`: `bin/` (the binaries), `mod/` (GOMODCACHE)
/// and `cache/` (GOCACHE), so that a machine that keeps `<target>` downloads nothing again.
const GO_TARGET: &str = "sdk-go";

/// `go build` of `folder`'s module (its committed `go.mod` and `go.sum`, `-mod=readonly`: a
/// build that would change them fails) into `<target>/bin/<program>`; returns the binary.
/// `GOTOOLCHAIN=local`: the machine's Go, never one downloaded for a `toolchain` line.
fn go_build(folder: &Path, target: &Path, program: &str) -> Result<PathBuf, String> {
    let binary = target.join("bin").join(program);
    let mut build = Command::new("go");
    build
        .args(["build", "-trimpath", "-o"])
        .arg(&binary)
        .arg(".")
        .current_dir(folder)
        .env("GOMODCACHE", target.join("mod"))
        .env("GOCACHE", target.join("cache"))
        .env("GOFLAGS", "-mod=readonly")
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off");
    run(&mut build, "go build of the adapter")?;
    Ok(binary)
}

/// Where the JVM rows build, under `<target>`: `m2/` (the Maven local repository) and `build/`
/// (one folder per module: `build/<row>/adapter.jar` with its classpath in `lib/`).
const MAVEN_TARGET: &str = "sdk-maven";
/// The one Maven reactor of every JVM row and their contract module.
const MAVEN_REACTOR: &str = "harness/adapters/jvm";

/// The JVM rows, built (cached): `mvn dependency:go-offline` once into `<target>/m2` (the only
/// step that downloads), then `mvn -o package` into `<target>/build`, and the dependencies it
/// resolved compared with the committed `harness/adapters/jvm/dependencies.txt` (the lock Maven
/// does not have: a difference fails, and the list resolved is left in
/// `<target>/dependencies.txt` for review). Redone when a file of the reactor's modules changes
/// (a hash kept in `<target>/build/.mcp-error-layers-maven-hash`). Returns the build folder.
fn maven_package(target: &Path) -> Result<PathBuf, String> {
    run(Command::new("java").arg("-version"), "java")?;
    let reactor = root().join(MAVEN_REACTOR);
    let build = target.join("build");
    let hash = format!("{:016x}\n", maven_sources_hash(&reactor)?);
    let marker = build.join(".mcp-error-layers-maven-hash");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(hash.as_str()) {
        return Ok(build);
    }
    let mvn = |offline: bool| {
        let mut mvn = Command::new("mvn");
        mvn.args(["-q", "-B"]);
        if offline {
            mvn.arg("-o");
        }
        mvn.arg(format!(
            "-Dmaven.repo.local={}",
            target.join("m2").display()
        ))
        .arg(format!("-Dmel.build={}", build.display()))
        .arg("-f")
        .arg(reactor.join("pom.xml"));
        mvn
    };
    let mut offline = mvn(false);
    offline.args([
        "dependency:go-offline",
        "-DexcludeGroupIds=dev.mcp-error-layers",
    ]);
    run_mvn(&mut offline, "mvn dependency:go-offline")?;
    // Maven 3 puts plexus-utils 1.1 on the classpath of every plugin that does not declare
    // plexus-utils itself (surefire here); go-offline cannot see it, and `-o package` fails
    // without it.
    let mut plexus = mvn(false);
    plexus.args([
        "-N",
        "dependency:get",
        "-Dartifact=org.codehaus.plexus:plexus-utils:1.1",
        "-Dtransitive=false",
    ]);
    run_mvn(&mut plexus, "mvn dependency:get plexus-utils 1.1")?;
    // One offline run packages the rows and lists what they resolved (the list needs the
    // reactor's modules built: the rows depend on the contract module). No `excludeGroupIds`
    // here: the same property would keep the contract's jar out of each row's `lib/`.
    let listed = target.join("dependencies.txt");
    let _ = std::fs::remove_file(&listed);
    let mut package = mvn(true);
    package
        .args([
            "package",
            "-DskipTests",
            "dependency:list",
            "-DappendOutput=true",
            "-Dsort=true",
        ])
        .arg(format!("-DoutputFile={}", listed.display()));
    run_mvn(&mut package, "mvn -o package dependency:list")?;
    let resolved = std::fs::read_to_string(&listed)
        .map(|text| maven_dependency_list(&text))
        .map_err(|e| format!("cannot read {}: {e}", listed.display()))?;
    let _ = std::fs::write(&listed, &resolved);
    let committed = reactor.join("dependencies.txt");
    let locked = std::fs::read_to_string(&committed)
        .map_err(|e| format!("cannot read {}: {e}", committed.display()))?;
    if maven_dependency_list(&locked) != resolved {
        return Err(format!(
            "the dependencies Maven resolved differ from {}: review {} and copy it there if \
             the change is meant (harness/adapters/README.md, \"A maven row\")",
            committed.display(),
            listed.display()
        ));
    }
    write(&marker, &hash)?;
    Ok(build)
}

/// Runs Maven: a failure is the last lines it wrote, stdout's included (Maven writes its errors
/// there).
fn run_mvn(command: &mut Command, what: &str) -> Result<(), String> {
    run_keeping(command, what, true, 8)
}

/// What `mvn dependency:list` wrote, as the committed list keeps it: the modules in the
/// reactor's order, each after a line `---`, then one `group:artifact:type:version:scope` per
/// line, without the JPMS module note (`-- module x`, which differs between JDKs); blank lines,
/// `none` and `#` comments left out.
fn maven_dependency_list(text: &str) -> String {
    let mut list = String::new();
    for line in text.lines() {
        let line = line.split(" -- ").next().unwrap_or_default().trim();
        if line.starts_with("The following") || line == "---" {
            list.push_str("---\n");
        } else if !(line.is_empty() || line == "none" || line.starts_with('#')) {
            list.push_str(line);
            list.push('\n');
        }
    }
    list
}

/// A hash of every file of the reactor's modules (its `pom.xml` lists them as `../<folder>`)
/// and of the reactor folder itself: what decides whether the JVM rows need building again.
fn maven_sources_hash(reactor: &Path) -> Result<u64, String> {
    let pom = reactor.join("pom.xml");
    let text =
        std::fs::read_to_string(&pom).map_err(|e| format!("cannot read {}: {e}", pom.display()))?;
    let mut folders = vec![reactor.to_owned()];
    for line in text.lines() {
        if let Some(module) = line
            .trim()
            .strip_prefix("<module>")
            .and_then(|rest| rest.strip_suffix("</module>"))
        {
            folders.push(reactor.join(module));
        }
    }
    let mut files = Vec::new();
    for folder in &folders {
        collect_files(folder, &mut files);
    }
    files.sort();
    let mut bytes = Vec::new();
    for file in files {
        bytes.extend(file.to_string_lossy().as_bytes());
        bytes.extend(std::fs::read(&file).unwrap_or_default());
    }
    Ok(fnv1a(&bytes))
}

/// Every file under `folder` but a `target/` folder (a build by hand in the module's folder).
fn collect_files(folder: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if entry.file_name() != "target" {
                collect_files(&path, files);
            }
        } else {
            files.push(path);
        }
    }
}

/// Runs `command`; a failure is the last lines of its output.
fn run(command: &mut Command, what: &str) -> Result<(), String> {
    run_keeping(command, what, false, 5)
}

/// Runs `command`; a failure is the last `lines` lines it wrote that are not blank, on stderr
/// (after stdout's when `stdout`).
fn run_keeping(
    command: &mut Command,
    what: &str,
    stdout: bool,
    lines: usize,
) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|e| format!("{what}: cannot run {:?}: {e}", command.get_program()))?;
    if output.status.success() {
        return Ok(());
    }
    let mut text = String::new();
    if stdout {
        text.push_str(&String::from_utf8_lossy(&output.stdout));
    }
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    let written: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let tail = written[written.len().saturating_sub(lines)..].join(" / ");
    Err(format!("{what} failed ({}): {tail}", output.status))
}

/// Runs `setup` holding `<target>/sdk-setup-<name>.lock` (a folder: creating it is atomic).
/// A lock older than ten minutes is left over from a killed run and is taken over.
fn locked<T>(target: &Path, name: &str, setup: impl FnOnce() -> T) -> T {
    let lock = target.join(format!("sdk-setup-{name}.lock"));
    let _ = std::fs::create_dir_all(target);
    while std::fs::create_dir(&lock).is_err() {
        let age = std::fs::metadata(&lock)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        match age {
            Some(age) if age > Duration::from_secs(600) => {
                let _ = std::fs::remove_dir(&lock);
            }
            None if !lock.exists() => {}
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    }
    let result = setup();
    let _ = std::fs::remove_dir(&lock);
    result
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// FNV-1a, 64 bits: enough to notice that the lock file changed.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
