//! Which cases the agent and bridge rows run ([`AGENT_CASES_VAR`]). An agent case costs an
//! agent's start-up and its model turns (3 to 18 s a case, where an SDK row's case takes
//! milliseconds), and a bridge's case may wait for the bridge's own upstream timeout (up to
//! 300 s), so a run of every case by all of them is most of a CI run. `.ci/run` names a sample
//! (harness/adapters/agent-sample.txt, one case per fault family of each layer); the agent and
//! bridge tables in the matrix are the record of a run of every case, made with the variable
//! unset.

use mcp_error_layers::case::builtin;
use std::collections::BTreeSet;
use std::path::Path;

/// The path of a file of case ids, one a line (`#` starts a comment): the agent and bridge rows
/// run these and list the others as ignored. Unset: every case.
pub const AGENT_CASES_VAR: &str = "MCP_ERROR_LAYERS_AGENT_CASES";

/// The built-in cases an agent or bridge row leaves out under [`AGENT_CASES_VAR`]: none when it is unset;
/// an error naming the file (and the line) when it cannot be read or names no case.
pub fn left_out() -> Result<Vec<String>, String> {
    match std::env::var_os(AGENT_CASES_VAR) {
        None => Ok(Vec::new()),
        Some(path) => {
            let known = builtin_ids();
            let sample = read_sample(Path::new(&path), &known)?;
            Ok(outside(known, &sample))
        }
    }
}

/// The built-in case ids, in order.
fn builtin_ids() -> Vec<String> {
    builtin().into_iter().map(|c| c.id).collect()
}

/// The ids of `known` not in `sample`.
fn outside(known: Vec<String>, sample: &BTreeSet<String>) -> Vec<String> {
    known
        .into_iter()
        .filter(|id| !sample.contains(id))
        .collect()
}

/// The ids `path` lists, each one of `known`.
fn read_sample(path: &Path, known: &[String]) -> Result<BTreeSet<String>, String> {
    let shown = format!("{AGENT_CASES_VAR}={}", path.display());
    let text =
        mcp_error_layers::input::read_to_string(path, mcp_error_layers::input::Kind::CaseList)
            .map_err(|e| format!("{shown}: {}", e.why()))?;
    let mut sample = BTreeSet::new();
    for (at, line) in text.lines().enumerate() {
        let id = line.split('#').next().unwrap_or("").trim();
        if id.is_empty() {
            continue;
        }
        if !known.iter().any(|k| k == id) {
            return Err(format!(
                "{shown}, line {}: `{id}` is no built-in case (`mcp-error-layers list` lists \
                 them): fix the id or remove the line",
                at + 1
            ));
        }
        sample.insert(id.to_owned());
    }
    if sample.is_empty() {
        return Err(format!(
            "{shown}: lists no case; unset the variable to run every case"
        ));
    }
    Ok(sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` written to a fresh file named after `name`, read as a sample.
    #[allow(dead_code)] // the sdk target (harness = false) compiles no #[test] function
    fn sample_of(name: &str, text: &str) -> Result<BTreeSet<String>, String> {
        let path = std::env::temp_dir().join(format!(
            "mcp-error-layers-sample-{name}-{}.txt",
            std::process::id()
        ));
        std::fs::write(&path, text).unwrap();
        let read = read_sample(&path, &builtin_ids());
        let _ = std::fs::remove_file(&path);
        read
    }

    #[test]
    fn the_ci_sample_names_only_built_in_cases_and_leaves_the_others_out() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/harness/adapters/agent-sample.txt"
        );
        let sample = read_sample(Path::new(path), &builtin_ids()).unwrap();
        assert!(sample.contains("tool/success"), "{sample:?}");
        let out = outside(builtin_ids(), &sample);
        assert_eq!(out.len() + sample.len(), builtin().len());
        assert!(out.iter().all(|id| !sample.contains(id)));
    }

    #[test]
    fn a_sample_line_that_is_no_case_is_named_with_its_line() {
        let why =
            sample_of("typo", "# a comment\ntool/success\n\ntool/sucess # typo\n").unwrap_err();
        assert!(
            why.contains("line 4") && why.contains("`tool/sucess`"),
            "{why}"
        );
        assert!(why.contains(AGENT_CASES_VAR), "{why}");
    }

    #[test]
    fn a_sample_of_comments_only_or_a_missing_file_is_refused() {
        let why = sample_of("empty", "# nothing\n\n").unwrap_err();
        assert!(why.contains("lists no case"), "{why}");
        let why = read_sample(Path::new("/nonexistent/sample.txt"), &[]).unwrap_err();
        assert!(why.contains("/nonexistent/sample.txt"), "{why}");
    }
}
