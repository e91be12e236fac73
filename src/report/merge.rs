//! `report merge`: the JSON reports of `run --shard 1/N` .. `--shard N/N` joined into the
//! report one unsharded run writes. Every shard must be of the same run: the same adapter and
//! version, generator, protocol version, strictness and case selection ([`ShardInfo`]), each
//! shard once, and no case twice; anything else is refused, naming the files and what differs.

use super::json::{JsonReport, JsonSummary, LayerFidelity, VerdictCounts};
use super::shard::ShardInfo;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why shard reports cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MergeError(String);

/// Joins shard reports (each with the path it was read from, for messages) into one report:
/// cases in id order, the summary summed, no `shard` key.
pub fn merge(reports: &[(PathBuf, JsonReport)]) -> Result<JsonReport, MergeError> {
    let (first_path, first) = reports
        .first()
        .ok_or_else(|| MergeError("no report to merge".into()))?;
    let first_shard = shard_of(first_path, first)?;
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    let mut cases: BTreeMap<&str, &Path> = BTreeMap::new();
    for (path, report) in reports {
        let shard = shard_of(path, report)?;
        same_run(first_path, first, first_shard, path, report, shard)?;
        if let Some(other) = seen.insert(shard.index, path) {
            return Err(MergeError(format!(
                "{} and {} are both shard {}: give each shard once",
                other.display(),
                path.display(),
                shard.shard()
            )));
        }
        for case in &report.cases {
            if let Some(other) = cases.insert(&case.id, path) {
                return Err(MergeError(format!(
                    "case {} is in both {} and {}: shards of one run never overlap",
                    case.id,
                    other.display(),
                    path.display()
                )));
            }
        }
    }
    let missing: Vec<String> = (1..=first_shard.count)
        .filter(|index| !seen.contains_key(index))
        .map(|index| format!("{index}/{}", first_shard.count))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError(format!(
            "shard {} missing: merge needs all {} shards of the run",
            missing.join(", "),
            first_shard.count
        )));
    }
    if cases.len() != first_shard.of_cases {
        return Err(MergeError(format!(
            "the shards hold {} cases, but the run selected {}: a shard report was cut short",
            cases.len(),
            first_shard.of_cases
        )));
    }
    Ok(joined(reports))
}

/// The `shard` key of `report`, or why a report without one cannot be merged.
fn shard_of<'a>(path: &Path, report: &'a JsonReport) -> Result<&'a ShardInfo, MergeError> {
    report.shard.as_ref().ok_or_else(|| {
        MergeError(format!(
            "{} is not a shard report (no `shard` key): merge joins the reports of \
             `run --shard K/N`",
            path.display()
        ))
    })
}

/// Refuses `report` unless it is a shard of the same run as `first`.
fn same_run(
    first_path: &Path,
    first: &JsonReport,
    first_shard: &ShardInfo,
    path: &Path,
    report: &JsonReport,
    shard: &ShardInfo,
) -> Result<(), MergeError> {
    let differs = |what: &str, a: String, b: String| {
        MergeError(format!(
            "{} and {} are not shards of one run: {what} {a} ≠ {b}",
            first_path.display(),
            path.display()
        ))
    };
    let pairs = [
        ("adapter", first.adapter.label(), report.adapter.label()),
        (
            "generator",
            first.generator.clone(),
            report.generator.clone(),
        ),
        (
            "protocol_version",
            format!("{:?}", first.protocol_version),
            format!("{:?}", report.protocol_version),
        ),
        (
            "strict",
            first.strict.to_string(),
            report.strict.to_string(),
        ),
        (
            "shard count",
            first_shard.count.to_string(),
            shard.count.to_string(),
        ),
        (
            "case selection",
            format!("{} ({} cases)", first_shard.selection, first_shard.of_cases),
            format!("{} ({} cases)", shard.selection, shard.of_cases),
        ),
    ];
    match pairs.into_iter().find(|(_, a, b)| a != b) {
        Some((what, a, b)) => Err(differs(what, a, b)),
        None => Ok(()),
    }
}

/// The checked shards as one report.
fn joined(reports: &[(PathBuf, JsonReport)]) -> JsonReport {
    let mut merged = reports[0].1.clone();
    merged.shard = None;
    merged.cases = reports.iter().flat_map(|(_, r)| r.cases.clone()).collect();
    merged.cases.sort_by(|a, b| a.id.cmp(&b.id));
    merged.summary = reports
        .iter()
        .map(|(_, r)| &r.summary)
        .fold(empty_summary(), |sum, s| add(&sum, s));
    merged.duration_ms = reports.iter().filter_map(|(_, r)| r.duration_ms).max();
    merged
}

fn empty_summary() -> JsonSummary {
    JsonSummary {
        cases: 0,
        passed: 0,
        failed: 0,
        warnings: 0,
        skipped: 0,
        accepted: 0,
        verdicts: VerdictCounts::default(),
        layer_fidelity: Some(LayerFidelity::default()),
        model_fidelity: None,
        hop_fidelity: None,
        coarse: 0,
    }
}

/// Two summaries of disjoint sets of cases added: the summary of their union.
fn add(a: &JsonSummary, b: &JsonSummary) -> JsonSummary {
    let (x, y) = (&a.verdicts, &b.verdicts);
    JsonSummary {
        cases: a.cases + b.cases,
        passed: a.passed + b.passed,
        failed: a.failed + b.failed,
        warnings: a.warnings + b.warnings,
        skipped: a.skipped + b.skipped,
        accepted: a.accepted + b.accepted,
        coarse: a.coarse + b.coarse,
        // A shard without the figure (an older report) leaves the merged report without it.
        layer_fidelity: a
            .layer_fidelity
            .zip(b.layer_fidelity)
            .map(|(x, y)| LayerFidelity {
                told_apart: x.told_apart + y.told_apart,
                cases: x.cases + y.cases,
            }),
        // Every shard of an agent's run has it; the empty start has none.
        model_fidelity: either_or_sum(a.model_fidelity, b.model_fidelity),
        hop_fidelity: either_or_sum(a.hop_fidelity, b.hop_fidelity),
        verdicts: VerdictCounts {
            pass: x.pass + y.pass,
            unsupported: x.unsupported + y.unsupported,
            fail: x.fail + y.fail,
            hang: x.hang + y.hang,
            adapter_error: x.adapter_error + y.adapter_error,
        },
    }
}

/// Two shards' figure of a kind of run that every shard of it has (the empty start has none):
/// their sum, or the one there is.
fn either_or_sum(a: Option<LayerFidelity>, b: Option<LayerFidelity>) -> Option<LayerFidelity> {
    match (a, b) {
        (Some(x), Some(y)) => Some(LayerFidelity {
            told_apart: x.told_apart + y.told_apart,
            cases: x.cases + y.cases,
        }),
        (one, None) | (None, one) => one,
    }
}
