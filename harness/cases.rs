//! `cargo test` entry: one libtest trial per built-in case, run against the reference client,
//! each checked against its expectation and against its snapshot under `snapshots/reference/`.
//!
//! Filters, `--list`, `--exact` and nextest work as with any libtest binary. Set
//! `MCP_ERROR_LAYERS_STRICT=1` to fail SHOULD-grade mismatches too.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::{CaseSource, Grade, builtin};
use mcp_error_layers::explain::explain;
use mcp_error_layers::runner::{CaseRecord, RunOptions, run_source_blocking};
use mcp_error_layers::snapshot::SnapshotView;
use mcp_error_layers::verdict::Verdict;
use std::sync::Arc;

fn main() {
    let args = Arguments::from_args();
    let adapter = Arc::new(ReferenceAdapter::new());
    let strict = std::env::var_os("MCP_ERROR_LAYERS_STRICT").is_some_and(|v| v != "0");
    let trials = builtin()
        .into_iter()
        .map(|source| trial(source, Arc::clone(&adapter), strict));
    libtest_mimic::run(&args, trials.collect()).exit();
}

fn trial(source: CaseSource, adapter: Arc<ReferenceAdapter>, strict: bool) -> Trial {
    let kind = match source.load() {
        Ok(case) => grade_word(case.file.grade),
        Err(_) => "broken",
    };
    Trial::ignorable_test(source.id.clone(), move || {
        let record = run_source_blocking(&*adapter, &source, &RunOptions::default());
        let completion = judge(&record, strict)?;
        assert_snapshot(&record);
        Ok(completion)
    })
    .with_kind(kind)
}

fn grade_word(grade: Grade) -> &'static str {
    match grade {
        Grade::Must => "must",
        Grade::Should => "should",
        Grade::Info => "info",
    }
}

/// Pass, skip (unsupported), warn (a SHOULD/INFO mismatch outside strict mode) or fail.
fn judge(record: &CaseRecord, strict: bool) -> Result<Completion, Failed> {
    match record.verdict {
        Verdict::Pass => Ok(Completion::Completed),
        Verdict::Unsupported => Ok(Completion::ignored_with(explain(record).trim_end())),
        _ if record.error.is_none() && !strict && record.grade != Grade::Must => {
            eprintln!(
                "warning: {} ({}):\n{}",
                record.id,
                record.verdict,
                explain(record)
            );
            Ok(Completion::Completed)
        }
        verdict => Err(format!("{verdict}: {}\n{}", record.id, explain(record)).into()),
    }
}

fn assert_snapshot(record: &CaseRecord) {
    let name = record.id.replace('/', "__");
    insta::with_settings!({
        snapshot_path => "../snapshots/reference",
        prepend_module_to_snapshot => false,
        omit_expression => true,
        description => record.summary.clone(),
    }, {
        insta::assert_yaml_snapshot!(name, SnapshotView::of(record));
    });
}
