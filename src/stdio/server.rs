//! The stdio server process: reads lines on stdin, relays each to its wire server before acting,
//! and carries out the actions it gets back.
//!
//! Three threads: the main one reads stdin and relays; a writer carries out actions in order
//! (so a stalled or slow write does not stop stdin from being read and recorded, up to
//! `MAX_PENDING_OUTPUT`); a watcher holds a connection to the wire server open and exits the
//! process when the wire server goes (the case is over), so that no case leaves a server
//! behind, whoever started it.
//!
//! The output waiting for the writer is bounded: a client that sends calls and never reads
//! stdout fills the pipe, the writer blocks, and once `MAX_PENDING_OUTPUT` bytes wait the
//! reader stops reading stdin (back-pressure), as a real server whose writes block would.

use super::action::{Action, Event, paths};
use super::session::Session;
use crate::case::Signal;
use std::io::{BufRead, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Condvar, Mutex, PoisonError, mpsc};
use std::time::Duration;

/// The longest stdin line relayed whole: 16 MiB (the wire server reads no larger body). A longer
/// line is relayed cut to this, and the rest of it is read and dropped.
pub const MAX_READ_LINE: usize = 16 * 1024 * 1024;

/// The most an answer of the wire server may hold: a 16 MiB line and the JSON around it.
const MAX_ANSWER_BYTES: u64 = 48 * 1024 * 1024;

/// The most output the server holds for its writer: the answers read from the wire server and
/// not yet carried out, the one being carried out included, 16 MiB (each counted by
/// [`weight`]). Past it the reader waits for the writer before it reads the next stdin line.
/// An answer larger than the bound is taken alone (the writer has nothing else pending), so one
/// answer of the largest a case writes (a 16 MiB line) is always served. With the answer the
/// reader holds while it waits, this keeps a server whose client never reads under the memory
/// bound of docs/stdio.md ("Bounds").
const MAX_PENDING_OUTPUT: usize = 16 * 1024 * 1024;

/// What an action costs in [`weight`] besides the bytes it writes: its place in the queue.
const ACTION_WEIGHT: usize = 64;

/// How long one relay to the wire server may take: it is on loopback and answers at once.
const RELAY_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `stdio-server --session FILE` when these are the process's arguments: the command
/// line and every `main!` test binary call this first, so that the runner can name its own
/// executable as the stdio server. `None` for any other arguments.
pub fn intercept() -> Option<ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [command, flag, file] if command == "stdio-server" && flag == "--session" => {
            Some(serve(Path::new(file)))
        }
        [command, flag] if command == "stdio-server" && flag == "--probe" => {
            println!("{}", super::session::PROBE_REPLY);
            Some(ExitCode::SUCCESS)
        }
        [command, ..] if command == "stdio-server" => {
            eprintln!("usage: stdio-server --session FILE (docs/stdio.md)");
            Some(ExitCode::from(2))
        }
        _ => None,
    }
}

/// Serves the case run of the session file at `path` until stdin closes, the case's actions end
/// the process, or the wire server goes.
pub fn serve(path: &Path) -> ExitCode {
    let session = match Session::read(path) {
        Ok(session) => session,
        Err(why) => {
            eprintln!("mcp-error-layers stdio-server: {why}");
            return ExitCode::from(2);
        }
    };
    let wire = session.wire;
    if let Err(e) = hold(wire) {
        eprintln!("mcp-error-layers stdio-server: the case at {wire} is over ({e})");
        return ExitCode::from(1);
    }
    let (send, receive) = mpsc::channel::<Vec<Action>>();
    let pending = Arc::new(Pending::default());
    let freed = Arc::clone(&pending);
    std::thread::spawn(move || carry_out(wire, &receive, &freed));
    relay_stdin(wire, &send, &pending);
    report(wire, &Event::StdinClosed);
    ExitCode::SUCCESS
}

/// Reads stdin line by line and relays each; returns at end-of-file. Each answer waits for room
/// in `pending` before it is queued, and the next line is read only then.
fn relay_stdin(wire: SocketAddr, actions: &mpsc::Sender<Vec<Action>>, pending: &Pending) {
    let mut stdin = std::io::stdin().lock();
    while let Some(line) = read_line(&mut stdin) {
        let answer = match post(wire, paths::LINE, &line) {
            Ok(answer) => answer,
            Err(_) => std::process::exit(0), // the case is over
        };
        let steps: Vec<Action> = serde_json::from_slice(&answer).unwrap_or_default();
        drop(answer);
        pending.take(weight(&steps));
        if actions.send(steps).is_err() {
            return;
        }
    }
}

/// What a list of actions holds while it waits: the bytes it writes and [`ACTION_WEIGHT`] per
/// action (so that even empty answers cannot pile up without bound).
fn weight(steps: &[Action]) -> usize {
    let written = |action: &Action| match action {
        Action::Write(text) => text.len(),
        _ => 0,
    };
    steps
        .iter()
        .map(|action| written(action).saturating_add(ACTION_WEIGHT))
        .fold(ACTION_WEIGHT, usize::saturating_add)
}

