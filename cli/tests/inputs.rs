//! The command line's readers given `/dev/zero`, a FIFO nobody writes, or an endless standard
//! input: each ends (within 10 s, bounded here so that a regression fails instead of hanging)
//! with exit 2 and an error naming the file type or the bound (docs/inputs.md).

#[allow(dead_code)] // its `bin` waits without a bound; these tests bound every wait
#[path = "support/bin.rs"]
mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use support::temp_dir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
}

/// The child's output, or a failed test (the child killed) if it has not ended within 10 s.
fn within_10s(mut child: Child) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the command has not ended within 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `mcp-error-layers ARGS...` with stdin closed, ended within 10 s.
fn run(args: &[&str]) -> Output {
    let child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    within_10s(child)
}

/// A FIFO named `name` in `dir`, with no writer ever.
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    let made = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
    path
}

/// Exit 2, and stderr says `what` of `path`.
fn fails_naming(output: &Output, path: &str, what: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("{path}: {what}")), "{stderr}");
}

const DEVICE: &str = "is a character device, not a regular file";
const FIFO: &str = "is a FIFO, not a regular file";

#[test]
fn classify_refuses_dev_zero_and_a_fifo_by_type() {
    let dir = temp_dir("inputs-classify");
    fails_naming(&run(&["classify", "/dev/zero"]), "/dev/zero", DEVICE);
    let fifo = fifo(&dir, "capture");
    let shown = fifo.to_str().unwrap();
    let output = run(&["classify", shown]);
    fails_naming(&output, shown, FIFO);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("pipe it on standard input"),
        "{output:?}"
    );
}

/// `classify < /dev/zero` and `classify -` on an endless pipe end with the bound's error.
#[test]
fn classify_on_an_endless_stdin_ends_with_the_bound() {
    let bound = "more than 67108864 bytes (64 MiB), the most a captured response may hold";
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let child = bin()
        .arg("classify")
        .stdin(zero)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    fails_naming(&within_10s(child), "standard input", bound);

    let mut child = bin()
        .args(["classify", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        while stdin.write_all(&chunk).is_ok() {}
    });
    let output = within_10s(child);
    feeder.join().unwrap();
    fails_naming(&output, "standard input", bound);
}

#[test]
fn report_and_diff_refuse_dev_zero_and_a_fifo_by_type() {
    let dir = temp_dir("inputs-reports");
    let fifo = fifo(&dir, "report.json");
    let html = dir.join("out.html");
    let html = html.to_str().unwrap();
    for (path, what) in [("/dev/zero", DEVICE), (fifo.to_str().unwrap(), FIFO)] {
        let output = run(&["report", "--html", html, path]);
        fails_naming(&output, &format!("cannot read report {path}"), what);
        let output = run(&["diff", path, path]);
        fails_naming(&output, &format!("cannot read report {path}"), what);
    }
}

/// `run --agent` on a folder whose `adapter.toml` is a FIFO or a link to `/dev/zero`.
#[test]
fn run_agent_refuses_an_adapter_toml_that_is_a_fifo_or_dev_zero() {
    let dir = temp_dir("inputs-agent");
    let fifo_folder = dir.join("fifo");
    std::fs::create_dir_all(&fifo_folder).unwrap();
    fifo(&fifo_folder, "adapter.toml");
    let zero_folder = dir.join("zero");
    std::fs::create_dir_all(&zero_folder).unwrap();
    std::os::unix::fs::symlink("/dev/zero", zero_folder.join("adapter.toml")).unwrap();
    for (folder, what) in [(fifo_folder, FIFO), (zero_folder, DEVICE)] {
        let output = run(&["run", "tool/success", "--agent", folder.to_str().unwrap()]);
        let toml = folder.join("adapter.toml");
        fails_naming(&output, toml.to_str().unwrap(), what);
    }
}

/// A link to `/dev/zero` and a FIFO under `--cases` fail their own cases, naming what they are;
/// the sound case beside them runs and passes.
#[test]
fn run_cases_with_a_link_to_dev_zero_and_a_fifo_runs_the_other_cases() {
    let dir = temp_dir("inputs-cases");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    std::os::unix::fs::symlink("/dev/zero", cases.join("zero.toml")).unwrap();
    fifo(&cases, "fifo.toml");
    let sound = include_str!("../../cases/tool/success.toml");
    std::fs::write(cases.join("sound.toml"), sound).unwrap();
    let output = run(&[
        "run",
        "--no-builtin",
        "--cases",
        cases.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("3 cases: 1 passed"), "{stdout}");
    assert!(
        stdout.contains("fifo.toml: is a FIFO, not a regular file"),
        "{stdout}"
    );
    assert!(
        stdout.contains("zero.toml: is a character device, not a regular file"),
        "{stdout}"
    );
}

/// `serve FILE.toml` of a FIFO says what it is, and does not wait on it.
#[test]
fn serve_refuses_a_fifo_case_file() {
    let dir = temp_dir("inputs-serve");
    let fifo = fifo(&dir, "case.toml");
    let output = run(&["serve", fifo.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(FIFO), "{stderr}");
}
