//! The README's samples of `run` are what the program prints: the lines they show appear in a
//! real run (the main job over the built-in cases, and an adapter program over the `tool/`
//! cases), and their summaries have today's counts. Only what changes from run to run may
//! differ (the run's time, an adapter process's pid), and the lines elided with `...`.

use std::process::Command;

fn readme_block_after(marker: &str) -> Vec<String> {
    doc_block_after("README.md", marker)
}

/// The lines of the first text block after `marker` in `doc` (a path from the repository root).
fn doc_block_after(doc: &str, marker: &str) -> Vec<String> {
    let path = format!("{}/../{doc}", env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme
        .find(marker)
        .unwrap_or_else(|| panic!("{doc} introduces the sample with {marker:?}"));
    let block = &readme[start..];
    let open = block.find("```text\n").expect("a text block follows") + "```text\n".len();
    let close = block[open..].find("```").expect("the block closes");
    block[open..open + close]
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `; 2965 ms` → `; N ms` and `pid 23394` → `pid N`: what changes from run to run.
fn stable(line: &str) -> String {
    let line = match line.rfind("; ") {
        Some(at) if line.ends_with(" ms") => format!("{}; N ms", &line[..at]),
        _ => line.to_owned(),
    };
    match line.find("pid ") {
        Some(at) => {
            let digits = line[at + 4..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            format!("{}pid N{}", &line[..at], &line[at + 4 + digits..])
        }
        None => line,
    }
}

/// Runs the program with `args` and checks that every line of the README's sample after
/// `marker` (but `...` and the `$` command line) is among the lines it printed; the report
/// lines name `out`, where the README's run used the default `reports/`.
fn check_sample(marker: &str, args: &[&str], exit_code: i32) {
    check_doc_sample(readme_block_after(marker), args, exit_code);
}

/// [`check_sample`] of the lines `sample`, from any doc.
fn check_doc_sample(sample: Vec<String>, args: &[&str], exit_code: i32) {
    let out = std::env::temp_dir().join(format!(
        "mcp-error-layers-readme-{}-{exit_code}",
        std::process::id()
    ));
    let run = Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["run", "--out"])
        .arg(&out)
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(exit_code),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let printed: Vec<String> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(stable)
        .collect();
    let shown = sample
        .iter()
        .filter(|l| *l != "..." && !l.starts_with("$ "));
    for line in shown {
        let expected = stable(line).replace("reports/", &format!("{}/", out.display()));
        assert!(
            printed.contains(&expected),
            "the doc's sample shows `{line}`, which the program does not print; it printed:\n{}",
            printed.join("\n")
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_readme_sample_of_the_main_job_is_what_a_run_prints() {
    check_sample("`cargo run` prints one line per case", &[], 0);
}

#[test]
fn the_readme_sample_of_an_adapter_program_is_what_a_run_prints() {
    let program = ["--", "tests/adapters/oneshot.py"];
    check_sample(
        "stops the run before any case with exit code 2",
        &[&["tool/"][..], &program].concat(),
        1,
    );
}

/// The exit code of the samples' run: every case passes (see the sample's counts).
const CONFORMANCE_EXIT: i32 = 0;

/// The conformance client of the samples, over the `tool/` cases.
const CONFORMANCE_RUN: [&str; 3] = [
    "tool/",
    "--conformance-client",
    "tests/adapters/conformance_client.py",
];

#[test]
fn the_readme_sample_of_a_conformance_client_is_what_a_run_prints() {
    let sample = readme_block_after("over the `tool/` cases, the run ends");
    check_doc_sample(sample, &CONFORMANCE_RUN, CONFORMANCE_EXIT);
}

#[test]
fn the_conformance_client_docs_sample_is_what_a_run_prints() {
    let sample = doc_block_after("docs/conformance-clients.md", "Over the `tool/` cases (in");
    check_doc_sample(sample, &CONFORMANCE_RUN, CONFORMANCE_EXIT);
}
