//! `run`: cases against a client, a live line per case, a summary, and reports.

use super::select::Selection;
use super::{Fatal, colour, write_to};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_error_layers::adapter::process::agent::AgentAdapter;
use mcp_error_layers::adapter::process::bridge::BridgeAdapter;
use mcp_error_layers::adapter::process::bridge::spec::BridgeSpec;
use mcp_error_layers::adapter::process::loopback;
use mcp_error_layers::adapter::process::{ProcessAdapter, conformance};
use mcp_error_layers::adapter::reaper::{self, Sweep};
use mcp_error_layers::adapter::reference::{ReferenceAdapter, RetryPolicy};
use mcp_error_layers::adapter::{Driver, DriverInfo};
use mcp_error_layers::case::CaseSource;
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Standing;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::engine::{EventSink, Run};
use mcp_error_layers::engine::{Mismatch, shown_id};
use mcp_error_layers::report::Counts;
use mcp_error_layers::report::shard::Shard;
use mcp_error_layers::report::tap::TapVersion;
use mcp_error_layers::report::{AdapterInfo, Format, ReportPaths, RunReport, write_file};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Options of `run`.
#[derive(Debug, Clone, Default, Args)]
pub struct RunArgs {
    #[command(flatten)]
    selection: Selection,
    /// The client under test: `reference` (this project's client). An out-of-process adapter
    /// is given as a command after `--` (there, `--adapter NAME` is `--adapter-name NAME`).
    #[arg(long, value_name = "NAME")]
    adapter: Option<String>,
    /// The adapter program's name in reports and `diff` (default: the name it announces, else
    /// its file name).
    #[arg(long, value_name = "NAME", value_parser = label)]
    adapter_name: Option<String>,
    /// The version of the client under test, for reports and `diff` (default: the version the
    /// adapter program announces, else unknown).
    #[arg(long, value_name = "VERSION", value_parser = label)]
    adapter_version: Option<String>,
    /// Run an out-of-process adapter: the program and its arguments (the endpoint URL is
    /// appended as the last argument).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
    /// Run an SDK's conformance client instead (docs/conformance-clients.md): "CMD ARGS", split
    /// at whitespace, started per call with the endpoint URL appended and
    /// MCP_CONFORMANCE_SCENARIO=tools_call; its exit status is the observation (coarse).
    #[arg(long, value_name = "\"CMD ARGS\"", conflicts_with = "command")]
    conformance_client: Option<String>,
    /// Run a coding agent instead (docs/adapters.md, "Agent rows"): the folder of its
    /// `adapter.toml` (`kind = "agent"`), installed with `npm ci` there. Each case starts the
    /// agent against the case's server and a scripted model on loopback; the observation is
    /// what the agent told its model.
    #[arg(long, value_name = "FOLDER", conflicts_with_all = ["command", "conformance_client"])]
    agent: Option<PathBuf>,
    /// Run a bridge or gateway instead (docs/bridges.md): the folder of its `adapter.toml`
    /// (`kind = "bridge"`), installed there (`npm ci`) or in the folder's `.venv` (pip). Each
    /// case starts the bridge against the case's server; the reference client calls through it
    /// and the observation is what arrives downstream.
    #[arg(long, value_name = "FOLDER",
          conflicts_with_all = ["command", "conformance_client", "agent"])]
    bridge: Option<PathBuf>,
    /// The network of the run and of every program it starts: `loopback` (a network namespace
    /// of its own with only loopback: a program that would leave the machine, for its vendor,
    /// telemetry or a cloud credential probe, fails visibly), `host` (the machine's network: the
    /// program can reach its vendor, and anything else the machine reaches), or `auto` (for an
    /// agent or a bridge loopback where the machine can make the namespace, else the machine's
    /// network, said on the first line; for an adapter program or the reference client the
    /// machine's network).
    #[arg(long, value_name = "NETWORK", value_enum, default_value_t = Network::Auto)]
    network: Network,
    /// The reference client's retry policy: `repeatable-tools` (read-only or idempotent tools,
    /// after 503, 429 or a connection error) or `never`.
    #[arg(long, value_name = "POLICY", value_enum, default_value_t = Retry::RepeatableTools)]
    retry: Retry,
    /// Make every case prefer this protocol version.
    #[arg(long, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// The transports the adapter program speaks, comma-separated: `http` (the default) and
    /// `stdio` (its client starts the server command it is given; docs/stdio.md). The stdio
    /// cases are `unsupported` for a program that does not name `stdio`.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    transports: Vec<TransportArg>,
    /// The adapter program hands its client the start credentials of an authorization case
    /// (`MCP_ERROR_LAYERS_AUTH`, `auth` in the request line; docs/adapters.md, "Credentials").
    /// Without it the authorization cases are `unsupported` for the program.
    #[arg(long)]
    auth: bool,
    /// How long an adapter program started for one call may take before its first request;
    /// the call's deadline starts at that request, or when this is over (default: 10000, at
    /// most 600000).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=600_000))]
    start_up_timeout_ms: Option<u64>,
    /// How long an adapter program's persistent process may take to announce that it is ready
    /// (after loading its client library); calls' deadlines start after it (default: 10000, at
    /// most 600000).
    #[arg(long, visible_alias = "announce-timeout", value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=600_000))]
    announce_timeout_ms: Option<u64>,
    /// How long past a call's own timeout the runner waits for an observation before it calls
    /// the call a hang (default: 1000, at most 600000).
    #[arg(long, visible_alias = "deadline-margin", value_name = "MS",
          value_parser = clap::value_parser!(u64).range(0..=600_000))]
    deadline_margin_ms: Option<u64>,
    /// The client timeout of a call whose case names none (default: 5000, the case format's;
    /// from 1 to 600000). A client that waits for its timeout where it should fail fast runs
    /// faster with less.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=600_000))]
    default_timeout_ms: Option<u64>,
    /// How many cases run at once (default: 32 per core, at most 256, for the reference client;
    /// 4 per core, at least 8, for an adapter program).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// SHOULD-grade mismatches fail the run too.
    #[arg(long)]
    strict: bool,
    /// Write TAP here (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    tap: Option<PathBuf>,
    /// The TAP version: 14, or 13 for consumers that reject 14 (Perl's `prove` before 3.42).
    #[arg(long, value_name = "VERSION", value_enum, default_value_t = TapVersionArg::V14)]
    tap_version: TapVersionArg,
    /// Write JUnit XML here (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write the JSON report here (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the HTML page here (`-`: stdout).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write all four reports into this folder (the default, `reports/`, when no single report
    /// is named).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only shard K of N of the selected cases (split by a hash of the case id, stable as
    /// cases are added); `report merge` joins the N JSON reports (docs/ci-sharding.md).
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
}

