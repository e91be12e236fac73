//! Running many cases at once: a fixed pool of worker threads, each with its own runtime,
//! pulling cases off a shared index. Results come back in the order of the sources.

use crate::adapter::Driver;
use crate::case::CaseSource;
use crate::record::CaseRecord;
use crate::runner::{RunOptions, run_source};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A sensible default for `jobs`: cases mostly wait on sockets and timers, so run more of
/// them than there are cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get() * 4)
}

/// Runs every source against `adapter` with up to `jobs` cases in flight; calls `progress`
/// as each case finishes (from the worker thread that ran it).
pub fn run_all<D: Driver>(
    adapter: &D,
    sources: &[CaseSource],
    options: &RunOptions,
    jobs: usize,
    progress: &(dyn Fn(&CaseRecord) + Sync),
) -> Vec<CaseRecord> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<CaseRecord>>> = sources.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, sources.len().max(1)) {
            scope.spawn(|| worker(adapter, sources, options, &next, &slots, progress));
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

fn worker<D: Driver>(
    adapter: &D,
    sources: &[CaseSource],
    options: &RunOptions,
    next: &AtomicUsize,
    slots: &[Mutex<Option<CaseRecord>>],
    progress: &(dyn Fn(&CaseRecord) + Sync),
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(_) => return, // the slot stays empty and is reported as broken
    };
    loop {
        let index = next.fetch_add(1, Ordering::SeqCst);
        let Some(source) = sources.get(index) else {
            return;
        };
        let record = runtime.block_on(run_source(adapter, source, options));
        progress(&record);
        *slots[index].lock().unwrap_or_else(|p| p.into_inner()) = Some(record);
    }
}
