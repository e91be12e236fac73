//! No process outlives a run: every program the harness starts (an adapter, a conformance
//! client, an agent, a bridge) carries a mark of its own in its environment ([`GROUP_VAR`]),
//! and when the program's case ends every descendant of this process that carries the mark, and
//! everything below those, is killed, even one that left its process group with `setsid`.
//!
//! This process is the child subreaper (`PR_SET_CHILD_SUBREAPER`, set on the first start), so a
//! process whose parent died is re-parented here, not to the system's init: it stays a
//! descendant, and is found. Killed processes that became children of this process are reaped
//! by pid, one by one: never `waitpid(-1)`, which would take the exit status of a child that
//! tokio or `std` waits for.
//!
//! A pid is checked against the start time read with it before it is killed or reaped, so a pid
//! that was reused in between is left alone.
//!
//! [`sweep`] is for the end of a run: the command line and `main!` call it once the run is
//! over, for whatever is left.

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::waitpid;
use nix::unistd::Pid;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that marks every program the harness starts: `<run>-<n>`, where
/// `<run>` is random per process of the harness and `<n>` counts its starts. A program should
/// pass it on to its children (as it passes any variable it does not know).
pub const GROUP_VAR: &str = "MCP_ERROR_LAYERS_GROUP";

/// How long a killed process is waited for to be re-parented here and reaped: SIGKILL ends a
/// process at once unless it is stuck in the kernel.
const REAP_WITHIN: Duration = Duration::from_secs(5);
/// How many times a sweep looks again for what the last round's processes forked before they
/// were killed.
const ROUNDS: usize = 8;
/// The most of a `/proc/<pid>/environ` read (Linux's limit on the whole argument and
/// environment block is a quarter of the stack limit, 2 MiB by default).
const MAX_ENVIRON: u64 = 8 * 1024 * 1024;

/// What [`sweep`] kills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    /// Every descendant that a program this process started marked ([`GROUP_VAR`]), and
    /// everything below it: for a process that may have children of its own (a test binary's
    /// `main!`).
    Marked,
    /// Every descendant: for a process whose only children are the run's (the command line).
    Every,
}

/// Kills what `what` names among this process's descendants and reaps those that are (or
/// become, within 5 s) its children; how many were killed. For the end of a run.
pub fn sweep(what: Sweep) -> usize {
    let prefix = format!("{}-", run_id());
    let killed = match what {
        Sweep::Marked => kill_marked(|environ| has_mark(environ, &prefix, true)),
        Sweep::Every => kill_marked(|_| true),
    };
    let count = killed.len();
    reap(&killed, None);
    count
}

/// Every descendant of this process alive now (zombies aside), as `(pid, parent)`: for tests
/// and for the end of a run.
pub fn descendants() -> Vec<(u32, u32)> {
    let table = processes();
    below(&table, &[std::process::id()])
        .into_iter()
        .filter_map(|pid| table.get(&pid).map(|p| (pid, p.ppid)))
        .filter(|(pid, _)| table.get(pid).is_some_and(|p| !p.zombie))
        .collect()
}

/// This process's random run id, the first part of every mark it hands out.
fn run_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        // std's RandomState is seeded from the OS's random source.
        let random = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        format!("{random:016x}{:x}", std::process::id())
    })
}

/// The mark of one started program; dropping it does nothing ([`Mark::sweep`] kills).
#[derive(Debug, Clone)]
pub(crate) struct Mark(String);

impl Mark {
    /// A new mark, unique in this process and, by its random part, on the machine.
    pub(crate) fn new() -> Mark {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Mark(format!("{}-{n}", run_id()))
    }

    /// The value of [`GROUP_VAR`] for the program.
    pub(crate) fn value(&self) -> &str {
        &self.0
    }

    /// Kills every descendant of this process that carries the mark, and everything below
    /// them; the processes killed, for [`reap`].
    pub(crate) fn kill(&self) -> Vec<Proc> {
        kill_marked(|environ| has_mark(environ, &self.0, false))
    }
}

/// A process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Proc {
    pub(crate) pid: u32,
    ppid: u32,
    /// Its start time (clock ticks since boot): with the pid, its identity.
    start: u64,
    zombie: bool,
}

/// Whether an environ block (`KEY=value\0…`) holds `GROUP_VAR=mark` (or, with `prefix`, a
/// value that starts with `mark`).
fn has_mark(environ: &[u8], mark: &str, prefix: bool) -> bool {
    let wanted = format!("{GROUP_VAR}={mark}");
    environ.split(|b| *b == 0).any(|entry| match prefix {
        true => entry.starts_with(wanted.as_bytes()),
        false => entry == wanted.as_bytes(),
    })
}

