//! Running many cases at once: a fixed pool of worker threads, each with its own runtime,
//! pulling cases off a shared index, the longest waits first ([`start_order`]). Results come
//! back in the order of the sources.

use super::EventSink;
use crate::adapter::Driver;
use crate::case::{Case, CaseSource, LoadError};
use crate::outcome::Outcome;
use crate::record::CaseRecord;
use crate::runner::{RunOptions, run_loaded};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The default `jobs` for an in-process adapter: 32 per core, at most 256. A case mostly waits
/// (on its client's timeout, a retry's backoff, a delayed reply), and a job that waits costs
/// two idle threads, so the count is set where the CPU, not the waiting, becomes the limit. On 2
/// cores, 500 distinct cases took 2.7 s at 8 jobs, 1.5 s at 16, 0.85 s at 32, 0.53 s at 64 and
/// 0.48 s at 128; six copies of the built-in cases 4.9 s at 8 and 1.8 s from 32 on (their
/// longest case). See [`default_program_jobs`] for adapter programs.
pub fn default_jobs() -> usize {
    cores().saturating_mul(32).clamp(32, 256)
}

/// The default `jobs` for an adapter that is a program: 4 per core, at least 8. Its work is
/// the program's CPU (an interpreter starting, a client library making the call), which more
/// jobs do not speed up, while each job may keep a process alive (a persistent pool grows to
/// one process per job). On 2 cores, 500 cases took 4.9 s at 8 jobs and 4.7-5.3 s at 16 to 128
/// with a persistent Python adapter, and 99 s at 8 against 124-129 s at 32-64 one process per
/// call (the start-ups are gated anyway: `ProcessAdapter::with_parallel_starts`).
pub fn default_program_jobs() -> usize {
    cores().saturating_mul(4).max(8)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
}

/// The most cases in flight, whatever `jobs` asks: each is a worker thread and its case's
/// server thread, and past a few hundred a machine only schedules them worse.
pub const MAX_JOBS: usize = 1024;

/// Runs every source against `adapter` with up to `jobs` cases in flight (at least 1, at most
/// [`MAX_JOBS`] and the number of sources); tells `sink` as each case starts and finishes (from
/// the worker thread that runs it). When the system cannot start as many threads, the run goes on
/// with those it could start.
pub fn run_all<D: Driver>(
    adapter: &D,
    sources: &[CaseSource],
    options: &RunOptions,
    jobs: usize,
    sink: &dyn EventSink,
) -> Vec<CaseRecord> {
    // Each case parsed once: to order the cases, then to run it.
    let loaded: Vec<Result<Case, LoadError>> = sources.iter().map(CaseSource::load).collect();
    let queue = Queue {
        sources,
        order: start_order(&loaded),
        loaded,
        next: AtomicUsize::new(0),
    };
    let slots: Vec<Mutex<Option<CaseRecord>>> = sources.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for n in 0..jobs.clamp(1, sources.len().clamp(1, MAX_JOBS)) {
            let spawned = std::thread::Builder::new()
                .name(format!("case-worker-{n}"))
                .spawn_scoped(scope, || {
                    worker(adapter, &queue, options, &slots, sink);
                });
            if spawned.is_err() {
                break; // the workers already running take the remaining cases
            }
        }
    });
    slots
        .into_iter()
        .zip(sources)
        .map(|(slot, source)| {
            let record = slot.into_inner().unwrap_or_else(|p| p.into_inner());
            record.unwrap_or_else(|| {
                CaseRecord::broken(&source.id, "the worker running it died".into())
            })
        })
        .collect()
}

/// The order the workers take the cases in: those with a call expected to time out first, then
/// the others, each group in source order. Such a case waits out its client's timeout (and a
/// bridge's own on top: minutes), most others take milliseconds to seconds; started last, one
/// long case would set the length of the whole run alone.
fn start_order(loaded: &[Result<Case, LoadError>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..loaded.len()).collect();
    // Stable: `false` (it waits) sorts first, each group keeps its order.
    order.sort_by_key(|&index| !waits_out_a_timeout(&loaded[index]));
    order
}

