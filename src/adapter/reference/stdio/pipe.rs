//! The server process behind a stdio connection: started from the command line the runner
//! gave, its stdout read as lines by a task of its own, its stderr always drained (a server
//! whose stderr nobody reads blocks once the pipe holds 64 KiB).

use crate::adapter::StdioLaunch;
use crate::adapter::reaper::{self, Mark};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// The longest stdout line the client reads whole: 32 MiB (the cases' longest is 16 MiB). A
/// longer line arrives cut, and so is not JSON.
pub const MAX_LINE: usize = 32 * 1024 * 1024;

/// How long the client waits for a server that closed its stdout to exit, so that it can say
/// how it ended.
const EXIT_WAIT: Duration = Duration::from_millis(300);

/// What the stdout reader hands on.
#[derive(Debug)]
pub enum Incoming {
    /// One line, without its newline.
    Line(Vec<u8>),
    /// Stdout closed.
    Eof,
}

/// A running server process.
#[derive(Debug)]
pub struct Pipe {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Incoming>,
    eof: bool,
    /// The mark in its environment ([`reaper::GROUP_VAR`]): what it started that outlives it is
    /// killed when the pipe is dropped.
    mark: Mark,
}

impl Pipe {
    /// Starts `argv` (program first) with stdin, stdout and stderr piped, as `launch` says
    /// when given; killed when dropped.
    pub fn start(argv: &[String], launch: Option<&StdioLaunch>) -> std::io::Result<Pipe> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| std::io::Error::other("an empty command line"))?;
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(launch) = launch {
            command.env_clear().envs(launch.env.iter().cloned());
            if let Some(dir) = &launch.dir {
                command.current_dir(dir);
            }
        }
        // After `env_clear`: the mark always goes in.
        let mark = Mark::new();
        command.env(reaper::GROUP_VAR, mark.value());
        let mut child = command.spawn()?;
        let (send, lines) = mpsc::channel(64);
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_lines(BufReader::new(stdout), send));
        }
        if let Some(mut stderr) = child.stderr.take() {
            let log = launch.map(|l| l.stderr.clone());
            tokio::spawn(async move {
                let mut sink = vec![0; 64 * 1024];
                while let Ok(n @ 1..) = stderr.read(&mut sink).await {
                    if let Some(log) = &log {
                        log.append(&sink[..n]);
                    }
                }
            });
        }
        let stdin = child.stdin.take();
        Ok(Pipe {
            child,
            stdin,
            lines,
            eof: false,
            mark,
        })
    }

    /// Writes one message and its newline. `false` when the server's stdin is closed.
    pub async fn send(&mut self, message: &serde_json::Value) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        stdin.write_all(&line).await.is_ok() && stdin.flush().await.is_ok()
    }

    /// The next thing stdout brought; after its end, [`Incoming::Eof`] again at once.
    pub async fn next(&mut self) -> Incoming {
        if self.eof {
            return Incoming::Eof;
        }
        let incoming = self.lines.recv().await.unwrap_or(Incoming::Eof);
        self.eof = matches!(incoming, Incoming::Eof);
        incoming
    }

    /// Whether the server can still answer: stdout open and the process running.
    pub fn alive(&mut self) -> bool {
        !self.eof && matches!(self.child.try_wait(), Ok(None))
    }

    /// How the server ended, once stdout closed: its exit status, if it exits soon.
    pub async fn ending(&mut self) -> Option<ExitStatus> {
        tokio::time::timeout(EXIT_WAIT, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Closes the server as the stdio transport says: stdin first, then, if it does not exit,
    /// a kill.
    pub async fn close(mut self) {
        drop(self.stdin.take());
        if self.ending().await.is_none() {
            let _ = self.child.kill().await;
        }
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // The server itself is killed and reaped by tokio (`kill_on_drop`); what it started
        // is killed here, even what left its session, and reaped off this thread.
        let killed = self.mark.kill();
        let server = self.child.id();
        if killed.iter().any(|p| Some(p.pid) != server) {
            let _ = std::thread::Builder::new()
                .name("stdio-reaper".into())
                .spawn(move || reaper::reap(&killed, server));
        }
    }
}

/// Reads stdout line by line (each at most [`MAX_LINE`] bytes) until it closes.
async fn read_lines<R: tokio::io::AsyncBufRead + Unpin>(
    mut reader: R,
    send: mpsc::Sender<Incoming>,
) {
    loop {
        let mut line = Vec::new();
        let bound = u64::try_from(MAX_LINE).unwrap_or(u64::MAX);
        let read = (&mut reader).take(bound).read_until(b'\n', &mut line).await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if line.len() < MAX_LINE {
            break; // the last bytes before the end, with no newline: never a message
        } else {
            skip_rest(&mut reader).await;
        }
        if send.send(Incoming::Line(line)).await.is_err() {
            return;
        }
    }
    let _ = send.send(Incoming::Eof).await;
}

async fn skip_rest<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R) {
    loop {
        let Ok(buffer) = reader.fill_buf().await else {
            return;
        };
        if buffer.is_empty() {
            return;
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => return reader.consume(at + 1),
            None => {
                let n = buffer.len();
                reader.consume(n);
            }
        }
    }
}

/// How a server that closed its stdout ended, in words.
pub fn ending_words(status: Option<ExitStatus>) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(s) if s.code().is_some() => format!("exited with status {}", s.code().unwrap_or(0)),
        Some(s) => format!("was killed by signal {}", s.signal().unwrap_or(0)),
        None => "closed its stdout (the process still runs)".to_owned(),
    }
}
