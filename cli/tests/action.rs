//! The composite GitHub Action (`action.yml` at the repository root) cannot run here, so this
//! checks what it would run: its install step is the README's `cargo install` line (with the
//! action's own checkout and a root of its own), every flag its run step passes exists in
//! `mcp-error-layers run --help`, every input it reads is declared, and the reports it uploads
//! are the folder it writes.

use std::process::Command;

fn root_file(name: &str) -> String {
    let path = format!("{}/../{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of each step's `run:`, a one-line value or a `|` block, in order.
fn run_steps(action: &str) -> Vec<String> {
    let lines: Vec<&str> = action.lines().collect();
    let mut steps = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(value) = line.trim_start().strip_prefix("run: ") else {
            continue;
        };
        if value != "|" {
            steps.push(value.to_owned());
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let block: Vec<&str> = lines[at + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
            .map(|l| l.trim())
            .collect();
        steps.push(block.join("\n"));
    }
    steps
}

#[test]
fn the_install_step_is_the_readmes_cargo_install_line() {
    let action = root_file("action.yml");
    let readme = root_file("README.md");
    let line = "cargo install --path cli --locked";
    assert!(readme.contains(line), "the README shows `{line}`");
    let steps = run_steps(&action);
    let install = steps.first().expect("action.yml has run steps");
    let as_in_readme = install
        .replace("\"$GITHUB_ACTION_PATH/cli\"", "cli")
        .replace(" --root \"$RUNNER_TEMP/mcp-error-layers\"", "");
    assert_eq!(as_in_readme, line, "the install step: {install}");
}

#[test]
fn the_run_step_passes_only_flags_run_has_and_inputs_the_action_declares() {
    let action = root_file("action.yml");
    let steps = run_steps(&action);
    let run = steps
        .iter()
        .find(|s| s.contains("mcp-error-layers\" run "))
        .expect("a step runs `mcp-error-layers run`");
    let help = Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let flags: Vec<&str> = run
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .collect();
    assert!(flags.contains(&"--out") && flags.contains(&"--conformance-client"));
    for flag in flags {
        assert!(
            help.contains(&format!("{flag} ")),
            "`run` has no flag {flag}"
        );
    }
    for used in action.split("${{ inputs.").skip(1) {
        let name = used.split_whitespace().next().unwrap_or_default();
        assert!(
            action.contains(&format!("\n  {name}:\n")),
            "action.yml reads the input `{name}`, which it does not declare"
        );
    }
    assert!(action.contains("uses: actions/upload-artifact@v4"));
    assert!(action.contains("path: ${{ inputs.out }}") && run.contains("--out \"$OUT\""));
}