/// The output queued for the writer, in [`weight`]s, bounded by [`MAX_PENDING_OUTPUT`]: the
/// reader takes room before it queues an answer, the writer gives it back once the answer is
/// carried out.
#[derive(Debug, Default)]
struct Pending {
    held: Mutex<usize>,
    freed: Condvar,
}

impl Pending {
    /// Waits until `weight` more fits under [`MAX_PENDING_OUTPUT`] (or nothing is pending: an
    /// answer larger than the bound goes alone), then holds it.
    fn take(&self, weight: usize) {
        let held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let fits =
            |held: &mut usize| *held == 0 || held.saturating_add(weight) <= MAX_PENDING_OUTPUT;
        let mut held = self
            .freed
            .wait_while(held, |held| !fits(held))
            .unwrap_or_else(PoisonError::into_inner);
        *held = held.saturating_add(weight);
    }

    /// Gives back `weight` taken before.
    fn give_back(&self, weight: usize) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        *held = held.saturating_sub(weight);
        self.freed.notify_all();
    }
}

/// One line without its `\n`, at most [`MAX_READ_LINE`] bytes of it; `None` at end-of-file.
fn read_line(input: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let bound = u64::try_from(MAX_READ_LINE).unwrap_or(u64::MAX);
    let read = input
        .by_ref()
        .take(bound)
        .read_until(b'\n', &mut line)
        .ok()?;
    if read == 0 {
        return None;
    }
    if line.last() == Some(&b'\n') {
        line.pop();
    } else if line.len() >= MAX_READ_LINE {
        skip_rest_of_line(input);
    }
    Some(line)
}

fn skip_rest_of_line(input: &mut impl BufRead) {
    loop {
        let Ok(buffer) = input.fill_buf() else { return };
        if buffer.is_empty() {
            return;
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => return input.consume(at + 1),
            None => {
                let n = buffer.len();
                input.consume(n);
            }
        }
    }
}

/// Carries out each list of actions in the order it came, giving its room in `pending` back
/// once it is done.
fn carry_out(wire: SocketAddr, actions: &mpsc::Receiver<Vec<Action>>, pending: &Pending) {
    while let Ok(steps) = actions.recv() {
        let weight = weight(&steps);
        for step in steps {
            act(wire, step);
        }
        pending.give_back(weight);
    }
}

fn act(wire: SocketAddr, action: Action) {
    match action {
        Action::Write(text) => write_stdout(text.as_bytes()),
        Action::SleepMs(ms) => std::thread::sleep(Duration::from_millis(ms)),
        Action::Stderr(bytes) => {
            flood_stderr(bytes);
            report(wire, &Event::StderrWritten { bytes });
        }
        Action::Exit(code) => {
            report(wire, &Event::Exit { code });
            std::process::exit(code);
        }
        Action::Kill(signal) => {
            report(wire, &Event::Kill { signal });
            kill_self(signal);
        }
        Action::CloseStdout => {
            // Reported first, as an exit is: a client that sees the end of stdout may kill this
            // process at once, before a report made after the close would reach the record.
            report(wire, &Event::StdoutClosed);
            close_stdout();
        }
    }
}

/// Writes straight to file descriptor 1, bypassing std's line buffering, so that a piece is one
/// write as the case says (two messages in one write stay one). A client that closed its end
/// (EPIPE: std ignores SIGPIPE) gets nothing more.
fn write_stdout(mut bytes: &[u8]) {
    let stdout = std::io::stdout();
    while !bytes.is_empty() {
        match nix::unistd::write(&stdout, bytes) {
            Ok(0) | Err(nix::errno::Errno::EPIPE) => return,
            Ok(n) => bytes = &bytes[n..],
            Err(nix::errno::Errno::EINTR) => {}
            Err(_) => return,
        }
    }
}

/// The line a stderr flood repeats: 80 bytes of what a chatty server logs.
const NOISE: &[u8; 80] =
    b"stdio-server: warning: a chatty server's log line, written to fill the pipe....\n";

fn flood_stderr(bytes: u64) {
    let mut stderr = std::io::stderr().lock();
    let mut left = bytes;
    while left > 0 {
        let n = usize::try_from(left.min(NOISE.len() as u64)).unwrap_or(NOISE.len());
        if stderr.write_all(&NOISE[..n]).is_err() {
            return;
        }
        left -= n as u64;
    }
}

fn kill_self(signal: Signal) {
    use nix::sys::signal::{Signal as Sig, raise};
    match signal {
        Signal::Abrt => std::process::abort(),
        Signal::Kill => drop(raise(Sig::SIGKILL)),
        Signal::Term => drop(raise(Sig::SIGTERM)),
    }
    std::process::exit(137); // not reached: neither signal is handled
}

