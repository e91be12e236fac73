//! An adapter program in a process group of its own: started without a shell, watched by a
//! thread that learns of its exit, and killed as a whole group when dropped.
//!
//! Ordering is what makes the group kill safe. The watcher learns of the leader's exit without
//! reaping it (`waitid` with `WNOWAIT`), so the leader stays a zombie and its pid, which is
//! the group id, cannot be reused by an unrelated process. Only after the [`ProcessGroup`] is
//! dropped (the group has been sent SIGKILL) does the watcher reap: the leader and any
//! grandchildren that were re-parented to this process.
//!
//! A descendant that left the group (`setsid`, `setpgid`) is out of reach of the group kill, so
//! each program carries a mark in its environment ([`reaper::GROUP_VAR`]): the drop, after the
//! group kill, also kills every descendant of this process that carries the mark and everything
//! below those (this process is the child subreaper, so one whose parent died is re-parented
//! here and still found). The watcher reaps them after the group, each by pid and only once it
//! is a child of this process, checked by its start time (never `waitpid(-1)`).

use crate::adapter::reaper::{self, Mark, Proc};
use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::Pid;
use std::fmt;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::mpsc;
use tokio::sync::watch;

/// How an adapter process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exit {
    /// It exited with this status.
    Code(i32),
    /// A signal ended it; `true` when it dumped core.
    Signal(Signal, bool),
    /// It ended, but its status could not be read.
    Unknown,
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exit::Code(code) => write!(f, "exited with status {code}"),
            Exit::Signal(signal, false) => write!(f, "was killed by signal {signal}"),
            Exit::Signal(signal, true) => {
                write!(f, "was killed by signal {signal} (core dumped)")
            }
            Exit::Unknown => f.write_str("ended (its exit status could not be read)"),
        }
    }
}

/// A running adapter program, the leader of its own process group. Dropping it kills the
/// whole group with SIGKILL.
#[derive(Debug)]
pub(super) struct ProcessGroup {
    pid: Pid,
    exit: ExitWatch,
    /// The mark in its environment and its descendants'.
    mark: Mark,
    /// Tells the watcher it may reap, with the marked processes the drop killed (or, dropped
    /// without a word, that there are none).
    release: mpsc::Sender<Vec<Proc>>,
}

impl ProcessGroup {
    /// Starts `command` as the leader of a new process group, marked ([`reaper::GROUP_VAR`]),
    /// with a watcher thread. The returned `Child` is for its pipes only: the watcher reaps
    /// it, so never wait on it.
    pub(super) fn spawn(command: &mut Command) -> io::Result<(ProcessGroup, Child)> {
        adopt_orphans();
        let mark = Mark::new();
        // After whatever the caller set (an `env_clear` included): the mark always goes in.
        command.env(reaper::GROUP_VAR, mark.value());
        let child = command.process_group(0).spawn()?;
        // A pid is a positive `pid_t`; the kernel never hands out one above `i32::MAX`.
        let pid = Pid::from_raw(i32::try_from(child.id()).map_err(std::io::Error::other)?);
        let (exit_tx, exit) = watch::channel(None);
        let (release, released) = mpsc::channel();
        // A std thread, not a runtime's blocking pool: a persistent adapter outlives the
        // runtime of the case that started it.
        let watcher = std::thread::Builder::new()
            .name(format!("adapter-{pid}"))
            .spawn(move || watch_group(pid, exit_tx, released));
        if let Err(error) = watcher {
            let _ = killpg(pid, Signal::SIGKILL);
            let killed = mark.kill();
            reap_group(pid);
            reaper::reap(&killed, None);
            return Err(error);
        }
        let group = ProcessGroup {
            pid,
            exit: ExitWatch(exit),
            mark,
            release,
        };
        Ok((group, child))
    }

    /// The leader's process id, which is also the group id.
    pub(super) fn pid(&self) -> u32 {
        self.pid.as_raw().unsigned_abs()
    }

