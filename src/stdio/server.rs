//! The stdio server process: reads lines on stdin, relays each to its wire server before acting,
//! and carries out the actions it gets back.
//!
//! Three threads: the main one reads stdin and relays; a writer carries out actions in order
//! (so a stalled or slow write never stops stdin from being read and recorded); a watcher holds
//! a connection to the wire server open and exits the process when the wire server goes (the
//! case is over), so that no case leaves a server behind, whoever started it.

use super::action::{Action, Event, paths};
use super::session::Session;
use crate::case::Signal;
use std::io::{BufRead, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

/// The longest stdin line relayed whole: 16 MiB (the wire server reads no larger body). A longer
/// line is relayed cut to this, and the rest of it is read and dropped.
pub const MAX_READ_LINE: usize = 16 * 1024 * 1024;

/// The most an answer of the wire server may hold: a 16 MiB line and the JSON around it.
const MAX_ANSWER_BYTES: u64 = 48 * 1024 * 1024;

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
    std::thread::spawn(move || carry_out(wire, &receive));
    relay_stdin(wire, &send);
    report(wire, &Event::StdinClosed);
    ExitCode::SUCCESS
}

/// Reads stdin line by line and relays each; returns at end-of-file.
fn relay_stdin(wire: SocketAddr, actions: &mpsc::Sender<Vec<Action>>) {
    let mut stdin = std::io::stdin().lock();
    while let Some(line) = read_line(&mut stdin) {
        let answer = match post(wire, paths::LINE, &line) {
            Ok(answer) => answer,
            Err(_) => std::process::exit(0), // the case is over
        };
        let steps: Vec<Action> = serde_json::from_slice(&answer).unwrap_or_default();
        if actions.send(steps).is_err() {
            return;
        }
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

/// Carries out each list of actions in the order it came.
fn carry_out(wire: SocketAddr, actions: &mpsc::Receiver<Vec<Action>>) {
    while let Ok(steps) = actions.recv() {
        for step in steps {
            act(wire, step);
        }
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
    fn the_noise_line_is_eighty_bytes_ending_in_a_newline() {
        assert_eq!(NOISE.last(), Some(&b'\n'));
    }
}