impl RunArgs {
    /// The adapter program and its arguments: the command after `--`, or the words of
    /// `--conformance-client`; empty for the reference client.
    fn program(&self) -> Result<Vec<String>, String> {
        match &self.conformance_client {
            Some(line) => conformance::split_command(line),
            None => Ok(self.command.clone()),
        }
    }

    /// Whether an adapter program runs (not the reference client): a command, a conformance
    /// client or an agent.
    fn has_program(&self) -> bool {
        !self.command.is_empty()
            || self.conformance_client.is_some()
            || self.agent.is_some()
            || self.bridge.is_some()
    }

    /// The row folder of an agent or a bridge, whose programs are someone else's.
    fn row(&self) -> Option<&Path> {
        self.agent.as_deref().or(self.bridge.as_deref())
    }

    /// The file `--<format>` names (clap's derive needs a field per flag; the match makes a new
    /// format a compile error here until it has one).
    fn path(&self, format: Format) -> Option<PathBuf> {
        match format {
            Format::Tap => self.tap.clone(),
            Format::Junit => self.junit.clone(),
            Format::Json => self.json.clone(),
            Format::Html => self.html.clone(),
        }
    }
}

/// `--tap-version` as clap spells it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum TapVersionArg {
    #[value(name = "13")]
    V13,
    #[default]
    #[value(name = "14")]
    V14,
}