/// Rounds of: find the descendants whose environ `marked` accepts, and all below them, and
/// SIGKILL those not yet killed; until a round finds none new. What was killed.
fn kill_marked(marked: impl Fn(&[u8]) -> bool) -> Vec<Proc> {
    let me = std::process::id();
    let mut killed: Vec<Proc> = Vec::new();
    for _ in 0..ROUNDS {
        let table = processes();
        let mine = below(&table, &[me]);
        let roots: Vec<u32> = mine
            .iter()
            .copied()
            .filter(|pid| environ(*pid).is_some_and(|env| marked(&env)))
            .collect();
        let doomed: Vec<Proc> = below(&table, &roots)
            .into_iter()
            .chain(roots)
            .filter_map(|pid| table.get(&pid).copied())
            .filter(|p| !p.zombie && !killed.iter().any(|k| (k.pid, k.start) == (p.pid, p.start)))
            .collect();
        if doomed.is_empty() {
            break;
        }
        for proc in doomed {
            if same(proc) {
                let _ = kill(pid_of(proc.pid), Signal::SIGKILL);
            }
            killed.push(proc);
        }
    }
    killed
}

/// Reaps each of `killed` once it is a child of this process (a zombie whose parent died is
/// re-parented here), waiting up to [`REAP_WITHIN`] in all; `skip` is a pid another owner
/// reaps (tokio's or `std`'s child).
pub(crate) fn reap(killed: &[Proc], skip: Option<u32>) {
    let me = std::process::id();
    let until = Instant::now() + REAP_WITHIN;
    let mut left: Vec<Proc> = killed
        .iter()
        .copied()
        .filter(|p| Some(p.pid) != skip)
        .collect();
    while !left.is_empty() {
        left.retain(|proc| match stat(proc.pid) {
            Some(now) if now.start == proc.start && now.ppid == me => {
                // Our child, so no one else can reap it: the pid is its until we do.
                loop {
                    match waitpid(pid_of(proc.pid), None) {
                        Err(Errno::EINTR) => continue,
                        _ => break false,
                    }
                }
            }
            Some(now) => now.start == proc.start, // not ours yet: its parent is dying
            None => false,                        // gone: reaped by its parent
        });
        if left.is_empty() || Instant::now() > until {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether `proc.pid` still names the process read (the same start time).
fn same(proc: Proc) -> bool {
    stat(proc.pid).is_some_and(|now| now.start == proc.start)
}

fn pid_of(pid: u32) -> Pid {
    // A pid is a positive `pid_t`; the kernel never hands out one above `i32::MAX`.
    Pid::from_raw(i32::try_from(pid).unwrap_or(i32::MAX))
}

/// Every process on the machine, by pid.
fn processes() -> HashMap<u32, Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

/// Every process below `roots` in `table` (their children, theirs, …), `roots` excluded.
fn below(table: &HashMap<u32, Proc>, roots: &[u32]) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for proc in table.values() {
        children.entry(proc.ppid).or_default().push(proc.pid);
    }
    let mut seen: HashSet<u32> = roots.iter().copied().collect();
    let mut found = Vec::new();
    let mut queue: Vec<u32> = roots.to_vec();
    while let Some(pid) = queue.pop() {
        for &child in children.get(&pid).map_or(&[][..], Vec::as_slice) {
            if seen.insert(child) {
                found.push(child);
                queue.push(child);
            }
        }
    }
    found
}

/// `/proc/<pid>/stat`: its parent, start time and whether it is a zombie.
fn stat(pid: u32) -> Option<Proc> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &text)
}

/// The fields after the command name (which may hold spaces and parentheses): state, ppid, …,
/// start time (field 22 of the whole line).
fn parse_stat(pid: u32, text: &str) -> Option<Proc> {
    let (_, rest) = text.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    Some(Proc {
        pid,
        zombie: matches!(*fields.first()?, "Z" | "X"),
        ppid: fields.get(1)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// `/proc/<pid>/environ`, bounded; `None` when it cannot be read (another user's, gone).
fn environ(pid: u32) -> Option<Vec<u8>> {
    let file = std::fs::File::open(format!("/proc/{pid}/environ")).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_ENVIRON).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_with_a_strange_name_is_read_after_its_last_parenthesis() {
        let line = "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \
                    98765 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0";
        let proc = parse_stat(4242, line).unwrap();
        assert_eq!((proc.ppid, proc.start, proc.zombie), (17, 98765, false));
        let zombie = line.replace(") S 17", ") Z 17");
        assert!(parse_stat(4242, &zombie).unwrap().zombie);
        assert_eq!(parse_stat(1, "garbage"), None);
    }

    #[test]
    fn a_mark_matches_itself_exactly_and_a_run_by_its_prefix() {
        let mark = Mark::new();
        let environ = format!("A=1\0{GROUP_VAR}={}\0B=2\0", mark.value()).into_bytes();
        assert!(has_mark(&environ, mark.value(), false));
        assert!(!has_mark(&environ, &format!("{}0", mark.value()), false));
        assert!(has_mark(&environ, &format!("{}-", run_id()), true));
        assert!(!has_mark(b"A=1\0", mark.value(), false));
        assert_ne!(Mark::new().value(), mark.value());
    }

    #[test]
    fn this_process_is_found_below_its_parent() {
        let table = processes();
        let me = std::process::id();
        let parent = table[&me].ppid;
        assert!(below(&table, &[parent]).contains(&me));
        assert!(!below(&table, &[me]).contains(&me));
    }
}
