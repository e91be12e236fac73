//! The README's sample of `cargo run --release` (the main job) is what the program prints: the
//! lines it shows appear in a real run of the built-in cases, and its summary has today's case
//! count. Only the run's time (`in N ms`) may differ, and the lines elided with `...`.

use std::process::Command;

fn readme_block_after(marker: &str) -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let start = readme
        .find(marker)
        .expect("the README introduces the sample");
    let block = &readme[start..];
    let open = block.find("```text\n").expect("a text block follows") + "```text\n".len();
    let close = block[open..].find("```").expect("the block closes");
    block[open..open + close]
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `in 2965 ms` → `in N ms`: the one part of a run that changes from run to run.
fn without_time(line: &str) -> String {
    match line.rfind(" in ") {
        Some(at) if line.ends_with(" ms") => format!("{} in N ms", &line[..at]),
        _ => line.to_owned(),
    }
}

#[test]
fn the_readme_sample_of_the_main_job_is_what_a_run_prints() {
    let sample = readme_block_after("`cargo run --release` prints one line per case");
    let out = std::env::temp_dir().join(format!("mcp-error-layers-readme-{}", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .args(["run", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let printed: Vec<String> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(without_time)
        .collect();
    for line in sample.iter().filter(|l| *l != "...") {
        // The report lines name the folder; the README's run used the default `reports/`.
        let expected = without_time(line).replace("reports/", &format!("{}/", out.display()));
        assert!(
            printed.contains(&expected),
            "README.md's sample shows `{line}`, which the program does not print; it printed:\n{}",
            printed.join("\n")
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
