//! Many cases in one run, with each kind of adapter, at a job count well above the cores: no
//! false hang, no cross-talk (every case's observation is its own: see `load/corpus.rs`). The
//! verdicts are asserted, never times; `cargo bench --bench load` measures the same corpus at
//! larger sizes and job counts and prints wall times and hangs.
#![cfg(unix)]

#[path = "load/corpus.rs"]
mod corpus;

use mcp_error_layers::adapter::Driver;
use mcp_error_layers::adapter::process::{Mode, ProcessAdapter};
use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::engine::Run;
use std::path::PathBuf;
use std::time::Duration;

const CASES: usize = 200;
const JOBS: usize = 32;

fn adapter(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/adapters")
        .join(name)
}

/// The bounds for the adapter programs. `cargo test` runs on shared machines, where a process
/// at a low priority can wait seconds for a core; what is tested is that the verdicts stay
/// right under the run's own load (32 calls at once on however few cores), not the bounds.
const START_UP: Duration = Duration::from_secs(60);
const MARGIN: Duration = Duration::from_secs(5);

fn every_case_passes<D: Driver>(driver: &D, margin: Duration) {
    let run = Run::new(driver).cases(corpus::corpus(CASES)).jobs(JOBS);
    let records = run.deadline_margin(margin).execute(&()).cases;
    assert_eq!(records.len(), CASES);
    let wrong = corpus::misjudged(&records);
    assert!(
        wrong.is_empty(),
        "{} of {CASES} cases misjudged ({} hangs):\n{}",
        wrong.len(),
        corpus::hangs(&records),
        wrong.join("\n")
    );
}

#[test]
fn the_in_process_reference_client_under_load() {
    every_case_passes(&ReferenceAdapter::new(), Duration::from_secs(1));
}

#[test]
fn a_persistent_adapter_under_load() {
    // The announcement's bound is not a speed target: beside the one-shot test's 32 starting
    // interpreters, Python can take longer than the default 3 s to print its first line.
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new())
        .with_announce_timeout(START_UP)
        .with_start_up_timeout(START_UP);
    every_case_passes(&program, MARGIN);
    assert_eq!(program.mode(), Mode::Persistent);
}

#[test]
fn a_one_shot_adapter_under_load() {
    // A python process per call, 32 starting at once on however few cores.
    let program = ProcessAdapter::new(adapter("oneshot.py"), Vec::<String>::new())
        .one_shot()
        .with_start_up_timeout(START_UP);
    every_case_passes(&program, MARGIN);
}