/// The end of `run --help`.
pub const RUN_HELP: &str = "\
Examples:
  mcp-error-layers run sse/ retry/               the cases whose id contains sse/ or retry/
  mcp-error-layers run --json - | jq .counts     the JSON report on stdout, the live lines on stderr
  mcp-error-layers run --tap - --tap-version 13 | prove -   (a TAP 13 consumer)
  mcp-error-layers run --out reports/ -- python3 my_adapter.py
  mcp-error-layers run --agent harness/adapters/codex        an agent, loopback only
  mcp-error-layers run --bridge harness/adapters/mcp-remote  a bridge, loopback only

Exit codes: 0 every case that counts passed, 1 a case failed, 2 the run cannot happen (a usage
error, an unreadable folder, a report that cannot be written, a program that cannot be started).";

/// Where the live lines, the summary and the \"report:\" lines go: stdout, unless a report
/// goes there.
#[derive(Debug, Clone, Copy)]
struct Human {
    to_stderr: bool,
}

impl Human {
    fn line(self, text: &str) -> Result<(), Fatal> {
        let bytes = format!("{text}\n").into_bytes();
        match self.to_stderr {
            true => write_to(&mut std::io::stderr().lock(), "stderr", &bytes),
            false => write_to(&mut std::io::stdout().lock(), "stdout", &bytes),
        }
    }

    fn is_terminal(self) -> bool {
        match self.to_stderr {
            true => std::io::stderr().is_terminal(),
            false => std::io::stdout().is_terminal(),
        }
    }

    fn colored(self) -> bool {
        match self.to_stderr {
            true => colour::enabled(&std::io::stderr()),
            false => colour::enabled(&std::io::stdout()),
        }
    }
}

