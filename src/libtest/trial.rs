//! One libtest trial per case, then one for the configuration and one for the baseline when
//! they exist, all sharing one [`Harness`] that keeps every record for the reports.

use super::plan::{Plan, Planned};
use super::snapshot_check::SnapshotCheck;
use super::wording;
use crate::adapter::Driver;
use crate::baseline::Baseline;
use crate::case::{Case, LoadError};
use crate::engine::Run;
use crate::record::CaseRecord;
use crate::runner::RunOptions;
use crate::verdict::Verdict;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// The name of the trial that reports configuration problems; `::` keeps it apart from case
/// ids, which are paths.
pub(crate) const CONFIG_TRIAL: &str = "mcp-error-layers::config";

/// The name of the trial that reports the baseline's problems and its unused entries.
pub(crate) const BASELINE_TRIAL: &str = "mcp-error-layers::baseline";

/// What every trial shares: the client, how to run it, and the records so far.
pub(crate) struct Harness<A> {
    pub adapter: A,
    /// How to run and judge each case (strictness and the baseline are in its rules).
    pub options: RunOptions,
    /// The baseline file as a person reads it, for messages.
    pub baseline_shown: String,
    pub snapshots: Option<SnapshotCheck>,
    /// Why the client cannot run here ([`Config::unavailable`](crate::Config::unavailable)).
    pub unavailable: Option<String>,
    /// Every record, in the order trials finished (trials run on several threads).
    pub records: Mutex<Vec<Kept>>,
    /// How many case trials have ended, however they ended; the baseline trial waits for all.
    pub ended: (Mutex<usize>, Condvar),
}

/// A case's record and whether its snapshot matched.
#[derive(Debug)]
pub(crate) struct Kept {
    pub record: CaseRecord,
    /// The snapshot did not match or was new (always false without snapshots).
    pub snapshot_changed: bool,
}

/// Counts a case trial as ended when dropped, so that a panicking trial counts too.
struct Ended<'a>(&'a (Mutex<usize>, Condvar));

impl Drop for Ended<'_> {
    fn drop(&mut self) {
        let (count, changed) = self.0;
        *count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        changed.notify_all();
    }
}

impl<A: Driver + 'static> Harness<A> {
    /// The trials of `plan`: its cases, then the configuration check and the baseline check if
    /// there are any. The baseline trial comes last: libtest hands out trials in order, so it
    /// starts after every case trial has started, and waits for them to end. Run in parallel,
    /// the cases expected to time out come first, as in an engine run (their order is the
    /// engine's, `engine::pool`): started last, one of them would set the run's length alone.
    /// Listed, or run one at a time, they keep the plan's order, as printed.
    pub(crate) fn trials(self: &Arc<Self>, plan: &Plan, args: &Arguments) -> Vec<Trial> {
        // Loaded once: to order the trials, to name their kind, and to run.
        let mut cases: Vec<(&Planned, Result<Case, LoadError>)> =
            plan.cases.iter().map(|c| (c, c.source.load())).collect();
        if !args.list && args.test_threads != Some(1) {
            // Stable: the cases that wait first, each group in plan order.
            cases.sort_by_key(|(_, loaded)| !crate::engine::waits_out_a_timeout(loaded));
        }
        let mut trials: Vec<Trial> = cases
            .into_iter()
            .map(|(planned, loaded)| self.trial(planned, loaded))
            .collect();
        let running = trials
            .iter()
            .filter(|t| !args.is_filtered_out(t) && !args.is_ignored(t))
            .count();
        // Unused `[checks]` entries can only be told on a run of every planned case (cases the
        // configuration skips are part of the plan; a command-line filter is not).
        let filtered = trials.iter().any(|t| args.is_filtered_out(t));
        let complete = !filtered && self.unavailable.is_none();
        if plan.checked {
            trials.push(config_trial(plan.problems.clone()));
        }
        if plan.has_baseline {
            trials.push(self.baseline_trial(plan, complete.then_some(running)));
        }
        trials
    }

    /// The trial of `planned`, as it `loaded`: its grade names the trial's kind, and the trial
    /// runs it as loaded.
    fn trial(self: &Arc<Self>, planned: &Planned, loaded: Result<Case, LoadError>) -> Trial {
        let kind = match &loaded {
            Ok(case) => case.file.grade.as_str(),
            Err(_) => "broken",
        };
        let harness = Arc::clone(self);
        let id = planned.source.id.clone();
        // Named as printed: an id with a newline would break libtest's lines.
        let name = crate::explain::shown_id(&id).into_owned();
        Trial::ignorable_test(name, move || {
            let _ended = Ended(&harness.ended);
            if let Some(reason) = &harness.unavailable {
                return Ok(Completion::ignored_with(format!("unavailable: {reason}")));
            }
            let run = Run::with_options(&harness.adapter, harness.options.clone());
            let record = run.run_loaded(&id, &loaded);
            harness.finish(record)
        })
        .with_kind(kind)
        .with_ignored_flag(planned.skipped)
    }

    /// Says `record`'s standing, checks its snapshot and keeps it; both problems go into one
    /// failure.
    fn finish(&self, record: CaseRecord) -> Result<Completion, Failed> {
        let tested = super::result::test_result(&record, &self.baseline_shown);
        let snapshot = match &self.snapshots {
            Some(snapshots) if record.error.is_none() && !self.is_racy(&record.id) => {
                snapshots.check(&record)
            }
            _ => Ok(()),
        };
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Kept {
                record,
                snapshot_changed: snapshot.is_err(),
            });
        match (tested, snapshot) {
            (tested, Ok(())) => tested,
            (Ok(_), Err(snapshot)) => Err(snapshot.into()),
            (Err(failed), Err(snapshot)) => {
                let text = failed.message().unwrap_or_default();
                Err(format!("{text}\n{snapshot}").into())
            }
        }
    }

    /// Whether the baseline calls case `id` racy (its reason starts with `racy: `): what the
    /// client does differs from run to run, so its snapshot is not compared; its record and
    /// reports still show the run.
    fn is_racy(&self, id: &str) -> bool {
        let reason = self.options.rules.baseline.reason(id);
        reason.is_some_and(crate::rules::is_racy)
    }

    /// Fails with the baseline's problems and, on a run of every case (`wait_for` of them),
    /// with the `[checks]` entries no case needed.
    fn baseline_trial(self: &Arc<Self>, plan: &Plan, wait_for: Option<usize>) -> Trial {
        let harness = Arc::clone(self);
        let mut problems = plan.baseline_problems.clone();
        Trial::test(BASELINE_TRIAL, move || {
            if let Some(cases) = wait_for
                && !one_process_per_test()
            {
                harness.wait_for(cases);
                problems.extend(harness.unused_checks());
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(wording::baseline_problems(&harness.baseline_shown, &problems).into())
            }
        })
        .with_kind("config")
    }

    fn wait_for(&self, cases: usize) {
        let (count, changed) = &self.ended;
        let mut ended = count.lock().unwrap_or_else(PoisonError::into_inner);
        while *ended < cases {
            ended = changed.wait(ended).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// A line for each `[checks]` entry that no case of the run failed.
    fn unused_checks(&self) -> Vec<String> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let failed = |name: &str| records.iter().any(|k| fails_check(&k.record, name));
        let baseline: &Baseline = &self.options.rules.baseline;
        baseline
            .unused_checks(&failed)
            .into_iter()
            .map(wording::unused_check)
            .collect()
    }
}

