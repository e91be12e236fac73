//! Which SDK rows `cargo test --test sdk` runs, and how: every folder under `harness/adapters/`
//! with an `adapter.toml` (or those [`ROWS_VAR`] names), each in a process of its own (this
//! binary again, with [`ROW_VAR`](super::sdk_setup::ROW_VAR) set and the same libtest
//! arguments), one after another or [`LANES_VAR`] side by side, the agent rows after the
//! others and [`AGENT_LANES_VAR`] side by side, beside them the bridge rows all at once, then a
//! line per row and the exit code of the worst. A process per row keeps each row's libtest run, its adapter, its
//! thread count and its reports its own, as they were when every row was a target.

use super::sdk_setup::{ROW_VAR, Sdk, rows, set_up};
use mcp_error_layers::adapter::process::loopback;
use std::io::Write;
use std::process::{Command, ExitCode, Output, Stdio};
use std::time::{Duration, Instant};

/// Which rows to run: their ids, comma-separated (`MCP_ERROR_LAYERS_SDK=python-sdk,rmcp cargo
/// test --test sdk -- sse/`). Unset or empty: every row.
pub const ROWS_VAR: &str = "MCP_ERROR_LAYERS_SDK";
/// How many rows run side by side (default 1, at most 8). With more than one, each row's output
/// is printed whole when it ends, instead of as it comes.
pub const LANES_VAR: &str = "MCP_ERROR_LAYERS_SDK_LANES";
/// How a row reaches the network: `loopback` (the default) runs its process in a network
/// namespace of its own with only loopback up (`unshare -rn`, then `ip link set lo up`), so
/// that a client, framework, agent or bridge that would leave the machine (an agent's vendor,
/// telemetry, a cloud credential probe) fails there and its report shows it, instead of being
/// trusted; `host` runs it with the machine's network. Every kind of row, SDK and framework
/// rows too; the row is set up (`npm ci`, a virtualenv, a cargo build) before, outside. The
/// name is the one agent rows had first.
pub const AGENT_NETWORK_VAR: &str = "MCP_ERROR_LAYERS_AGENT_NETWORK";
/// How many agent rows run side by side (default 2, at most 8), after every other row: an
/// agent row's cases wait on its start-ups and on stalled servers.
pub const AGENT_LANES_VAR: &str = "MCP_ERROR_LAYERS_AGENT_LANES";
/// The most rows side by side: each runs 8 to 16 cases at once.
const MAX_LANES: usize = 8;

/// How one row's process ended.
struct Ran {
    row: String,
    passed: bool,
    took: Duration,
    /// The trials libtest listed as failed, when the row's output was captured (side by side):
    /// repeated under the summary, so that the end of a long log says what failed.
    failures: Vec<String>,
}

/// Runs the chosen rows, each in a process of its own; the exit code is libtest's (101) when
/// one failed.
pub fn run_all() -> ExitCode {
    let lanes = lanes(LANES_VAR, 1).and_then(|sdk| Ok((sdk, lanes(AGENT_LANES_VAR, 2)?)));
    let chosen = match chosen_rows().and_then(|rows| Ok((rows, lanes?))) {
        Ok(chosen) => chosen,
        Err(why) => {
            eprintln!("error: {why}");
            return ExitCode::from(2);
        }
    };
    let (rows, (sdk_lanes, agent_lanes)) = chosen;
    // The agent rows after the others, among themselves: their start-ups keep both cores busy,
    // and an SDK row beside them would see its client's own timeouts run out.
    let (late, others): (Vec<String>, Vec<String>) = rows.into_iter().partition(|r| is_agent(r));
    let (bridges, agents): (Vec<String>, Vec<String>) =
        late.into_iter().partition(|r| is_bridge(r));
    let started = Instant::now();
    let mut ran = run_rows(&others, sdk_lanes);
    ran.extend(agents_beside_bridges(&agents, agent_lanes, &bridges));
    summary(&ran, started.elapsed())
}