/// Runs the selected cases and reports.
pub fn run(args: RunArgs) -> Result<ExitCode, Fatal> {
    let sources = args.selection.sources()?;
    check_adapter_flags(&args)?;
    if let Some(inner) = isolate(&args)? {
        return Ok(inner);
    }
    let (paths, to_stdout) = report_paths(&args)?;
    let human = Human {
        to_stderr: to_stdout.is_some(),
    };
    let report = match args.program().map_err(Fatal::new)?.split_first() {
        _ if args.agent.is_some() => {
            let agent = agent_adapter(args.agent.as_deref().unwrap_or(Path::new(".")))?;
            // Each case runs a whole agent: its row's `threads`, else 3 at once.
            let mut args = args.clone();
            args.jobs = args.jobs.or(Some(agent.spec().threads.unwrap_or(3)));
            run_with(&agent, sources, &args, human)
        }
        _ if args.bridge.is_some() => {
            let bridge = bridge_adapter(args.bridge.as_deref().unwrap_or(Path::new(".")))?;
            // A bridge's cases mostly wait for its own upstream timeout, on no core.
            let mut args = args.clone();
            args.jobs = args
                .jobs
                .or(Some(bridge.spec().threads.unwrap_or(BRIDGE_JOBS)));
            run_with(&bridge, sources, &args, human)
        }
        Some((program, rest)) => {
            let adapter = process_adapter(program, rest, &args);
            adapter.check_startable().map_err(Fatal::new)?;
            run_with(&adapter, sources, &args, human)
        }
        None => run_with(
            &ReferenceAdapter::new().with_retry(args.retry.policy()),
            sources,
            &args,
            human,
        ),
    };
    // The client is dropped: whatever its programs started and left is killed and reaped.
    reaper::sweep(Sweep::Every);
    let counts = Counts::of(&report.cases);
    human.line(&format!(
        "\n{counts}; {:.0} ms",
        report.duration.as_secs_f64() * 1000.0
    ))?;
    write_reports(&report, &paths, human)?;
    if let Some(format) = to_stdout {
        let text = paths
            .reporter(format)
            .and_then(|r| r.render(&report).map_err(|e| e.to_string()))
            .map_err(|e| Fatal::new(format!("cannot write the {} report: {e}", format.label())))?;
        super::print(&text)?;
    }
    Ok(if counts.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--retry` as clap spells it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum Retry {
    #[default]
    RepeatableTools,
    Never,
}

impl Retry {
    fn policy(self) -> RetryPolicy {
        match self {
            Retry::RepeatableTools => RetryPolicy::RepeatableTools,
            Retry::Never => RetryPolicy::Never,
        }
    }
}

/// How many cases of a bridge row run at once unless its `adapter.toml` says: the most a row
/// may ask for, as in `cargo test` (its cases wait for the bridge's own timeout).
const BRIDGE_JOBS: usize = 16;

/// `--network` as clap spells it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum Network {
    /// For an agent or a bridge loopback where the machine can make the namespace, else the
    /// machine's network (said); for an adapter program the machine's network.
    #[default]
    Auto,
    /// Loopback only, or the run does not happen.
    Loopback,
    /// The machine's network: the program can reach its vendor and anything else.
    Host,
}

/// Runs the run again inside a loopback-only network namespace ([`loopback`]) for an agent or a
/// bridge, or for any run under `--network loopback`: its exit code, once it is over. `None`
/// when this process runs the cases itself: it is the inner run (checked: it sees only `lo`),
/// the network is the host's, an adapter program or the reference client runs without
/// `--network loopback`, or no namespace can be made (said on the first line of stderr, or an
/// error under `--network loopback`).
fn isolate(args: &RunArgs) -> Result<Option<ExitCode>, Fatal> {
    // An adapter program is the user's own: loopback only when asked for (docs/adapters.md,
    // "Loopback only, proven"); an agent or a bridge is someone else's, loopback by default.
    if args.row().is_none() && args.network == Network::Auto {
        return Ok(None);
    }
    if loopback::is_inner() {
        loopback::check().map_err(|why| {
            Fatal::new(format!(
                "{why}; the run does not happen (set up by this run's outer process with \
                 `unshare -rn`; `--network host` runs it with the machine's network)"
            ))
        })?;
        return Ok(None);
    }
    match (args.network, loopback::available()) {
        (Network::Host, _) => Ok(None),
        (_, Ok(())) => {
            let exe = std::env::current_exe()
                .map_err(|e| Fatal::new(format!("cannot find this program to run again: {e}")))?;
            let status = loopback::command(exe)
                .args(std::env::args_os().skip(1))
                .status()
                .map_err(|e| Fatal::new(format!("cannot run `unshare`: {e}")))?;
            // The inner run's own code (0, 1 or 2); a signal that ended it is this run's error.
            let code = status
                .code()
                .and_then(|c| u8::try_from(c).ok())
                .unwrap_or(2);
            Ok(Some(ExitCode::from(code)))
        }
        (Network::Loopback, Err(why)) => Err(Fatal::new(format!(
            "--network loopback: no loopback-only network namespace here: {why}"
        ))),
        (_, Err(why)) => {
            eprintln!(
                "warning: no loopback-only network namespace here, so the agent or bridge runs \
                 with the machine's network and can reach anything it reaches: {why} \
                 (`--network host` runs so without this warning, `--network loopback` refuses)"
            );
            Ok(None)
        }
    }
}

/// The bridge row in `folder`, installed: its `adapter.toml` read, and its `node_modules` there
/// (npm) or its venv in `.venv` (pip), which is `{install}`.
fn bridge_adapter(folder: &Path) -> Result<BridgeAdapter, Fatal> {
    let spec = BridgeSpec::load(folder).map_err(|e| Fatal::new(other_kind(e, "agent")))?;
    let folder = folder
        .canonicalize()
        .map_err(|e| Fatal::new(format!("{}: {e}", folder.display())))?;
    let shown = folder.display();
    let (install, fix) = match spec.install.as_str() {
        "pip" => (
            folder.join(".venv"),
            format!(
                "make its venv first with `python3 -m venv {shown}/.venv && {shown}/.venv/bin/pip \
                 install -r {shown}/requirements.lock`"
            ),
        ),
        _ => (
            folder.clone(),
            format!("install the bridge first with `npm ci --prefix {shown}`"),
        ),
    };
    let installed = match spec.install.as_str() {
        "pip" => install.join("bin"),
        _ => install.join("node_modules"),
    };
    if !installed.is_dir() {
        return Err(Fatal::new(format!(
            "{}: not there: {fix}",
            installed.display()
        )));
    }
    Ok(BridgeAdapter::new(spec, install))
}

/// A row's `adapter.toml` error, with the flag that runs the other kind when it is that kind.
fn other_kind(error: String, other: &str) -> String {
    let is_other = error.contains(&format!("`kind = \"{other}\"`"))
        || error.contains(&format!("unknown field `{other}`"));
    match is_other {
        true => format!("{error}; run it with `run --{other} FOLDER`"),
        false => error,
    }
}