/// Whether some judged call of `record` failed the check `name`.
fn fails_check(record: &CaseRecord, name: &str) -> bool {
    let judged = record
        .calls
        .iter()
        .filter(|c| c.verdict != Verdict::Unsupported);
    judged
        .flat_map(|c| c.failed_checks())
        .any(|c| c.name == name)
}

/// cargo-nextest runs each test in a process of its own: no trial sees another's record.
pub(crate) fn one_process_per_test() -> bool {
    std::env::var("NEXTEST_EXECUTION_MODE").is_ok_and(|mode| mode == "process-per-test")
}

impl<A> Harness<A> {
    /// Takes the records, sorted by id.
    pub(crate) fn take_records(&self) -> Vec<Kept> {
        let mut records =
            std::mem::take(&mut *self.records.lock().unwrap_or_else(PoisonError::into_inner));
        records.sort_by(|a, b| a.record.id.cmp(&b.record.id));
        records
    }
}

/// Fails with every configuration problem, or passes when there is none.
fn config_trial(problems: Vec<String>) -> Trial {
    Trial::test(CONFIG_TRIAL, move || {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(wording::config_problems(&problems).into())
        }
    })
    .with_kind("config")
}

#[cfg(test)]
#[cfg(feature = "reference-client")]
mod tests {
    use super::*;
    use crate::adapter::reference::ReferenceAdapter;
    use crate::case::builtin;
    use crate::rules::Rules;

    /// A harness for the reference client over `ids`, with the baseline `text`.
    fn harness(ids: &[&str], text: &str) -> (Arc<Harness<ReferenceAdapter>>, Plan) {
        let loaded = Baseline::parse(text);
        let plan = Plan {
            cases: builtin()
                .into_iter()
                .filter(|s| ids.contains(&s.id.as_str()))
                .map(|source| Planned {
                    source,
                    skipped: false,
                })
                .collect(),
            baseline: loaded.baseline.clone(),
            has_baseline: true,
            baseline_problems: loaded.problems,
            ..Plan::default()
        };
        let options = RunOptions {
            rules: Rules::strict(false).with_baseline(loaded.baseline),
            ..RunOptions::default()
        };
        let harness = Harness {
            adapter: ReferenceAdapter::new(),
            options,
            baseline_shown: "b.toml".into(),
            snapshots: None,
            unavailable: None,
            records: Mutex::new(Vec::new()),
            ended: (Mutex::new(0), Condvar::new()),
        };
        (Arc::new(harness), plan)
    }

