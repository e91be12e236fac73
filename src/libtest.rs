//! The libtest harness of a client project's `cargo test`: the [`main!`](crate::main!) macro
//! and its [`Config`].
//!
//! The macro expands to the `main` of a `harness = false` test target. That `main` plans the run
//! (built-in cases, your folders, skips, the baseline), makes one libtest trial per case, runs
//! them with [libtest-mimic](https://docs.rs/libtest-mimic) (so filters, `--list`, `--exact`,
//! `--ignored` and cargo-nextest behave as for any test binary), then writes the reports the
//! configuration asks for and exits with libtest's code. See the [crate docs](crate) for a
//! tutorial.

mod config;
mod plan;
mod quiet_panic;
mod result;
mod snapshot_check;
mod trial;
mod wording;

pub use config::Caller;
pub use config::Config;
pub use insta as __insta;

use crate::adapter::Driver;
use crate::engine::Run;
use crate::record::CaseRecord;
use crate::report::{ReportError, RunReport, write_all};
use config::Resolved;
use libtest_mimic::{Arguments, Conclusion};
use plan::Plan;
use std::process::ExitCode;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;
use trial::{Harness, one_process_per_test};

/// Expands to `fn main()` of a `harness = false` test target that runs every case against an
/// adapter.
///
/// ```no_run
/// # use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};
/// # async fn my_adapter(_call: CallContext) -> AdapterReport {
/// #     Observation::new(Outcome::ToolSuccess).into()
/// # }
/// // tests/mcp_errors.rs, with `[[test]] name = "mcp_errors" harness = false` in Cargo.toml
/// mcp_error_layers::main!(my_adapter);
/// ```
///
/// The first argument is any [`Adapter`](crate::Adapter): a value of your own type, an async
/// function or an async closure (`|call: CallContext| async move { ... }`). Any other
/// [`Driver`] works too, such as a [`ProcessAdapter`](crate::adapter::process::ProcessAdapter)
/// for a client written in another language. The optional second argument is a
/// [`Config`]:
///
/// ```no_run
/// # use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};
/// # async fn my_adapter(_call: CallContext) -> AdapterReport {
/// #     Observation::new(Outcome::ToolSuccess).into()
/// # }
/// mcp_error_layers::main!(my_adapter, mcp_error_layers::Config::new().cases("tests/mcp-cases"));
/// ```
///
/// Anything else fails to compile with a message that says what to write instead: no
/// argument, a value that is not an adapter (`` `{integer}` is not an adapter ``), a second
/// argument that is not a `Config`, or a third argument (this crate's `tests/ui/` holds them).
///
/// It must be a macro: it captures the client crate's `CARGO_MANIFEST_DIR` (relative paths in
/// the config resolve against it) and package name, and it expands insta's snapshot assertion
/// in the client's test file, so that snapshots belong to the client crate.
#[macro_export]
macro_rules! main {
    () => {
        ::core::compile_error!(
            "`main!` needs the adapter to drive: `mcp_error_layers::main!(my_adapter);`, where \
             `my_adapter` is an `async fn(CallContext) -> AdapterReport`, an async closure or a \
             value whose type implements `Adapter`"
        );
        fn main() {} // no second error about a missing `main`
    };
    ($adapter:expr $(,)?) => {
        $crate::main!($adapter, $crate::Config::new());
    };
    ($adapter:expr, $config:expr $(,)?) => {
        fn main() -> ::std::process::ExitCode {
            $crate::__private::__run(
                $adapter,
                $config,
                $crate::__private::Caller {
                    manifest_dir: ::std::env!("CARGO_MANIFEST_DIR"),
                    package: ::std::env!("CARGO_PKG_NAME"),
                    version: ::std::env!("CARGO_PKG_VERSION"),
                    assert_snapshot: |name, view| {
                        $crate::__private::__insta::assert_yaml_snapshot!(name, view);
                    },
                },
            )
        }
    };
    ($adapter:expr, $config:expr, $($extra:tt)+) => {
        ::core::compile_error!(
            "`main!` takes the adapter and, optionally, a `Config`: `main!(my_adapter)` or \
             `main!(my_adapter, Config::new())`; further settings are methods of `Config`"
        );
        $crate::main!($adapter, $config); // the two that belong are still checked
    };
}