/// The agent row in `folder`, installed: its `adapter.toml` read and its `node_modules` there.
fn agent_adapter(folder: &Path) -> Result<AgentAdapter, Fatal> {
    let agent = AgentAdapter::load(folder).map_err(|e| Fatal::new(other_kind(e, "bridge")))?;
    if !folder.join("node_modules").is_dir() {
        return Err(Fatal::new(format!(
            "{}: no node_modules: install the agent first with `npm ci --prefix {}`",
            folder.display(),
            folder.display()
        )));
    }
    agent.check_startable().map_err(Fatal::new)?;
    Ok(agent)
}

/// The adapter program with the options that concern it.
fn process_adapter(program: &str, rest: &[String], args: &RunArgs) -> ProcessAdapter {
    let mut adapter = ProcessAdapter::new(program, rest);
    if args.conformance_client.is_some() {
        adapter = adapter.conformance_client();
    }
    if let Some(ms) = args.start_up_timeout_ms {
        adapter = adapter.with_start_up_timeout(Duration::from_millis(ms));
    }
    if let Some(ms) = args.announce_timeout_ms {
        adapter = adapter.with_announce_timeout(Duration::from_millis(ms));
    }
    adapter
        .with_stdio(args.transports.contains(&TransportArg::Stdio))
        .with_credentials(args.auth)
}

/// A transport `--transports` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum TransportArg {
    /// Streamable HTTP.
    Http,
    /// Stdio: the client starts the harness's stdio server.
    Stdio,
}

/// Refuses flags that do not fit the adapter: an adapter program's with the reference client
/// and the reference client's with a program, and `--adapter` naming a client that is not
/// there.
fn check_adapter_flags(args: &RunArgs) -> Result<(), Fatal> {
    if args.row().is_some()
        && (args.announce_timeout_ms.is_some() || args.start_up_timeout_ms.is_some())
    {
        return Err(Fatal::new(
            "--start-up-timeout-ms and --announce-timeout-ms are for an adapter program; an \
             agent's or a bridge's start is bounded by its adapter.toml's `start_timeout_ms`",
        ));
    }
    if args.conformance_client.is_some() && args.announce_timeout_ms.is_some() {
        return Err(Fatal::new(
            "--announce-timeout-ms is for a persistent adapter program; a conformance client \
             runs one process per call (--start-up-timeout-ms bounds its start)",
        ));
    }
    if args.has_program() && args.retry != Retry::default() {
        return Err(Fatal::new(
            "--retry sets the reference client's policy; an adapter program has its own",
        ));
    }
    let program_only = [
        ("--transports", !args.transports.is_empty()),
        ("--auth", args.auth),
        ("--start-up-timeout-ms", args.start_up_timeout_ms.is_some()),
        ("--announce-timeout-ms", args.announce_timeout_ms.is_some()),
    ];
    if let Some((flag, _)) = program_only.iter().find(|(_, set)| *set) {
        if !args.has_program() {
            return Err(Fatal::new(format!(
                "{flag} is for an adapter program (given after `--`); the reference client \
                 starts at once"
            )));
        }
    }
    match (&args.adapter, !args.has_program()) {
        (Some(name), true) if name != "reference" => Err(Fatal::new(format!(
            "unknown adapter {name:?}: use `reference`, or give the adapter's command after `--`"
        ))),
        _ => Ok(()),
    }
}

