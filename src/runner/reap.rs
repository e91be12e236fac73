//! Ending the stdio server processes a case run leaves behind: a client that never closes its
//! server, or one it orphaned. Each process also exits on its own once the case's wire server
//! is gone; killing them here makes the end certain and immediate.

use crate::stdio::StdioCommand;
use crate::stdio::action::paths;
use crate::wire::Exchange;

/// Kills every stdio server process of `command`'s case run that the record shows alive: its
/// hold connection still open. Only a process whose command line names this run's session
/// file is killed, so a reused pid is left alone.
pub(crate) fn reap(exchanges: &[Exchange], command: &StdioCommand) {
    for pid in alive(exchanges) {
        if serves(pid, command.session_file()) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// The pids of the processes whose hold connection is still open.
pub(crate) fn alive(exchanges: &[Exchange]) -> Vec<i32> {
    exchanges
        .iter()
        .filter(|e| e.path.starts_with(paths::HOLD) && e.reply.client_closed_ms.is_none())
        .filter_map(|e| pid_of(&e.path))
        .collect()
}

/// The pid a hold request names (`/stdio/hold?pid=4711`).
pub(crate) fn pid_of(path: &str) -> Option<i32> {
    path.split_once("?pid=")?
        .1
        .parse()
        .ok()
        .filter(|&pid| pid > 0)
}

fn serves(pid: i32, session_file: &str) -> bool {
    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    cmdline
        .split(|&b| b == 0)
        .any(|arg| arg == session_file.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::pid_of;

    #[test]
    fn a_hold_path_names_a_positive_pid() {
        assert_eq!(pid_of("/stdio/hold?pid=4711"), Some(4711));
        assert_eq!(pid_of("/stdio/hold?pid=0"), None);
        assert_eq!(pid_of("/stdio/hold?pid=-1"), None);
        assert_eq!(pid_of("/stdio/hold"), None);
    }
}