/// The body of the `main` that [`main!`](crate::main!) generates.
#[doc(hidden)]
pub fn __run<D: Driver + 'static>(adapter: D, config: Config, caller: Caller) -> ExitCode {
    // The runner names this very binary as the stdio cases' server (crate::stdio).
    #[cfg(unix)]
    if let Some(code) = crate::stdio::intercept() {
        return code;
    }
    let mut args = Arguments::from_args();
    let resolved = config.resolve(&caller);
    args.test_threads = args.test_threads.or(resolved.test_threads);
    let plan = Plan::new(&resolved);
    let harness = Arc::new(harness(adapter, &resolved, &plan, &caller));
    let trials = harness.trials(&plan, &args);
    if args.list && args.logfile.is_none() {
        return list(&args, &trials);
    }
    let started = Instant::now();
    let conclusion = libtest_mimic::run(&args, trials);
    if args.list {
        return conclusion.exit_code();
    }
    let run = Finished {
        conclusion,
        started,
        jobs: args.test_threads.unwrap_or_else(libtest_threads),
    };
    let code = finish(&harness, &resolved, &run);
    // The adapter's kept processes end with it; then whatever they started that is left.
    drop(harness);
    #[cfg(unix)]
    crate::adapter::reaper::sweep(crate::adapter::reaper::Sweep::Marked);
    code
}

/// How many trials libtest-mimic runs at once when `--test-threads` is not given: one per core.
fn libtest_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// What the trials left: libtest's conclusion, when they started, how many ran at once.
struct Finished {
    conclusion: Conclusion,
    started: Instant,
    jobs: usize,
}

/// `--list` as libtest-mimic prints it (`name: test`, the kind in brackets first), except that
/// a closed stdout (`-- --list | head -1`) ends the listing instead of panicking.
fn list(args: &Arguments, trials: &[libtest_mimic::Trial]) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for trial in trials.iter().filter(|t| !args.is_filtered_out(t)) {
        let kind = match trial.kind() {
            "" => String::new(),
            kind => format!("[{kind}] "),
        };
        let what = if trial.is_bench() { "bench" } else { "test" };
        if writeln!(out, "{kind}{}: {what}", trial.name()).is_err() {
            break;
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}

fn harness<A>(adapter: A, resolved: &Resolved, plan: &Plan, caller: &Caller) -> Harness<A> {
    let snapshots = resolved
        .snapshots
        .as_ref()
        .map(|folder| snapshot_check::SnapshotCheck {
            folder: folder.clone(),
            shown: resolved.shown(folder),
            assert: caller.assert_snapshot,
        });
    let mut options = resolved.options.clone();
    options.rules = options.rules.with_baseline(plan.baseline.clone());
    Harness {
        adapter,
        options,
        baseline_shown: resolved.shown(&resolved.baseline),
        snapshots,
        unavailable: resolved.unavailable.clone(),
        records: Mutex::new(Vec::new()),
        ended: (Mutex::new(0), Condvar::new()),
    }
}

/// After the trials: the verdict summary, the reports, the exit code.
fn finish<A: Driver>(harness: &Harness<A>, resolved: &Resolved, run: &Finished) -> ExitCode {
    let kept = harness.take_records();
    if kept.is_empty() {
        return run.conclusion.exit_code();
    }
    let changed = kept.iter().filter(|k| k.snapshot_changed).count();
    let cases: Vec<CaseRecord> = kept.into_iter().map(|k| k.record).collect();
    let report = run_report(harness, resolved, run, cases);
    println!(
        "{}",
        wording::summary(&report.adapter.name, &report.cases, changed)
    );
    if let Some(accepted) = wording::accepted_list(&report.cases) {
        println!("{accepted}");
    }
    match write_reports(&report, resolved) {
        Ok(()) => run.conclusion.exit_code(),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(101)
        }
    }
}

/// The run as the reports hold it: the adapter as named by the config or by itself, the
/// settings the trials ran with.
fn run_report<A: Driver>(
    harness: &Harness<A>,
    resolved: &Resolved,
    run: &Finished,
    cases: Vec<CaseRecord>,
) -> RunReport {
    let driver = harness.adapter.info();
    RunReport {
        adapter: resolved.naming.info(&driver),
        protocol_version: None,
        strict: resolved.strict,
        settings: Run::with_options(&harness.adapter, harness.options.clone()).settings(run.jobs),
        duration: run.started.elapsed(),
        cases,
        shard: None,
    }
}

/// Writes the reports the configuration asks for, if any, and says where they went.
fn write_reports(report: &RunReport, resolved: &Resolved) -> Result<(), ReportError> {
    if !resolved.reports.any() {
        return Ok(());
    }
    if one_process_per_test() {
        eprintln!("{}", wording::NO_REPORTS_UNDER_NEXTEST);
        return Ok(());
    }
    write_all(report, &resolved.reports)?;
    println!("{}", wording::reports_written(&resolved.reports));
    Ok(())
}

#[cfg(test)]
mod tests;