/// The adapter's name and version for reports. A program: `--adapter-name` (or `--adapter`),
/// else the name it announced, else its file name; `--adapter-version`, else the version it
/// announced, else unknown. The reference client is `reference`, of this crate's version.
fn adapter_identity(args: &RunArgs, driver: &DriverInfo) -> AdapterInfo {
    let named = args.adapter_name.clone();
    if let Some(folder) = args.row() {
        // The row's folder names it, as the matrix does.
        let folder_name = folder
            .canonicalize()
            .ok()
            .and_then(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()));
        return AdapterInfo {
            name: named
                .or(folder_name)
                .or_else(|| driver.name.clone())
                .unwrap_or_else(|| match args.agent {
                    Some(_) => "agent".into(),
                    None => "bridge".into(),
                }),
            version: args.adapter_version.clone().or(driver.version.clone()),
        };
    }
    let words = args.program().unwrap_or_default();
    let Some(program) = words.first() else {
        return AdapterInfo {
            name: named.unwrap_or_else(|| "reference".into()),
            version: Some(
                args.adapter_version
                    .clone()
                    .unwrap_or_else(|| env!("CARGO_PKG_VERSION").into()),
            ),
        };
    };
    let file_name = |word: &String| {
        let name = Path::new(word).file_name();
        name.map_or_else(|| word.clone(), |n| n.to_string_lossy().into_owned())
    };
    // A conformance client is an interpreter and its script as often as not (`node client.mjs`):
    // both words name it.
    let file_name = || match args.conformance_client {
        Some(_) => words
            .iter()
            .take(2)
            .map(file_name)
            .collect::<Vec<_>>()
            .join(" "),
        None => file_name(program),
    };
    AdapterInfo {
        name: named
            .or_else(|| args.adapter.clone())
            .or_else(|| driver.name.clone())
            .unwrap_or_else(file_name),
        version: args.adapter_version.clone().or(driver.version.clone()),
    }
}

/// Runs every source against `driver` with a live line per case; the run as reports hold it.
fn run_with<D: Driver>(
    driver: &D,
    sources: Vec<CaseSource>,
    args: &RunArgs,
    human: Human,
) -> RunReport {
    let mut run = Run::new(driver)
        .cases(sources)
        .strict(args.strict)
        .protocol_version(args.protocol_version.clone());
    if let Some(ms) = args.deadline_margin_ms {
        run = run.deadline_margin(Duration::from_millis(ms));
    }
    if let Some(ms) = args.default_timeout_ms {
        run = run.default_timeout(Duration::from_millis(ms));
    }
    if let Some(jobs) = args.jobs {
        run = run.jobs(jobs);
    }
    if let Some(shard) = args.shard {
        run = run.shard(shard);
    }
    let live = LiveLines {
        bar: std::sync::OnceLock::new(),
        human,
        colored: human.colored(),
    };
    let mut report = run.execute(&live);
    report.adapter = adapter_identity(args, &driver.info());
    report
}

/// The live line of each case as it ends, under a progress bar at a terminal.
struct LiveLines {
    bar: std::sync::OnceLock<Option<ProgressBar>>,
    human: Human,
    colored: bool,
}

impl EventSink for LiveLines {
    fn run_started(&self, cases: &[CaseSource]) {
        let _ = self.bar.set(progress_bar(cases.len() as u64, self.human));
    }

    fn case_finished(&self, record: &CaseRecord) {
        let bar = self.bar.get().and_then(Option::as_ref);
        show(bar, self.human, live_line(record, self.colored));
    }

    fn run_finished(&self, _report: &RunReport) {
        if let Some(bar) = self.bar.get().and_then(Option::as_ref) {
            bar.finish_and_clear();
        }
    }
}

/// An adapter's name or version as a flag gives it: a label of 1 to 200 characters without
/// control characters (what reports and `diff` show on one line).
fn label(text: &str) -> Result<String, String> {
    let count = text.chars().count();
    if !(1..=200).contains(&count) || text.chars().any(char::is_control) {
        return Err("give 1 to 200 characters without control characters".into());
    }
    Ok(text.to_owned())
}

/// A bar under the live lines for a person at a terminal; plain lines when piped.
fn progress_bar(len: u64, human: Human) -> Option<ProgressBar> {
    if !human.is_terminal() {
        return None;
    }
    let style = ProgressStyle::with_template("{bar:30} {pos}/{len} cases {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    let target = match human.to_stderr {
        true => ProgressDrawTarget::stderr(),
        false => ProgressDrawTarget::stdout(),
    };
    let bar = ProgressBar::with_draw_target(Some(len), target);
    Some(bar.with_style(style))
}

fn show(bar: Option<&ProgressBar>, human: Human, line: String) {
    match bar {
        Some(bar) => {
            bar.println(line);
            bar.inc(1);
        }
        // A reader that went away (`| head`) loses the lines; the run and its reports go on.
        None => {
            let _ = human.line(&line);
        }
    }
}