/// The agent rows, `lanes` at a time, beside the bridge rows, all at once. A bridge row's cases
/// mostly wait for the bridge's own upstream timeout (up to minutes) on no core, so they cost
/// the run only what the agents' lanes would not cover. Not beside the SDK rows: their starts
/// are Node and Python work that made two SDK rows' timing-sensitive records differ in CI-like
/// runs (a late cancel, a ping answer after the record closed). Beside the agents, each row's
/// output is printed whole when it ends.
fn agents_beside_bridges(agents: &[String], lanes: usize, bridges: &[String]) -> Vec<Ran> {
    if bridges.is_empty() {
        return run_rows(agents, lanes);
    }
    std::thread::scope(|scope| {
        let bridges = scope.spawn(|| run_side_by_side(bridges, bridges.len().clamp(1, MAX_LANES)));
        let mut ran = run_side_by_side(agents, lanes);
        // A panic in the bridges' lane is this run's: no row may go missing from the summary.
        ran.extend(
            bridges
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
        );
        ran
    })
}

/// `rows`, `lanes` at a time.
fn run_rows(rows: &[String], lanes: usize) -> Vec<Ran> {
    match lanes {
        1 => rows.iter().map(|row| run_live(row)).collect(),
        lanes => run_side_by_side(rows, lanes),
    }
}

/// The rows [`ROWS_VAR`] names (each must exist), else every row.
fn chosen_rows() -> Result<Vec<String>, String> {
    let all = rows()?;
    let asked = std::env::var(ROWS_VAR).unwrap_or_default();
    if asked.trim().is_empty() {
        return Ok(all);
    }
    let mut chosen = Vec::new();
    for row in asked.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        if !all.iter().any(|known| known == row) {
            return Err(format!(
                "{ROWS_VAR} names {row:?}, which is no row; the rows: {}",
                all.join(", ")
            ));
        }
        chosen.push(row.to_owned());
    }
    Ok(chosen)
}

/// The lanes `var` asks for, else `default`.
fn lanes(var: &str, default: usize) -> Result<usize, String> {
    let Ok(text) = std::env::var(var) else {
        return Ok(default);
    };
    match text.trim().parse::<usize>() {
        Ok(n @ 1..=MAX_LANES) => Ok(n),
        _ => Err(format!(
            "{var} is {text:?}: rows side by side, from 1 to {MAX_LANES}"
        )),
    }
}

/// This binary for `row`, with the libtest arguments it was given; an agent row in a network
/// namespace with loopback only (every kind of row), unless [`AGENT_NETWORK_VAR`] says `host`.
fn row_process(row: &str) -> Command {
    let exe = std::env::current_exe().unwrap_or_else(|_| "sdk".into());
    let host = matches!(std::env::var(AGENT_NETWORK_VAR).as_deref(), Ok("host"));
    let loopback_only = !host && namespaces_work(row);
    // Set up (npm ci, a virtualenv, a build) here, with the network, so that the row's own
    // setup finds it done; a setup that fails here runs the row with the machine's network, to
    // fail there with its reason.
    let set = loopback_only && Sdk::load(row).is_ok_and(|sdk| set_up(&sdk).is_ok());
    // Inside, `loopback::INNER_VAR` makes the row check what it sees before its first case.
    let mut command = match set {
        true => loopback::command(exe),
        false => Command::new(exe),
    };
    command.args(std::env::args_os().skip(1)).env(ROW_VAR, row);
    command
}

/// Whether this machine can make a loopback-only network namespace (`unshare -rn` and `ip`).
/// Where it cannot, a row runs with the machine's network and a warning, or fails the run under
/// `MCP_ERROR_LAYERS_REQUIRE_SDKS` (CI must prove it).
fn namespaces_work(row: &str) -> bool {
    let Err(why) = loopback::available() else {
        return true;
    };
    let required =
        std::env::var_os(super::sdk_setup::REQUIRE_VAR).is_some_and(|v| !v.is_empty() && v != "0");
    eprintln!(
        "{}: {row}: no loopback-only network namespace here ({why}): the row runs with the \
         machine's network ({AGENT_NETWORK_VAR}=host says so without this warning)",
        if required { "error" } else { "warning" }
    );
    if required {
        std::process::exit(101);
    }
    false
}

/// Whether `row` is an agent or a bridge row (`kind = "agent"` or `"bridge"` in its
/// adapter.toml): it runs after the others, in a loopback-only network namespace. Both start
/// programs of others' that could reach the network, and both wait on stalled servers (a
/// bridge for its own upstream timeout).
fn is_agent(row: &str) -> bool {
    Sdk::load(row).is_ok_and(|sdk| sdk.is_agent() || sdk.is_bridge())
}

