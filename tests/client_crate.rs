//! A client crate's `cargo test`, played by this test binary. Started with [`ROLE`] set, its
//! `main` is the [`main!`](mcp_error_layers::main!) harness of a client crate whose client is the
//! tutorial's (`examples/tutorial.rs`). Started without it, it runs itself in those roles and
//! checks what they print and leave behind:
//!
//! - the crate docs' samples of the tutorial's run (`src/lib.rs`, steps 3 and 5) are what the run
//!   prints;
//! - a first run with snapshots prints no panics (insta reports a new snapshot by panicking, and
//!   the harness catches it), while a panic of the adapter itself still shows;
//! - a run that accepts the snapshots leaves no `.snap.new` file behind.

#[path = "../examples/tutorial.rs"]
#[allow(dead_code)] // its `main` is the example's; this binary has its own
mod tutorial;

use libtest_mimic::{Arguments, Failed, Trial};
use mcp_error_layers::__private::{__insta, __run, Caller};
use mcp_error_layers::{AdapterReport, CallContext, Config};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output};

/// Which client crate to play: `tutorial` (as the example runs), `snapshots` (the tutorial's
/// client with snapshots in [`SNAPSHOTS`]), `panicking` (an adapter that panics, snapshots too).
const ROLE: &str = "MCP_ERROR_LAYERS_TEST_CLIENT_ROLE";
/// The snapshot folder of the `snapshots` and `panicking` roles.
const SNAPSHOTS: &str = "MCP_ERROR_LAYERS_TEST_CLIENT_SNAPSHOTS";
/// What the `panicking` role's adapter panics with.
const ADAPTER_PANIC: &str = "the adapter's own panic";

fn main() -> ExitCode {
    let snapshots = || std::env::var_os(SNAPSHOTS).map(PathBuf::from);
    match std::env::var(ROLE).as_deref() {
        Ok("tutorial") => __run(tutorial::adapter, tutorial::config(), caller()),
        Ok("snapshots") => {
            let config = tutorial::config();
            __run(
                tutorial::adapter,
                with_snapshots(config, snapshots()),
                caller(),
            )
        }
        Ok("panicking") => {
            let config = with_snapshots(Config::new(), snapshots());
            __run(panicking, config, caller())
        }
        Ok(other) => {
            eprintln!("{ROLE}={other:?}: not a role (tutorial, snapshots, panicking)");
            ExitCode::from(2)
        }
        Err(_) => checks(),
    }
}

/// What `main!` captures, as it would in a client crate.
fn caller() -> Caller {
    Caller {
        manifest_dir: env!("CARGO_MANIFEST_DIR"),
        package: env!("CARGO_PKG_NAME"),
        version: env!("CARGO_PKG_VERSION"),
        assert_snapshot: |name, view| {
            __insta::assert_yaml_snapshot!(name, view);
        },
    }
}

fn with_snapshots(config: Config, folder: Option<PathBuf>) -> Config {
    match folder {
        Some(folder) => config.snapshots(folder),
        None => config,
    }
}

async fn panicking(_call: CallContext) -> AdapterReport {
    panic!("{ADAPTER_PANIC}")
}

fn checks() -> ExitCode {
    let trials = vec![
        Trial::test(
            "the_crate_docs_show_the_tutorials_real_run",
            the_crate_docs_show_the_tutorials_real_run,
        ),
        Trial::test(
            "snapshot_runs_print_no_caught_panics_and_leave_no_stale_snap_new",
            snapshot_runs_print_no_caught_panics_and_leave_no_stale_snap_new,
        ),
        Trial::test(
            "a_panicking_adapter_still_shows_its_panic",
            a_panicking_adapter_still_shows_its_panic,
        ),
    ];
    libtest_mimic::run(&Arguments::from_args(), trials).exit_code()
}

