//! `cargo bench --bench load -- [CASES] [JOBS...]`: the load corpus (`tests/load/corpus.rs`,
//! distinct cases whose answers cannot be confused) run in one go with each kind of adapter (the
//! in-process reference client, `tests/adapters/persistent.py` in persistent mode and
//! `tests/adapters/oneshot.py` one process per call) at each job count. Prints wall time, hangs
//! and misjudged cases per run; asserts nothing, since shared machines are noisy.
//!
//! Defaults: 500 cases, jobs 8 32 64 128. `LOAD_ADAPTERS=reference,persistent,oneshot` picks
//! adapters, `LOAD_PARALLEL_STARTS=N` sets the process adapters' parallel starts, and
//! `LOAD_WRITE=FOLDER` writes the corpus there as case files instead (for the command line:
//! `mcp-error-layers run --no-builtin --cases FOLDER --jobs N [-- ADAPTER]`).

#[cfg(unix)]
#[path = "../tests/load/corpus.rs"]
mod corpus;

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
    use super::corpus;
    use mcp_error_layers::adapter::Driver;
    use mcp_error_layers::adapter::process::ProcessAdapter;
    use mcp_error_layers::adapter::reference::ReferenceAdapter;
    use mcp_error_layers::engine::Run;
    use std::path::PathBuf;
    use std::time::Instant;

    pub fn main() {
        let numbers: Vec<usize> = std::env::args()
            .skip(1)
            .filter_map(|a| a.parse().ok())
            .collect();
        let cases = numbers.first().copied().unwrap_or(500);
        let jobs = match numbers.get(1..) {
            Some(jobs) if !jobs.is_empty() => jobs.to_vec(),
            _ => vec![8, 32, 64, 128],
        };
        let adapters = std::env::var("LOAD_ADAPTERS")
            .unwrap_or_else(|_| "reference,persistent,oneshot".into());
        let starts: Option<usize> = std::env::var("LOAD_PARALLEL_STARTS")
            .ok()
            .and_then(|n| n.parse().ok());
        let sources = corpus::corpus(cases);
        if let Ok(folder) = std::env::var("LOAD_WRITE") {
            write(&sources, &PathBuf::from(folder));
            return;
        }
        println!("{cases} cases, {} cores", cores());
        for name in adapters.split(',') {
            for &jobs in &jobs {
                match name {
                    "reference" => measure(name, &ReferenceAdapter::new(), &sources, jobs),
                    "persistent" => {
                        measure(
                            name,
                            &program("persistent.py", false, starts),
                            &sources,
                            jobs,
                        );
                    }
                    "oneshot" => {
                        measure(name, &program("oneshot.py", true, starts), &sources, jobs)
                    }
                    other => println!("unknown adapter {other:?}"),
                }
            }
        }
    }

    /// Writes the corpus as case files, for runs of the command line (`--cases FOLDER`).
    fn write(sources: &[mcp_error_layers::case::CaseSource], folder: &std::path::Path) {
        for source in sources {
            let file = folder.join(&source.origin);
            let text = source.text.as_deref().unwrap_or_default();
            let written = file
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&file, text));
            if let Err(error) = written {
                println!("cannot write {}: {error}", file.display());
                return;
            }
        }
        println!("{} case files in {}", sources.len(), folder.display());
    }

    fn cores() -> usize {
        std::thread::available_parallelism().map_or(0, |n| n.get())
    }

    fn program(name: &str, one_shot: bool, starts: Option<usize>) -> ProcessAdapter {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/adapters")
            .join(name);
        let adapter = ProcessAdapter::new(path, Vec::<String>::new());
        let adapter = if one_shot {
            adapter.one_shot()
        } else {
            adapter
        };
        match starts {
            Some(n) => adapter.with_parallel_starts(n),
            None => adapter,
        }
    }

    fn measure<D: Driver>(
        name: &str,
        driver: &D,
        sources: &[mcp_error_layers::case::CaseSource],
        jobs: usize,
    ) {
        let started = Instant::now();
        let run = Run::new(driver).cases(sources.to_vec()).jobs(jobs);
        let records = run.execute(&()).cases;
        let wall = started.elapsed();
        let wrong = corpus::misjudged(&records);
        println!(
            "{name:<10} jobs {jobs:>4}: {:>7.2} s, {} hangs, {} misjudged",
            wall.as_secs_f64(),
            corpus::hangs(&records),
            wrong.len()
        );
        for line in wrong.iter().take(5) {
            println!("    {line}");
        }
    }
}