    /// libtest's arguments for a run inside a test: its output goes nowhere, so that a green
    /// `cargo test` shows no `test result: FAILED.` line of a run that was meant to fail.
    fn args(threads: usize) -> Arguments {
        Arguments {
            test_threads: Some(threads),
            quiet: true,
            logfile: Some("/dev/null".into()),
            ..Arguments::default()
        }
    }

    const STALE: &str = "[accepted]\n\"tool/success\" = \"was flaky\"\n\
                         [checks]\n\"name-header\" = \"not yet\"\n";

    #[test]
    fn stale_entries_fail_their_case_and_the_baseline_trial_on_any_thread_count() {
        for threads in [1, 4] {
            let (harness, plan) = harness(&["tool/success", "tool/is-error"], STALE);
            let trials = harness.trials(&plan, &args(threads));
            assert_eq!(trials.last().map(Trial::name), Some(BASELINE_TRIAL));
            let conclusion = libtest_mimic::run(&args(threads), trials);
            // tool/success is stale; the baseline trial names the unused check.
            assert_eq!((conclusion.num_passed, conclusion.num_failed), (1, 2));
            assert_eq!(harness.unused_checks().len(), 1);
            assert!(harness.unused_checks()[0].contains("`name-header`"));
        }
    }

    #[test]
    fn a_racy_case_is_not_compared_with_its_snapshot_and_the_others_are() {
        let text = "[accepted]\n\"tool/is-error\" = \"racy: differs from run to run\"\n";
        let (harness, plan) = harness(&["tool/success", "tool/is-error"], text);
        let mut harness = Arc::try_unwrap(harness).unwrap_or_else(|_| unreachable!());
        let folder =
            std::env::temp_dir().join(format!("mcp-error-layers-racy-{}", std::process::id()));
        // Every comparison fails: only a case that is not compared can pass.
        harness.snapshots = Some(SnapshotCheck {
            folder: folder.clone(),
            shown: "snapshots".into(),
            assert: |_, _| panic!("compared"),
        });
        let harness = Arc::new(harness);
        let conclusion = libtest_mimic::run(&args(1), harness.trials(&plan, &args(1)));
        assert_eq!((conclusion.num_passed, conclusion.num_failed), (2, 1));
        let failed = harness.records.lock().unwrap();
        let changed: Vec<&str> = failed
            .iter()
            .filter(|kept| kept.snapshot_changed)
            .map(|kept| kept.record.id.as_str())
            .collect();
        assert_eq!(changed, ["tool/success"]);
        let _ = std::fs::remove_dir_all(folder);
    }

    #[test]
    fn in_parallel_the_cases_expected_to_time_out_come_first_listed_or_alone_in_plan_order() {
        let ids = [
            "tool/success",
            "transport/headers-then-silence",
            "tool/is-error",
        ];
        let (harness, plan) = harness(&ids, "");
        let names = |args: &Arguments| -> Vec<String> {
            let trials = harness.trials(&plan, args);
            trials.iter().map(|t| t.name().to_owned()).collect()
        };
        let plan_order = [
            "tool/is-error",
            "tool/success",
            "transport/headers-then-silence",
        ];
        assert_eq!(
            names(&args(4))[..3],
            [
                "transport/headers-then-silence",
                plan_order[0],
                plan_order[1]
            ]
        );
        assert_eq!(names(&args(1))[..3], plan_order);
        let listed = Arguments {
            list: true,
            ..args(4)
        };
        assert_eq!(names(&listed)[..3], plan_order);
    }

    #[test]
    fn a_case_id_with_a_newline_names_its_trial_escaped() {
        let (harness, mut plan) = harness(&["tool/success"], "");
        plan.cases[0].source.id = "two\nlines".into();
        let trials = harness.trials(&plan, &args(1));
        assert_eq!(trials[0].name(), "two\\nlines");
    }

    #[test]
    fn a_filtered_run_does_not_judge_unused_checks_but_still_reports_typos() {
        let typo = format!("{STALE}\"no-such-check\" = \"x\"\n");
        let (harness, plan) = harness(&["tool/success", "tool/is-error"], &typo);
        let filtered = Arguments {
            filter: Some("tool/is-error".into()),
            ..args(2)
        };
        let conclusion = libtest_mimic::run(&filtered, harness.trials(&plan, &filtered));
        // tool/success is filtered out; the baseline trial is too (filter), so both pass.
        assert_eq!((conclusion.num_passed, conclusion.num_failed), (1, 0));
        let exact = Arguments {
            filter: Some(BASELINE_TRIAL.into()),
            exact: true,
            ..args(2)
        };
        let conclusion = libtest_mimic::run(&exact, harness.trials(&plan, &exact));
        // Alone, it cannot tell unused checks, but the unknown check name fails it.
        assert_eq!((conclusion.num_passed, conclusion.num_failed), (0, 1));
    }
}
