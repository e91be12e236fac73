//! `run`: cases against a client, a live line per case, a summary, and reports.

use super::Fatal;
use super::select::Selection;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcp_error_layers::adapter::Driver;
use mcp_error_layers::adapter::process::ProcessAdapter;
use mcp_error_layers::adapter::reference::{ReferenceAdapter, RetryPolicy};
use mcp_error_layers::case::CaseSource;
use mcp_error_layers::explain::{Mismatch, shown_id};
use mcp_error_layers::record::CaseRecord;
use mcp_error_layers::report::{AdapterInfo, Format, ReportPaths, RunReport, write_all};
use mcp_error_layers::runner::RunOptions;
use mcp_error_layers::standing::{Counts, Rules, Standing};
use mcp_error_layers::suite::{default_jobs, run_all};
use mcp_error_layers::verdict::Verdict;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Options of `run`.
#[derive(Debug, Clone, Default, Args)]
pub struct RunArgs {
    #[command(flatten)]
    selection: Selection,
    /// The client under test: `reference` (this project's client). An out-of-process adapter
    /// is given as a command after `--`.
    #[arg(long, value_name = "NAME")]
    adapter: Option<String>,
    /// Run an out-of-process adapter: the program and its arguments (the endpoint URL is
    /// appended as the last argument).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
    /// The reference client's retry policy: `repeatable-tools` (read-only or idempotent tools,
    /// after 503, 429 or a connection error) or `never`.
    #[arg(long, value_name = "POLICY", value_enum, default_value_t = Retry::RepeatableTools)]
    retry: Retry,
    /// Make every case prefer this protocol version.
    #[arg(long, value_name = "VERSION")]
    protocol_version: Option<String>,
    /// How long an adapter program started for one call may take before its first request;
    /// the call's deadline starts at that request, or when this is over (default: 10000, at
    /// most 600000).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=600_000))]
    start_up_timeout_ms: Option<u64>,
    /// How many cases run at once (default: 4 × cores).
    #[arg(long, short = 'j')]
    jobs: Option<usize>,
    /// SHOULD-grade mismatches fail the run too.
    #[arg(long)]
    strict: bool,
    /// Write TAP 14 here.
    #[arg(long, value_name = "FILE")]
    tap: Option<PathBuf>,
    /// Write JUnit XML here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write the JSON report here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the HTML page here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write all four reports into this folder (the default, `reports/`, when no single report
    /// is named).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

impl RunArgs {
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

/// Runs the selected cases and reports.
pub fn run(args: RunArgs) -> Result<ExitCode, Fatal> {
    let sources = args.selection.sources()?;
    let (name, version) = adapter_identity(&args)?;
    let started = Instant::now();
    let records = match args.command.split_first() {
        Some((program, rest)) => run_with(&process_adapter(program, rest, &args), &sources, &args),
        None => run_with(
            &ReferenceAdapter::new().with_retry(args.retry.policy()),
            &sources,
            &args,
        ),
    };
    let report = RunReport {
        adapter: AdapterInfo { name, version },
        protocol_version: args.protocol_version.clone(),
        strict: args.strict,
        cases: records,
    };
    let counts = Counts::of(&report.cases);
    println!(
        "\n{counts} in {:.0} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    write_reports(&report, &report_paths(&args))?;
    Ok(if counts.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The adapter's name for reports: `--adapter NAME`, else `reference` or the program's file
/// name. Without a command only `reference` exists.
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

/// The adapter program with the options that concern it.
fn process_adapter(program: &str, rest: &[String], args: &RunArgs) -> ProcessAdapter {
    let adapter = ProcessAdapter::new(program, rest);
    match args.start_up_timeout_ms {
        Some(ms) => adapter.with_start_up_timeout(Duration::from_millis(ms)),
        None => adapter,
    }
}

fn adapter_identity(args: &RunArgs) -> Result<(String, Option<String>), Fatal> {
    if !args.command.is_empty() && args.retry != Retry::default() {
        return Err(Fatal::new(
            "--retry sets the reference client's policy; an adapter program has its own",
        ));
    }
    if args.command.is_empty() && args.start_up_timeout_ms.is_some() {
        return Err(Fatal::new(
            "--start-up-timeout-ms is for an adapter program (given after `--`); the reference \
             client starts at once",
        ));
    }
    match (args.command.first(), &args.adapter) {
        (Some(_), Some(name)) => Ok((name.clone(), None)),
        (Some(program), None) => {
            let name = Path::new(program)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            Ok((name.unwrap_or_else(|| program.clone()), None))
        }
        (None, None) => Ok(("reference".into(), Some(env!("CARGO_PKG_VERSION").into()))),
        (None, Some(name)) if name == "reference" => {
            Ok((name.clone(), Some(env!("CARGO_PKG_VERSION").into())))
        }
        (None, Some(name)) => Err(Fatal::new(format!(
            "unknown adapter {name:?}: use `reference`, or give the adapter's command after `--`"
        ))),
    }
}

/// Runs every source against `driver` with a live line per case.
fn run_with<D: Driver>(driver: &D, sources: &[CaseSource], args: &RunArgs) -> Vec<CaseRecord> {
    let options = RunOptions {
        protocol_version: args.protocol_version.clone(),
        rules: Rules::strict(args.strict),
        ..RunOptions::default()
    };
    let bar = progress_bar(sources.len() as u64);
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let records = run_all(driver, sources, &options, jobs, &|record| {
        show(&bar, live_line(record));
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    records
}

/// A bar under the live lines for a person at a terminal; plain lines when piped.
fn progress_bar(len: u64) -> Option<ProgressBar> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    let style = ProgressStyle::with_template("{bar:30} {pos}/{len} cases {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stdout());
    Some(bar.with_style(style))
}

fn show(bar: &Option<ProgressBar>, line: String) {
    match bar {
        Some(bar) => {
            bar.println(line);
            bar.inc(1);
        }
        None => println!("{line}"),
    }
}

/// `pass          must    sse/final-result`; for anything else, per call expected → observed
/// and, under it, each thing that differs.
fn live_line(record: &CaseRecord) -> String {
    let word = match &record.standing {
        Standing::Warning(_) => "warn",
        standing => standing.as_str(),
    };
    let grade = record.grade.as_str();
    let mut line = format!("{word:<13} {grade:<6} {}", shown_id(&record.id));
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

/// The named files; all four in `--out` (default `reports/`) when none is named.
fn report_paths(args: &RunArgs) -> ReportPaths {
    let named = Format::ALL
        .into_iter()
        .fold(ReportPaths::none(), |paths, format| {
            match args.path(format) {
                Some(path) => paths.with(format, path),
                None => paths,
            }
        });
    let folder = match (&args.out, named.any()) {
        (Some(dir), _) => dir.clone(),
        (None, true) => return named,
        (None, false) => PathBuf::from("reports"),
    };
    named.or(&ReportPaths::all_in(&folder))
}

fn write_reports(report: &RunReport, paths: &ReportPaths) -> Result<(), Fatal> {
    write_all(report, paths).map_err(|e| Fatal::new(e.to_string()))?;
    for (format, path) in paths.iter() {
        println!("{:<5} report: {}", format.label(), path.display());
    }
    Ok(())
}
