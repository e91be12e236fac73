//! `run --shard K/N` and `report merge`: the shards of a run, merged, are the unsharded run's
//! report (but for what depends on time and ports); reports of other runs are refused.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/bin.rs"]
mod support;
use support::{bin, temp_dir};

/// `run` of the reference client on `filters`, the JSON report at `json`, sharded or not.
fn run_to(json: &Path, shard: Option<&str>, filters: &[&str]) {
    let mut args = vec!["run", "--json", json.to_str().unwrap()];
    if let Some(shard) = shard {
        args.extend(["--shard", shard]);
    }
    args.extend(filters);
    let output = bin(&args);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn merge(dir: &Path, reports: &[&Path]) -> Output {
    let mut args = vec!["report", "merge", "-o"];
    let out = dir.join("merged.json");
    args.push(out.to_str().unwrap());
    args.extend(reports.iter().map(|p| p.to_str().unwrap()));
    bin(&args)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The report with what differs between two runs of the same cases blanked: every
/// `duration_ms` and `at_ms` (wall time), and each case's `server` and `transcript` (they hold
/// the server's port in `host` headers and times in the transcript), and the checks of a call
/// that ended in the client's own timeout (how many polls fit before it is a matter of time:
/// `tasks/legacy-timeout-cancel` polls every 250 ms against a 400 ms timeout, so a busy machine
/// records one `task-poll-interval` check or none). What the client did is still compared:
/// verdicts, standings, per call the observation, `tool_posts`, every other call's checks.
fn normalised(mut report: Value) -> Value {
    // Wall times: a merged report has the longest shard's, which is not the whole run's.
    report["duration_ms"] = Value::Null;
    for case in report["cases"].as_array_mut().unwrap() {
        case["duration_ms"] = Value::Null;
        case["server"] = Value::Null;
        case["transcript"] = Value::Null;
        for call in case["calls"].as_array_mut().unwrap() {
            call["duration_ms"] = Value::Null;
            if call["observed"]["outcome"] == "TIMEOUT" {
                call["checks"] = Value::Null;
            }
        }
    }
    report
}

#[test]
fn shards_merged_equal_the_unsharded_report() {
    let dir = temp_dir("shard-equal");
    let (whole, one, two) = (
        dir.join("whole.json"),
        dir.join("1.json"),
        dir.join("2.json"),
    );
    run_to(&whole, None, &[]);
    run_to(&one, Some("1/2"), &[]);
    run_to(&two, Some("2/2"), &[]);
    let (a, b) = (read(&one), read(&two));
    let sizes = [
        a["cases"].as_array().unwrap().len(),
        b["cases"].as_array().unwrap().len(),
    ];
    assert!(
        sizes.iter().all(|&n| n > 10),
        "a shard is nearly empty: {sizes:?}"
    );
    assert_eq!(a["shard"]["count"], 2);
    assert_eq!(a["shard"]["of_cases"], read(&whole)["summary"]["cases"]);
    // Given in reverse order: the merge sorts the cases by id.
    let output = merge(&dir, &[&two, &one]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let merged = read(&dir.join("merged.json"));
    assert!(merged.get("shard").is_none(), "{}", merged["shard"]);
    assert_eq!(normalised(merged), normalised(read(&whole)));
}

#[test]
fn merge_refuses_reports_that_are_not_the_shards_of_one_run() {
    let dir = temp_dir("shard-refuse");
    let p = |name: &str| dir.join(name);
    run_to(&p("tool-1.json"), Some("1/2"), &["tool/"]);
    run_to(&p("tool-2.json"), Some("2/2"), &["tool/"]);
    run_to(&p("sse-2.json"), Some("2/2"), &["sse/"]);
    run_to(&p("tool-1of3.json"), Some("1/3"), &["tool/"]);
    run_to(&p("whole.json"), None, &["tool/"]);
    let refused = |reports: &[&str], says: &str| {
        let paths: Vec<PathBuf> = reports.iter().map(|r| p(r)).collect();
        let output = merge(
            &dir,
            &paths.iter().map(PathBuf::as_path).collect::<Vec<_>>(),
        );
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(2), "{reports:?}: {stderr}");
        assert!(stderr.contains(says), "{reports:?}: {stderr}");
    };
    refused(&["tool-1.json", "sse-2.json"], "case selection");
    refused(&["tool-1.json", "tool-1of3.json"], "shard count 2 ≠ 3");
    refused(&["tool-1.json", "tool-1.json"], "are both shard 1/2");
    refused(&["tool-1.json"], "shard 2/2 missing");
    refused(
        &["tool-1.json", "whole.json"],
        "whole.json is not a shard report",
    );
    // The adapter must match too: the same shard run under another name.
    let renamed = read(&p("tool-2.json"));
    let mut other = renamed.clone();
    other["adapter"]["name"] = "someone-else".into();
    std::fs::write(p("other-2.json"), other.to_string()).unwrap();
    refused(
        &["tool-1.json", "other-2.json"],
        "adapter reference 0.1.0 ≠ someone-else 0.1.0",
    );
}

#[test]
fn a_bad_shard_is_a_usage_error_naming_the_form() {
    for bad in ["0/2", "3/2", "1/0", "junk"] {
        let output = bin(&["run", "--shard", bad]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad}: {stderr}");
        assert!(
            stderr.contains(&format!("invalid value '{bad}' for '--shard <K/N>'")),
            "{bad}: {stderr}"
        );
    }
}
