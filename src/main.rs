//! `mcp-error-layers`: runs the built-in cases against the reference client and prints a
//! verdict table. Exit code 0 when every MUST case passes, 1 otherwise, 2 when the run itself
//! cannot happen.

use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::{Grade, builtin};
use mcp_error_layers::explain::{expected, observed};
use mcp_error_layers::runner::{CaseRecord, RunOptions};
use mcp_error_layers::suite::{default_jobs, run_all};
use mcp_error_layers::verdict::Verdict;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let sources = builtin();
    if sources.is_empty() {
        eprintln!("error: no built-in cases were compiled in");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let records = run_all(
        &ReferenceAdapter::new(),
        &sources,
        &RunOptions::default(),
        default_jobs(),
        &|_| {},
    );
    let elapsed = started.elapsed();
    print_table(&records);
    let failing = records.iter().filter(|r| fails_run(r)).count();
    let passed = records
        .iter()
        .filter(|r| r.verdict == Verdict::Pass)
        .count();
    println!(
        "\n{} cases: {passed} passed, {failing} failed, {} other; {:.0} ms",
        records.len(),
        records.len() - passed - failing,
        elapsed.as_secs_f64() * 1000.0
    );
    if failing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn fails_run(record: &CaseRecord) -> bool {
    record.verdict != Verdict::Pass
        && record.verdict != Verdict::Unsupported
        && (record.grade == Grade::Must || record.error.is_some())
}

fn print_table(records: &[CaseRecord]) {
    let width = records.iter().map(|r| r.id.len()).max().unwrap_or(4).max(4);
    println!(
        "{:<width$}  {:<13}  {:<6}  expected → observed",
        "case", "verdict", "grade"
    );
    for record in records {
        let grade = format!("{:?}", record.grade).to_lowercase();
        let first = format!(
            "{:<width$}  {:<13}  {:<6}",
            record.id,
            record.verdict.as_str(),
            grade
        );
        if let Some(error) = &record.error {
            println!("{first}  {error}");
        }
        for (i, call) in record.calls.iter().enumerate() {
            let lead = if i == 0 {
                first.clone()
            } else {
                " ".repeat(first.len())
            };
            println!("{lead}  {} → {}", expected(call), observed(call));
        }
    }
}