/// This binary in `role`, with `env` and the libtest arguments `args`. Variables that would
/// change what insta does or where reports go are cleared, so the outer environment (a CI
/// runner sets `CI`) does not decide the result.
fn play(role: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
    command.args(args);
    for var in [
        "CI",
        "INSTA_UPDATE",
        "INSTA_FORCE_PASS",
        "INSTA_OUTPUT",
        "RUST_BACKTRACE",
    ] {
        command.env_remove(var);
    }
    for (name, _) in std::env::vars().filter(|(n, _)| n.starts_with("MCP_ERROR_LAYERS_")) {
        command.env_remove(name);
    }
    command.env(ROLE, role).envs(env.iter().copied());
    command.output().expect("the test binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A line with what changes from run to run replaced: libtest's `finished in 6.97s` and the
/// transcript's `+12 ms`.
fn without_time(line: &str) -> String {
    if let Some(at) = line.rfind("; finished in ") {
        return format!("{}; finished in N s", &line[..at]);
    }
    match (line.rfind(", +"), line.strip_suffix(" ms)")) {
        (Some(at), Some(_)) => format!("{}, +N ms)", &line[..at]),
        _ => line.to_owned(),
    }
}

/// Whether `printed` has `shown`: the same line or, when `shown` ends with `…`, a line that
/// begins with what comes before it.
fn has_line(printed: &[String], shown: &str) -> bool {
    let shown = without_time(shown);
    match shown.strip_suffix('…') {
        Some(start) => printed.iter().any(|l| l.starts_with(start)),
        None => printed.contains(&shown),
    }
}

/// The lines of the first ```` ```text ```` block after `marker` in the crate docs.
fn crate_docs_block_after(marker: &str) -> Vec<String> {
    let docs = std::fs::read_to_string("src/lib.rs").expect("src/lib.rs");
    let lines: Vec<&str> = docs
        .lines()
        .map(|l| {
            l.strip_prefix("//! ")
                .unwrap_or(l.trim_start_matches("//!"))
        })
        .collect();
    let start = lines.iter().position(|l| l.contains(marker));
    let start = start.unwrap_or_else(|| panic!("src/lib.rs has no `{marker}`"));
    let open = start + lines[start..].iter().position(|l| *l == "```text").unwrap() + 1;
    let close = open + lines[open..].iter().position(|l| *l == "```").unwrap();
    lines[open..close].iter().map(|l| (*l).to_owned()).collect()
}

fn the_crate_docs_show_the_tutorials_real_run() -> Result<(), Failed> {
    let run = play("tutorial", &[], &[]);
    let printed: Vec<String> = text(&run.stdout).lines().map(without_time).collect();
    let mut missing = Vec::new();
    for step in ["**3. Run it.**", "**5. Read a failure.**"] {
        let sample = crate_docs_block_after(step);
        let absent = sample
            .into_iter()
            .filter(|l| l != "…" && !has_line(&printed, l));
        missing.extend(absent.map(|l| format!("{step} {l}")));
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "src/lib.rs shows lines that `cargo run --example tutorial` does not print:\n{}\n\
         it printed:\n{}",
        missing.join("\n"),
        printed.join("\n")
    )
    .into())
}

/// A fresh snapshot folder under the system's temporary folder.
fn snapshot_folder(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!(
        "mcp-error-layers-client-crate-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&folder);
    folder
}

fn files_ending(folder: &Path, suffix: &str) -> Vec<String> {
    let entries = std::fs::read_dir(folder).into_iter().flatten();
    let names = entries.filter_map(|e| e.ok()?.file_name().into_string().ok());
    names.filter(|n| n.ends_with(suffix)).collect()
}

/// What a person would call noise from a caught panic: the panic hook's line and backtrace.
fn panic_lines(stderr: &str) -> Vec<&str> {
    let noisy = |l: &&str| l.contains("panicked at") || l.contains("stack backtrace");
    stderr.lines().filter(noisy).collect()
}

fn snapshot_runs_print_no_caught_panics_and_leave_no_stale_snap_new() -> Result<(), Failed> {
    let folder = snapshot_folder("snapshots");
    let shown = folder.display().to_string();
    let env = |update| {
        [
            (SNAPSHOTS, shown.as_str()),
            ("INSTA_UPDATE", update),
            ("RUST_BACKTRACE", "1"),
        ]
    };
    // The tool/ cases: a snapshot each, and some verdicts that fail.
    let cases = text(&play("snapshots", &["tool/", "--list"], &[]).stdout)
        .lines()
        .filter(|l| l.ends_with(": test"))
        .count();
    let first = play("snapshots", &["tool/"], &env("new"));
    let stderr = text(&first.stderr);
    let new = files_ending(&folder, ".snap.new");
    if cases == 0 || new.len() != cases || !panic_lines(&stderr).is_empty() {
        return Err(format!(
            "the first run should write a .snap.new file per case ({} of {cases} written) and \
             print no panic; it printed {} lines on stderr, {} of them from panics:\n{stderr}",
            new.len(),
            stderr.lines().count(),
            panic_lines(&stderr).len()
        )
        .into());
    }
    let accepting = play("snapshots", &["tool/"], &env("always"));
    let left = files_ending(&folder, ".snap.new");
    let kept = files_ending(&folder, ".snap");
    let _ = std::fs::remove_dir_all(&folder);
    if !left.is_empty() || kept.len() != cases {
        return Err(format!(
            "after a run that accepts every snapshot ({} kept), the first run's .snap.new files \
             are obsolete, yet {left:?} are left; its stderr:\n{}",
            kept.len(),
            text(&accepting.stderr)
        )
        .into());
    }
    Ok(())
}

fn a_panicking_adapter_still_shows_its_panic() -> Result<(), Failed> {
    let folder = snapshot_folder("panicking");
    let shown = folder.display().to_string();
    let env = [
        (SNAPSHOTS, shown.as_str()),
        ("INSTA_UPDATE", "new"),
        ("RUST_BACKTRACE", "1"),
    ];
    let run = play("panicking", &["--exact", "tool/success"], &env);
    let _ = std::fs::remove_dir_all(&folder);
    let stderr = text(&run.stderr);
    // One `panicked at` line and one backtrace: the adapter's.
    if stderr.contains(ADAPTER_PANIC) && panic_lines(&stderr).len() == 2 {
        return Ok(());
    }
    Err(format!(
        "the adapter's panic should show once, and insta's caught one not at all; stderr:\n{stderr}"
    )
    .into())
}
