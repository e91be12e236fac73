//! One libtest trial per case (plus one for the configuration when it names anything), all
//! sharing one [`Harness`] that keeps every record for the reports.

use super::judge::Judge;
use super::message;
use super::plan::{Plan, Planned};
use super::snapshots::Snapshots;
use crate::adapter::Driver;
use crate::runner::{CaseRecord, RunOptions, run_source_blocking};
use libtest_mimic::{Completion, Failed, Trial};
use std::sync::{Arc, Mutex, PoisonError};

/// The name of the trial that reports configuration problems; `::` keeps it apart from case
/// ids, which are paths.
pub(crate) const CONFIG_TRIAL: &str = "mcp-error-layers::config";

/// What every trial shares: the client, how to run and judge, and the records so far.
pub(crate) struct Harness<A> {
    pub adapter: A,
    pub options: RunOptions,
    pub judge: Judge,
    pub snapshots: Option<Snapshots>,
    /// Why the client cannot run here ([`Config::unavailable`](crate::Config::unavailable)).
    pub unavailable: Option<String>,
    /// Every record, in the order trials finished (trials run on several threads).
    pub records: Mutex<Vec<Kept>>,
}

/// A case's record and whether its snapshot matched.
#[derive(Debug)]
pub(crate) struct Kept {
    pub record: CaseRecord,
    /// The snapshot did not match or was new (always false without snapshots).
    pub snapshot_changed: bool,
}

impl<A: Driver + 'static> Harness<A> {
    /// The trials of `plan`: its cases, then the configuration check if there is one.
    pub(crate) fn trials(self: &Arc<Self>, plan: &Plan) -> Vec<Trial> {
        let mut trials: Vec<Trial> = plan.cases.iter().map(|c| self.trial(c)).collect();
        if plan.checked {
            trials.push(config_trial(plan.problems.clone()));
        }
        trials
    }

    fn trial(self: &Arc<Self>, planned: &Planned) -> Trial {
        let kind = match planned.source.load() {
            Ok(case) => case.file.grade.as_str(),
            Err(_) => "broken",
        };
        let harness = Arc::clone(self);
        let source = planned.source.clone();
        Trial::ignorable_test(source.id.clone(), move || {
            if let Some(reason) = &harness.unavailable {
                return Ok(Completion::ignored_with(format!("unavailable: {reason}")));
            }
            let record = run_source_blocking(&harness.adapter, &source, &harness.options);
            harness.finish(record)
        })
        .with_kind(kind)
        .with_ignored_flag(planned.skipped)
    }

    /// Judges `record`, checks its snapshot and keeps it; both problems go into one failure.
    fn finish(&self, record: CaseRecord) -> Result<Completion, Failed> {
        let judged = self.judge.outcome(&record);
        let snapshot = match &self.snapshots {
            Some(snapshots) if record.error.is_none() => snapshots.check(&record),
            _ => Ok(()),
        };
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Kept {
                record,
                snapshot_changed: snapshot.is_err(),
            });
        match (judged, snapshot) {
            (judged, Ok(())) => judged,
            (Ok(_), Err(snapshot)) => Err(snapshot.into()),
            (Err(failed), Err(snapshot)) => {
                let text = failed.message().unwrap_or_default();
                Err(format!("{text}\n{snapshot}").into())
            }
        }
    }
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
            Err(message::config_problems(&problems).into())
        }
    })
    .with_kind("config")
}
