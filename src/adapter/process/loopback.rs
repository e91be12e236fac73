//! A loopback-only network namespace for the programs of others that rows start (agents,
//! bridges): a connection that would leave the machine has no route there and fails at once,
//! visibly, instead of being trusted (docs/adapters.md, "Loopback only, proven").
//!
//! A process is not moved into a namespace: it is re-run inside one. [`command`] is the command
//! that runs a program (this process again, as `cargo test --test sdk` runs an agent row and the
//! command line runs `run --agent` and `run --bridge`) under `unshare -rn` with `lo` up and
//! [`INNER_VAR`] set; the inner run calls [`check`] before its first case, and refuses to go on
//! if it sees any interface but `lo`. [`available`] tells whether this machine can make one
//! (unprivileged user namespaces and `ip` are needed).

use std::ffi::OsStr;
use std::io::Read;
use std::process::Command;
use std::sync::OnceLock;

/// Set (to `1`) in a process that [`command`] started inside a loopback-only namespace: it
/// checks, with [`check`], that it sees no interface but `lo` before its first case.
pub const INNER_VAR: &str = "MCP_ERROR_LAYERS_LOOPBACK_ONLY";

/// The shell line `unshare` runs: bring `lo` up, then become the program.
const UP_THEN_EXEC: &str = "ip link set lo up && exec \"$@\"";

/// The most of `/proc/self/net/dev` read: a table of a few lines per interface.
const MAX_TABLE: u64 = 1024 * 1024;

/// `Ok` when this machine can make a loopback-only network namespace (`unshare -rn sh -c 'ip
/// link set lo up'` succeeds), else why not, with the fix. Tried once per process.
pub fn available() -> Result<(), String> {
    static AVAILABLE: OnceLock<Result<(), String>> = OnceLock::new();
    AVAILABLE.get_or_init(try_one).clone()
}

fn try_one() -> Result<(), String> {
    let tried = Command::new("unshare")
        .args(["-rn", "sh", "-c", "ip link set lo up"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .output();
    let why = match tried {
        Ok(output) if output.status.success() => return Ok(()),
        Ok(output) => {
            let said = String::from_utf8_lossy(&output.stderr);
            let said = said.lines().next().unwrap_or("").trim().to_owned();
            format!("it {} ({said})", output.status)
        }
        Err(e) => format!("it cannot start: {e}"),
    };
    Err(format!(
        "`unshare -rn sh -c 'ip link set lo up'` failed: {why}; a loopback-only namespace needs \
         util-linux's `unshare`, iproute2's `ip` and unprivileged user namespaces \
         (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces above 0)"
    ))
}

/// The command that runs `program` inside a new loopback-only network namespace, with
/// [`INNER_VAR`] set: `unshare -rn sh -c 'ip link set lo up && exec "$@"' sh PROGRAM`. Its
/// arguments, environment and streams are the caller's to add.
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut unshare = Command::new("unshare");
    unshare
        .args(["-rn", "sh", "-c", UP_THEN_EXEC, "sh"])
        .arg(program)
        .env(INNER_VAR, "1");
    unshare
}

/// Whether this process was started by [`command`] (it has [`INNER_VAR`]).
pub fn is_inner() -> bool {
    std::env::var_os(INNER_VAR).is_some_and(|v| !v.is_empty())
}

/// `Ok` when this process sees no network interface but `lo`, else the interfaces it sees.
/// `/proc/self/net/dev` is this process's namespace's table (`/sys/class/net` is the one `/sys`
/// was mounted in).
pub fn check() -> Result<(), String> {
    let path = "/proc/self/net/dev";
    let mut table = String::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_TABLE).read_to_string(&mut table))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    let names = interfaces(&table);
    match names.iter().all(|name| name == "lo") {
        true => Ok(()),
        false => Err(format!(
            "{path} lists the interfaces {names:?}: the network namespace is not loopback-only"
        )),
    }
}

/// The interface names of a `/proc/net/dev` table (two header lines, then `name: counters`).
pub fn interfaces(table: &str) -> Vec<String> {
    table
        .lines()
        .skip(2)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, _)| name.trim().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 1296      16    0    0    0     0          0         0     1296      16    0    0    0     0       0          0
  eth0: 9137351   6552    0    0    0     0          0         0   367811    4567    0    0    0     0       0          0
";

    #[test]
    fn the_interfaces_of_a_table_are_its_names() {
        assert_eq!(interfaces(HOST), ["lo", "eth0"]);
        let only_lo: String = HOST.lines().take(3).map(|l| format!("{l}\n")).collect();
        assert_eq!(interfaces(&only_lo), ["lo"]);
        assert!(interfaces("").is_empty());
    }

    #[test]
    fn the_command_brings_lo_up_then_runs_the_program_with_the_inner_mark() {
        let command = command("/bin/prog");
        assert_eq!(command.get_program(), "unshare");
        let args: Vec<_> = command.get_args().collect();
        assert_eq!(args, ["-rn", "sh", "-c", UP_THEN_EXEC, "sh", "/bin/prog"]);
        let env: Vec<_> = command.get_envs().collect();
        assert_eq!(env, [(OsStr::new(INNER_VAR), Some(OsStr::new("1")))]);
    }

    #[test]
    fn inside_a_namespace_only_lo_is_seen() {
        if let Err(why) = available() {
            eprintln!("skipped: no loopback-only namespace here: {why}");
            return;
        }
        let output = command("cat").arg("/proc/self/net/dev").output().unwrap();
        assert!(output.status.success(), "{output:?}");
        let table = String::from_utf8_lossy(&output.stdout);
        assert_eq!(interfaces(&table), ["lo"]);
    }
}