    /// How the leader ended, if it has.
    pub(super) fn exit(&self) -> Option<Exit> {
        *self.exit.0.borrow()
    }

    /// Waits until the leader ends. Cancel-safe.
    pub(super) async fn wait(&mut self) -> Exit {
        self.exit.wait().await
    }

    /// A handle that learns of the leader's end without owning the group (for a thread that
    /// reads the pipes of a group that others own).
    pub(super) fn exit_watch(&self) -> ExitWatch {
        self.exit.clone()
    }
}

/// Learns how a group's leader ended; usable from any runtime or thread.
#[derive(Debug, Clone)]
pub(super) struct ExitWatch(watch::Receiver<Option<Exit>>);

impl ExitWatch {
    /// Waits until the leader ends. Cancel-safe.
    pub(super) async fn wait(&mut self) -> Exit {
        loop {
            if let Some(exit) = *self.0.borrow_and_update() {
                return exit;
            }
            if self.0.changed().await.is_err() {
                return Exit::Unknown; // the watcher is gone: it cannot tell any more
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        // The leader is not reaped before this (see the module comment), so the group id
        // still names this group. ESRCH (all gone already) is fine.
        let _ = killpg(self.pid, Signal::SIGKILL);
        // Then what left the group: the leader, still unreaped, is among the marked, and so
        // are escapees below it or re-parented here.
        let killed = self.mark.kill();
        let _ = self.release.send(killed);
    }
}

/// The watcher thread: learn of the exit, publish it, wait for the release, kill and reap the
/// group, then the marked processes the drop killed outside it.
fn watch_group(
    pid: Pid,
    exit_tx: watch::Sender<Option<Exit>>,
    released: mpsc::Receiver<Vec<Proc>>,
) {
    let exit = wait_for_exit(pid);
    let _ = exit_tx.send(Some(exit));
    let killed = released.recv().unwrap_or_default(); // an error: dropped without a word
    let _ = killpg(pid, Signal::SIGKILL);
    reap_group(pid);
    // After the group: a pid reaped there and reused is told apart by its start time.
    reaper::reap(&killed, None);
}

/// Waits for the leader to end without reaping it, where the platform can.
#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn wait_for_exit(pid: Pid) -> Exit {
    use nix::sys::wait::{Id, WaitPidFlag, waitid};
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT;
    loop {
        match waitid(Id::Pid(pid), flags) {
            Err(Errno::EINTR) => continue,
            Ok(status) => return exit_of(status),
            Err(_) => return Exit::Unknown,
        }
    }
}

/// Waits for the leader to end. Without `waitid` this reaps it: the group id could in theory
/// be reused between this and the final group kill.
#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
fn wait_for_exit(pid: Pid) -> Exit {
    loop {
        match waitpid(pid, None) {
            Err(Errno::EINTR) => continue,
            Ok(status @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => {
                return exit_of(status);
            }
            Ok(_) => continue,
            Err(_) => return Exit::Unknown,
        }
    }
}

fn exit_of(status: WaitStatus) -> Exit {
    match status {
        WaitStatus::Exited(_, code) => Exit::Code(code),
        WaitStatus::Signaled(_, signal, core) => Exit::Signal(signal, core),
        _ => Exit::Unknown,
    }
}

/// Reaps every child of this process in the group: the leader, and grandchildren that were
/// re-parented here (see [`adopt_orphans`]). All were sent SIGKILL, so this ends promptly.
fn reap_group(pgid: Pid) {
    let group = Pid::from_raw(-pgid.as_raw());
    loop {
        match waitpid(group, None) {
            Ok(_) | Err(Errno::EINTR) => continue,
            Err(_) => return, // ECHILD: none left
        }
    }
}

/// Makes this process the reaper of orphaned descendants (Linux), so that a grandchild killed
/// with its group is reaped by the watcher instead of staying a zombie when the system's init
/// does not reap (as in some containers). Process-wide, set once, on the first spawn.
fn adopt_orphans() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let _ = nix::sys::prctl::set_child_subreaper(true);
        });
    }
}