/// Whether a call of the case is expected to end by the client's timeout: the key of the
/// engine's start order, which libtest's trials take too when they run in parallel
/// (`libtest::trial`). A case that did not load is not (its record says why, at once).
pub(crate) fn waits_out_a_timeout(loaded: &Result<Case, LoadError>) -> bool {
    loaded.as_ref().is_ok_and(|case| {
        let calls = &case.file.call;
        calls
            .iter()
            .any(|call| call.expect.outcome == Outcome::Timeout)
    })
}

/// The sources, the order the workers take them in, and the next position in it.
struct Queue<'a> {
    sources: &'a [CaseSource],
    /// Each source as it loaded.
    loaded: Vec<Result<Case, LoadError>>,
    order: Vec<usize>,
    next: AtomicUsize,
}

impl Queue<'_> {
    /// The next case to run: its index among the sources, its id and how it loaded.
    fn take(&self) -> Option<(usize, &str, &Result<Case, LoadError>)> {
        let position = self.next.fetch_add(1, Ordering::SeqCst);
        let index = *self.order.get(position)?;
        let source = self.sources.get(index)?;
        Some((index, source.id.as_str(), self.loaded.get(index)?))
    }
}

fn worker<D: Driver>(
    adapter: &D,
    queue: &Queue<'_>,
    options: &RunOptions,
    slots: &[Mutex<Option<CaseRecord>>],
    sink: &dyn EventSink,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(_) => return, // the slot stays empty and is reported as broken
    };
    while let Some((index, id, loaded)) = queue.take() {
        sink.case_started(id);
        let record = runtime.block_on(run_loaded(adapter, id, loaded, options));
        sink.case_finished(&record);
        *slots[index].lock().unwrap_or_else(|p| p.into_inner()) = Some(record);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::CallContext;
    use crate::observation::{AdapterReport, Observation};
    use crate::outcome::Outcome;
    use crate::verdict::Verdict;

    #[test]
    fn any_job_count_runs_every_case_in_order() {
        let sources: Vec<CaseSource> = ["tool/success", "tool/is-error", "tool/success"]
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let found = crate::case::builtin().into_iter().find(|s| s.id == *id);
                let source = found.expect("a built-in case");
                CaseSource {
                    id: format!("{i}/{id}"),
                    ..source
                }
            })
            .collect();
        let says_success =
            |_: CallContext| async { AdapterReport::from(Observation::new(Outcome::ToolSuccess)) };
        for jobs in [0, 1, 2, usize::MAX] {
            let records = run_all(&says_success, &sources, &RunOptions::default(), jobs, &());
            let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
            assert_eq!(ids, ["0/tool/success", "1/tool/is-error", "2/tool/success"]);
            assert_eq!(records[1].verdict, Verdict::Fail, "jobs {jobs}");
        }
    }

    #[test]
    fn cases_expected_to_time_out_start_first_and_the_rest_keep_their_order() {
        let ids = [
            "tool/success",
            "transport/headers-then-silence",
            "tool/is-error",
            "cancel/stalled-call-cancelled",
        ];
        let builtin = crate::case::builtin();
        let mut sources: Vec<CaseSource> = ids
            .iter()
            .map(|id| builtin.iter().find(|s| s.id == *id).expect(id).clone())
            .collect();
        sources.push(CaseSource {
            id: "broken".into(),
            origin: "broken.toml".into(),
            text: Err("unreadable".into()),
        });
        let loaded: Vec<_> = sources.iter().map(CaseSource::load).collect();
        assert_eq!(start_order(&loaded), [1, 3, 0, 2, 4]);
    }

    #[test]
    fn the_defaults_follow_the_work() {
        assert!((32..=256).contains(&default_jobs()));
        assert!(default_program_jobs() >= 8);
        assert!(default_jobs() <= MAX_JOBS);
    }
}
