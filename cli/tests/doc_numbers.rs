//! The numbers and flag lists the README and the docs state are the program's: the count of
//! built-in cases, the count of rows, and every flag of `run --help` in the README's paragraph
//! that lists them. A number that drifts (the README once said 135 cases while there were 162)
//! or a flag left out of the list (`--transports`, without which the stdio cases are skipped)
//! fails here, naming the doc, what it says and what the program says.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn doc(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The number written right after `marker` in `text` (`(162, in` after `The built-in cases`).
fn number_after(path: &str, text: &str, marker: &str) -> usize {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{path} no longer says {marker:?}: update this test with it"));
    let digits: String = text[at + marker.len()..]
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("{path}: no number after {marker:?}"))
}

#[test]
fn the_readme_counts_the_built_in_cases_there_are() {
    let cases = mcp_error_layers::case::builtin().len();
    // The README wraps the sentence, so its words are joined before they are searched.
    let readme = doc("README.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let said = number_after("README.md", &readme, "The built-in cases (");
    assert_eq!(
        said, cases,
        "README.md says \"The built-in cases ({said}, …\"; there are {cases}: write {cases}"
    );
}

/// The rows: every folder under harness/adapters/ with an adapter.toml.
fn rows() -> usize {
    std::fs::read_dir(repo().join("harness/adapters"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join("adapter.toml").is_file())
        .count()
}

#[test]
fn the_html_doc_weighs_todays_rows() {
    let rows = rows();
    let text = doc("docs/reports.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let said = number_after("docs/reports.md", &text, "For today's ");
    assert_eq!(
        said, rows,
        "docs/reports.md says \"For today's {said} rows\"; harness/adapters/ has {rows} folders \
         with an adapter.toml: measure the page again (docs/reports.md says how) and write both"
    );
}

/// The long flags `mcp-error-layers run --help` lists, `--help` aside.
fn run_flags() -> Vec<String> {
    let help = Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    assert!(help.status.success());
    let mut flags: Vec<String> = String::from_utf8_lossy(&help.stdout)
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line
                .strip_prefix('-')
                .filter(|rest| rest.len() > 2 && rest.as_bytes()[1] == b',')
                .map_or(line, |rest| rest[2..].trim_start());
            let flag = line.strip_prefix("--")?;
            let name: String = flag
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            (!name.is_empty() && name != "help").then(|| format!("--{name}"))
        })
        .collect();
    flags.dedup();
    flags
}

/// The README's paragraph that lists `run`'s flags: from "`run [FILTER]" to the next blank
/// line.
fn readme_run_paragraph() -> String {
    let readme = doc("README.md");
    let start = readme
        .find("`run [FILTER]")
        .expect("README.md lists run's flags in a paragraph that starts with `run [FILTER]");
    let paragraph = &readme[start..];
    let end = paragraph.find("\n\n").unwrap_or(paragraph.len());
    paragraph[..end].to_owned()
}

#[test]
fn the_readme_lists_every_flag_of_run() {
    let flags = run_flags();
    assert!(
        flags.len() > 10 && flags.iter().any(|f| f == "--transports"),
        "run --help was read: {flags:?}"
    );
    let paragraph = readme_run_paragraph();
    let missing: Vec<&String> = flags
        .iter()
        .filter(|flag| {
            // A flag shown as `--flag` or inside a pair such as `--tap/--junit`.
            !paragraph.contains(&format!("`{flag}")) && !paragraph.contains(&format!("/{flag}"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "README.md's paragraph on `run [FILTER]...` does not name {missing:?}, which `run \
         --help` lists: add each with what it does"
    );
}
