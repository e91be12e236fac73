//! `run --agent` and `run --bridge` run someone else's program in a loopback-only network
//! namespace, and so does any run under `--network loopback` (docs/adapters.md, "Loopback only, proven"): a fake agent and a fake bridge report
//! the interfaces they see (`/proc/self/net/dev`, copied with shell builtins into a file beside
//! their adapter.toml), and an adapter program's `setsid` escapee is gone when `run` returns.

#[path = "support/bin.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{bin as waited, temp_dir};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether `unshare -rn` can make a loopback-only namespace here.
fn namespaces_work() -> bool {
    let works = Command::new("unshare")
        .args(["-rn", "sh", "-c", "ip link set lo up"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        eprintln!("skipped: `unshare -rn sh -c 'ip link set lo up'` fails on this machine");
    }
    works
}

/// The shell program that copies what it sees to `$NETDEV_OUT` (builtins only: it runs with
/// any PATH), then exits.
const REPORT: &str = "while IFS= read -r line; do printf '%s\\n' \"$line\"; done \
                      < /proc/self/net/dev > \"$NETDEV_OUT\"\n";

/// A folder with a fake agent's adapter.toml, its program and an (empty) node_modules.
fn agent_row(root: &Path) -> PathBuf {
    let folder = root.join("fake-agent");
    std::fs::create_dir_all(folder.join("node_modules")).unwrap();
    std::fs::write(folder.join("agent.sh"), REPORT).unwrap();
    std::fs::write(
        folder.join("adapter.toml"),
        r#"kind = "agent"
agent = "fake-agent"
version = "1"
install = "npm"
api = "chat"
command = ["/bin/sh", "{folder}/agent.sh"]
env = { NETDEV_OUT = "{folder}/netdev.txt" }
start_timeout_ms = 5000
"#,
    )
    .unwrap();
    folder
}

/// A folder with a fake stdio bridge's adapter.toml, its program and an (empty) node_modules.
fn bridge_row(root: &Path) -> PathBuf {
    let folder = root.join("fake-bridge");
    std::fs::create_dir_all(folder.join("node_modules")).unwrap();
    std::fs::write(folder.join("bridge.sh"), REPORT).unwrap();
    std::fs::write(
        folder.join("adapter.toml"),
        r#"kind = "bridge"
bridge = "fake-bridge"
version = "1"
install = "npm"
exposes = "stdio"
command = ["/bin/sh", "{install}/bridge.sh", "{upstream_url}"]
env = { NETDEV_OUT = "{install}/netdev.txt" }
timeout_ms = 1000
start_timeout_ms = 5000
"#,
    )
    .unwrap();
    folder
}

/// `run tool/success --FLAG FOLDER` with `extra`, its reports in `root/out`.
fn run_row(flag: &str, folder: &Path, extra: &[&str], path: Option<&Path>) -> Output {
    let out = folder.parent().unwrap().join("out");
    let mut command = bin();
    command
        .args(["run", "tool/success", "-j", "1", flag])
        .arg(folder)
        .arg("--out")
        .arg(&out)
        .args(extra);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    command.output().unwrap()
}

/// The interfaces the fake program saw.
fn seen(folder: &Path, output: &Output) -> Vec<String> {
    let table = std::fs::read_to_string(folder.join("netdev.txt")).unwrap_or_else(|e| {
        panic!(
            "the program wrote no netdev.txt ({e}): {}{}",
            text(&output.stdout),
            text(&output.stderr)
        )
    });
    mcp_error_layers::adapter::process::loopback::interfaces(&table)
}

#[test]
fn run_agent_runs_the_agent_where_only_loopback_is_seen() {
    if !namespaces_work() {
        return;
    }
    let root = temp_dir("isolation-agent-lo");
    let folder = agent_row(root.as_path());
    let output = run_row("--agent", &folder, &[], None);
    assert_eq!(seen(&folder, &output), ["lo"], "{}", text(&output.stderr));
    assert!(
        !text(&output.stderr).contains("warning"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn run_bridge_runs_the_bridge_where_only_loopback_is_seen() {
    if !namespaces_work() {
        return;
    }
    let root = temp_dir("isolation-bridge-lo");
    let folder = bridge_row(root.as_path());
    let output = run_row("--bridge", &folder, &[], None);
    assert_eq!(seen(&folder, &output), ["lo"], "{}", text(&output.stderr));
}

#[test]
fn network_host_gives_the_agent_the_machines_network() {
    let root = temp_dir("isolation-agent-host");
    let folder = agent_row(root.as_path());
    let output = run_row("--agent", &folder, &["--network", "host"], None);
    let machine = std::fs::read_to_string("/proc/self/net/dev").unwrap();
    let machine = mcp_error_layers::adapter::process::loopback::interfaces(&machine);
    assert_eq!(seen(&folder, &output), machine, "{}", text(&output.stderr));
}

#[test]
fn without_a_namespace_the_first_line_says_so_and_loopback_required_refuses() {
    let root = temp_dir("isolation-agent-no-ns");
    let folder = agent_row(root.as_path());
    // A PATH without `unshare`: no namespace can be made.
    let empty = root.as_path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let output = run_row("--agent", &folder, &[], Some(&empty));
    let stderr = text(&output.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(
            "warning: no loopback-only network namespace here, so the agent or \
                           bridge runs with the machine's network"
        ),
        "{stderr}"
    );
    assert!(
        folder.join("netdev.txt").is_file(),
        "it ran anyway: {stderr}"
    );

    let output = run_row("--agent", &folder, &["--network", "loopback"], Some(&empty));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: --network loopback: no loopback-only network namespace here"),
        "{stderr}"
    );
}

/// An adapter program (`sh -c SCRIPT`) that copies what it sees into `table`, then answers
/// without calling (the case fails, which is not what these tests look at).
fn adapter_script(table: &Path) -> String {
    format!(
        "NETDEV_OUT={}\n{REPORT}echo '{{\"outcome\":\"TOOL_SUCCESS\",\"status\":200,\"code\":null}}'\n",
        table.display()
    )
}

#[test]
fn network_loopback_runs_an_adapter_program_where_only_loopback_is_seen() {
    if !namespaces_work() {
        return;
    }
    let root = temp_dir("isolation-adapter-lo");
    let folder = root.as_path().to_path_buf();
    let table = folder.join("netdev.txt");
    let script = adapter_script(&table);
    let out = folder.join("out");
    let output = bin()
        .args(["run", "tool/success", "--network", "loopback", "--out"])
        .arg(&out)
        .args(["--", "sh", "-c", &script, "adapter"])
        .output()
        .unwrap();
    // The run happened (the case fails: the program answers without calling), inside.
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(seen(&folder, &output), ["lo"], "{}", text(&output.stderr));
}

#[test]
fn an_adapter_program_keeps_the_machines_network_unless_asked() {
    let root = temp_dir("isolation-adapter-host");
    let folder = root.as_path().to_path_buf();
    let table = folder.join("netdev.txt");
    let script = adapter_script(&table);
    let output = bin()
        .args(["run", "tool/success", "--out"])
        .arg(folder.join("out"))
        .args(["--", "sh", "-c", &script, "adapter"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let host = std::fs::read_to_string("/proc/self/net/dev").unwrap();
    assert_eq!(
        seen(&folder, &output),
        mcp_error_layers::adapter::process::loopback::interfaces(&host)
    );
    assert!(
        !text(&output.stderr).contains("warning"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn an_unknown_network_is_a_usage_error_naming_the_choices() {
    let output = waited(&["run", "--network", "vpn"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        ["auto", "loopback", "host"]
            .iter()
            .all(|c| stderr.contains(c)),
        "{stderr}"
    );
}

#[test]
fn a_bridge_folder_given_to_agent_names_the_flag_that_runs_it() {
    let root = temp_dir("isolation-bridge-as-agent");
    let folder = bridge_row(root.as_path());
    let output = bin()
        .args(["run", "--agent"])
        .arg(&folder)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("run it with `run --bridge FOLDER`"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn a_setsid_escapee_of_an_adapter_program_is_gone_when_run_returns() {
    let root = temp_dir("isolation-escapee");
    let file = root.as_path().join("escapee.pid");
    let file = file.display();
    let script = format!(
        "setsid sh -c 'echo $$ > {file}.tmp && mv {file}.tmp {file}; exec sleep 300' \
         </dev/null >/dev/null 2>&1 &\n\
         while [ ! -s {file} ]; do sleep 0.01; done\n\
         echo '{{\"outcome\":\"TOOL_SUCCESS\",\"status\":200,\"code\":null,\"detail\":\"x\"}}'\n"
    );
    let out = root.as_path().join("out");
    let output = bin()
        .args(["run", "tool/success", "--out"])
        .arg(&out)
        .args(["--", "sh", "-c", &script, "escaping"])
        .output()
        .unwrap();
    let pid = std::fs::read_to_string(root.as_path().join("escapee.pid"))
        .unwrap_or_else(|e| panic!("no pid ({e}): {}", text(&output.stderr)));
    let pid = pid.trim();
    // `run` has returned: the escapee, re-parented to it, was killed and reaped before it
    // exited (a zombie of an exited parent would have gone to init, still listed here).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while Path::new(&format!("/proc/{pid}")).exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the escapee {pid} outlived the run"
    );
}