/// Whether `row` is a bridge row (`kind = "bridge"`).
fn is_bridge(row: &str) -> bool {
    Sdk::load(row).is_ok_and(|sdk| sdk.is_bridge())
}

/// One row, its output as it comes.
fn run_live(row: &str) -> Ran {
    let started = Instant::now();
    let passed = row_process(row).status().is_ok_and(|s| s.success());
    Ran {
        row: row.to_owned(),
        passed,
        took: started.elapsed(),
        failures: Vec::new(),
    }
}

/// `lanes` rows at a time, each one's output printed whole when it ends.
fn run_side_by_side(rows: &[String], lanes: usize) -> Vec<Ran> {
    in_lanes(rows, lanes, |row| {
        let (ran, output) = run_captured(row);
        Ran {
            passed: show(row, output),
            ..ran
        }
    })
}

/// One row, its output kept (to be printed whole by [`show`]).
fn run_captured(row: &str) -> (Ran, std::io::Result<Output>) {
    let started = Instant::now();
    let output = row_process(row)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output();
    let passed = output.as_ref().is_ok_and(|o| o.status.success());
    let failures = output
        .as_ref()
        .map(|o| failed_trials(&String::from_utf8_lossy(&o.stdout)))
        .unwrap_or_default();
    let ran = Ran {
        row: row.to_owned(),
        passed,
        took: started.elapsed(),
        failures,
    };
    (ran, output)
}

/// `each` of `rows`, `lanes` at a time; what it gave, in the order the rows ended.
fn in_lanes<T: Send>(rows: &[String], lanes: usize, each: impl Fn(&str) -> T + Sync) -> Vec<T> {
    let queue = std::sync::Mutex::new(rows.iter());
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..lanes {
            scope.spawn(|| {
                while let Some(row) = next(&queue) {
                    let result = each(row);
                    lock(&done).push(result);
                }
            });
        }
    });
    done.into_inner().unwrap_or_else(|p| p.into_inner())
}

fn next<'a>(queue: &std::sync::Mutex<std::slice::Iter<'a, String>>) -> Option<&'a String> {
    lock(queue).next()
}

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Plain data: still valid after a panic on another lane.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Prints a row's whole output (stdout, then stderr) at once; whether it passed.
fn show(row: &str, output: std::io::Result<Output>) -> bool {
    let output = match output {
        Ok(output) => output,
        Err(e) => {
            eprintln!("sdk: {row}: cannot run its process: {e}");
            return false;
        }
    };
    // One lock for both: another lane's row does not land in the middle.
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "\n=== sdk row {row} ===");
    let _ = out.write_all(&output.stdout);
    let _ = out.write_all(&output.stderr);
    let _ = out.flush();
    output.status.success()
}

/// A line per row and one for all; libtest's failure code when a row failed.
fn summary(ran: &[Ran], took: Duration) -> ExitCode {
    let listing = std::env::args().any(|arg| arg == "--list");
    if listing {
        return ExitCode::SUCCESS;
    }
    let mut ran: Vec<&Ran> = ran.iter().collect();
    ran.sort_by(|a, b| a.row.cmp(&b.row));
    println!();
    for one in &ran {
        let word = if one.passed { "ok" } else { "FAILED" };
        println!(
            "sdk row {:<28} {word:<6} {:>6.1} s",
            one.row,
            one.took.as_secs_f64()
        );
        for trial in &one.failures {
            println!("    failed: {trial}");
        }
    }
    let failed = ran.iter().filter(|r| !r.passed).count();
    println!(
        "sdk rows: {} run, {failed} failed, {:.1} s",
        ran.len(),
        took.as_secs_f64()
    );
    match failed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(101),
    }
}

/// The names libtest lists under its last `failures:` heading (four spaces in, a line each).
fn failed_trials(stdout: &str) -> Vec<String> {
    let Some((_, list)) = stdout.rsplit_once("\nfailures:\n") else {
        return Vec::new();
    };
    list.lines()
        .skip_while(|line| line.trim().is_empty())
        .map_while(|line| line.strip_prefix("    "))
        .map(str::to_owned)
        .collect()
}
