//! `cargo bench --bench process`: what one call costs with an adapter program, one process
//! per call against persistent mode, using the python test adapter
//! (`tests/adapters/persistent.py`, standard library only) on the `tool/success` case. Each
//! call is a whole case run (fresh wire server and runtime), so the in-process reference
//! client is printed too, for scale. Prints figures and the ratio; asserts only that every call
//! passes, since shared machines are noisy.

#[cfg(unix)]
fn main() {
    bench::main();
}

#[cfg(not(unix))]
fn main() {
    println!("process adapters need a unix: nothing to measure");
}

#[cfg(unix)]
mod bench {
    use mcp_error_layers::adapter::Driver;
    use mcp_error_layers::adapter::process::{Mode, ProcessAdapter};
    use mcp_error_layers::adapter::reference::ReferenceAdapter;
    use mcp_error_layers::case::{CaseSource, builtin};
    use mcp_error_layers::engine::Run;
    use mcp_error_layers::engine::Verdict;
    use std::path::PathBuf;
    use std::time::{Duration, Instant};

    const CALLS: u32 = 20;
    const CASE: &str = "tool/success";

    pub fn main() {
        let source = builtin()
            .into_iter()
            .find(|s| s.id == CASE)
            .expect("the benchmarked case exists");
        let program =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/persistent.py");
        let one_shot = ProcessAdapter::new(&program, Vec::<String>::new()).one_shot();
        let persistent = ProcessAdapter::new(&program, Vec::<String>::new());

        let (oneshot_first, oneshot_each) = per_call(&one_shot, &source);
        let (persistent_first, persistent_each) = per_call(&persistent, &source);
        assert_eq!(persistent.mode(), Mode::Persistent);
        let (_, reference_each) = per_call(&ReferenceAdapter::new(), &source);

        println!("{CALLS} calls of {CASE} through the runner, python3 test adapter:");
        println!(
            "  one process per call: {:>8.2} ms per call  (first call {:.2} ms)",
            millis(oneshot_each),
            millis(oneshot_first)
        );
        println!(
            "  persistent mode     : {:>8.2} ms per call  (first call, start and announce included, {:.2} ms)",
            millis(persistent_each),
            millis(persistent_first)
        );
        println!(
            "  ratio one-shot / persistent: {:.1}x",
            oneshot_each.as_secs_f64() / persistent_each.as_secs_f64()
        );
        println!(
            "  for scale, the in-process reference client: {:.2} ms per call",
            millis(reference_each)
        );
    }

    /// The wall time of the first call (which may start a process), then the mean of the next
    /// `CALLS`.
    fn per_call<D: Driver>(driver: &D, source: &CaseSource) -> (Duration, Duration) {
        let engine = Run::new(driver);
        let run = || {
            let started = Instant::now();
            let record = engine.run_one(source);
            assert_eq!(record.verdict, Verdict::Pass, "{:?}", record.calls);
            started.elapsed()
        };
        let first = run();
        let total: Duration = (0..CALLS).map(|_| run()).sum();
        (first, total / CALLS)
    }

    fn millis(duration: Duration) -> f64 {
        duration.as_secs_f64() * 1000.0
    }
}