/// `pass          must    sse/final-result`; for anything else, per call expected → observed
/// and, under it, each thing that differs.
fn live_line(record: &CaseRecord, colored: bool) -> String {
    let word = match &record.standing {
        Standing::Warning(_) => "warn",
        standing => standing.as_str(),
    };
    let grade = record.grade.as_str();
    let word = colour::paint(
        &format!("{word:<13}"),
        standing_style(&record.standing),
        colored,
    );
    let mut line = format!("{word} {grade:<6} {}", shown_id(&record.id));
    if record.is_coarse() {
        line.push_str(" · coarse");
    }
    if let Some(error) = &record.error {
        line.push_str(&format!("\n    {error}"));
    }
    if record.verdict != Verdict::Pass {
        for (i, call) in record.calls.iter().enumerate() {
            let mismatch = Mismatch::of(call);
            line.push_str(&format!("\n    call {i}: {mismatch}"));
            for problem in &mismatch.problems {
                line.push_str(&format!("\n      - {problem}"));
            }
        }
    }
    line
}

/// The verdict word's colour: green for a pass, red for what fails the run, yellow between.
fn standing_style(standing: &Standing) -> anstyle::Style {
    use anstyle::AnsiColor;
    let colour = match standing {
        Standing::Pass => AnsiColor::Green,
        Standing::Unsupported(_) => AnsiColor::Cyan,
        Standing::Warning(_) | Standing::Accepted(_) => AnsiColor::Yellow,
        Standing::Fail | Standing::Hang | Standing::AdapterError | Standing::Stale(_) => {
            AnsiColor::Red
        }
    };
    anstyle::Style::new().fg_color(Some(colour.into())).bold()
}

/// The named files (all four in `--out`, default `reports/`, when none is named), and the one
/// format named `-`, which goes to stdout; a second `-` is a usage error.
fn report_paths(args: &RunArgs) -> Result<(ReportPaths, Option<Format>), Fatal> {
    let version = match args.tap_version {
        TapVersionArg::V13 => TapVersion::V13,
        TapVersionArg::V14 => TapVersion::V14,
    };
    let mut named = ReportPaths::none().with_tap_version(version);
    let mut to_stdout: Option<Format> = None;
    for format in Format::ALL {
        match args.path(format) {
            Some(path) if path.as_os_str() == "-" => match to_stdout {
                Some(first) => {
                    return Err(Fatal::new(format!(
                        "--{} - and --{} - both ask for stdout: at most one report may go \
                         there; give the other a file name",
                        flag(first),
                        flag(format)
                    )));
                }
                None => to_stdout = Some(format),
            },
            Some(path) => named = named.with(format, path),
            None => {}
        }
    }
    let folder = match (&args.out, named.any() || to_stdout.is_some()) {
        (Some(dir), _) => dir.clone(),
        (None, true) => return Ok((named, to_stdout)),
        (None, false) => PathBuf::from("reports"),
    };
    let in_folder = ReportPaths::all_in(&folder);
    let others = Format::ALL
        .into_iter()
        .filter(|f| Some(*f) != to_stdout)
        .fold(named.clone(), |paths, f| match in_folder.get(f) {
            Some(path) if paths.get(f).is_none() => paths.with(f, path),
            _ => paths,
        });
    Ok((others, to_stdout))
}

/// The flag that names `format`'s file.
fn flag(format: Format) -> &'static str {
    match format {
        Format::Tap => "tap",
        Format::Junit => "junit",
        Format::Json => "json",
        Format::Html => "html",
    }
}

fn write_reports(report: &RunReport, paths: &ReportPaths, human: Human) -> Result<(), Fatal> {
    for (format, path) in paths.iter() {
        let reporter = paths
            .reporter(format)
            .map_err(|why| Fatal::new(format!("cannot write report {}: {why}", path.display())))?;
        write_file(path, |out| reporter.write(report, out))
            .map_err(|e| Fatal::new(e.to_string()))?;
    }
    for (format, path) in paths.iter() {
        human.line(&format!("{:<5} report: {}", format.label(), path.display()))?;
    }
    Ok(())
}