/// Replaces stdout with /dev/null: the pipe's write end closes, the client reads end-of-file.
fn close_stdout() {
    if let Ok(null) = std::fs::File::open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(&null);
    }
}

/// Reports `event`; a wire server that is gone ends the process (the case is over).
fn report(wire: SocketAddr, event: &Event) {
    let body = serde_json::to_vec(event).unwrap_or_default();
    if post(wire, paths::EVENT, &body).is_err() {
        std::process::exit(0);
    }
}

/// Opens the hold connection (the wire server records the start and, when it closes, the end)
/// and watches it on a thread: when the wire server closes it, the case is over: exit.
fn hold(wire: SocketAddr) -> std::io::Result<()> {
    let mut stream = TcpStream::connect_timeout(&wire, RELAY_TIMEOUT)?;
    let pid = std::process::id();
    let head = format!(
        "GET {}?pid={pid} HTTP/1.1\r\nhost: {wire}\r\n\r\n",
        paths::HOLD
    );
    stream.write_all(head.as_bytes())?;
    std::thread::spawn(move || {
        let mut sink = [0; 256];
        while let Ok(1..) = stream.read(&mut sink) {}
        std::process::exit(0);
    });
    Ok(())
}

/// POSTs `body` to `path` and gives back the answer's body (status 200 only).
fn post(wire: SocketAddr, path: &str, body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect_timeout(&wire, RELAY_TIMEOUT)?;
    stream.set_read_timeout(Some(RELAY_TIMEOUT))?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {wire}\r\ncontent-type: application/octet-stream\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut answer = Vec::new();
    stream.take(MAX_ANSWER_BYTES).read_to_end(&mut answer)?;
    body_of(&answer).ok_or_else(|| std::io::Error::other("the wire server's answer is not 200"))
}

/// The body of a `200` answer read to its end.
fn body_of(answer: &[u8]) -> Option<Vec<u8>> {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    answer
        .starts_with(b"HTTP/1.1 200")
        .then(|| answer[end + 4..].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_lose_their_newline_and_an_unfinished_last_line_still_counts() {
        let mut input = std::io::Cursor::new(b"one\ntwo\nthree".to_vec());
        assert_eq!(read_line(&mut input).as_deref(), Some(&b"one"[..]));
        assert_eq!(read_line(&mut input).as_deref(), Some(&b"two"[..]));
        assert_eq!(read_line(&mut input).as_deref(), Some(&b"three"[..]));
        assert_eq!(read_line(&mut input), None);
    }

    #[test]
    fn an_answer_body_is_read_only_from_a_200() {
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]";
        assert_eq!(body_of(ok).as_deref(), Some(&b"[]"[..]));
        assert_eq!(body_of(b"HTTP/1.1 400 Bad\r\n\r\nno"), None);
        assert_eq!(body_of(b"HTTP/1.1 200 OK"), None);
    }

    #[test]
    fn an_answer_weighs_its_written_bytes_and_a_little_per_action() {
        assert_eq!(weight(&[]), ACTION_WEIGHT);
        let steps = [Action::SleepMs(5), Action::Write("abc".into())];
        assert_eq!(weight(&steps), 3 * ACTION_WEIGHT + 3);
    }

    #[test]
    fn the_reader_waits_past_the_bound_until_the_writer_gives_room_back() {
        let pending = Arc::new(Pending::default());
        let big = MAX_PENDING_OUTPUT / 2 + 1;
        pending.take(big);
        let (taken, took) = mpsc::channel();
        let reader = Arc::clone(&pending);
        let waiter = std::thread::spawn(move || {
            reader.take(big);
            let _ = taken.send(());
        });
        // Two halves and a byte do not fit: the reader still waits after 200 ms...
        assert!(took.recv_timeout(Duration::from_millis(200)).is_err());
        // ...and goes on once the writer is done with the first (within 10 s).
        pending.give_back(big);
        assert!(took.recv_timeout(Duration::from_secs(10)).is_ok());
        waiter.join().unwrap();
        assert_eq!(*pending.held.lock().unwrap(), big);
    }

    #[test]
    fn an_answer_larger_than_the_bound_goes_alone() {
        let pending = Pending::default();
        pending.take(MAX_PENDING_OUTPUT * 3);
        assert_eq!(*pending.held.lock().unwrap(), MAX_PENDING_OUTPUT * 3);
        pending.give_back(MAX_PENDING_OUTPUT * 3);
        pending.take(1);
        pending.take(MAX_PENDING_OUTPUT - 1);
        assert_eq!(*pending.held.lock().unwrap(), MAX_PENDING_OUTPUT);
    }

    #[test]
    fn the_noise_line_is_eighty_bytes_ending_in_a_newline() {
        assert_eq!(NOISE.last(), Some(&b'\n'));
    }
}
