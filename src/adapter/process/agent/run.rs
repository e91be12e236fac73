//! One agent run: a fresh home with the row's config files, the scripted model, and the agent
//! itself in a process group of its own; all three go when the run is dropped.

use super::super::group::{Exit, ProcessGroup};
use super::super::home::Home;
use super::super::seeding;
use super::spec::{AgentSpec, Fill};
use crate::case::Credentials;
use crate::model::{ModelServer, Say, Turn};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The most bytes of the agent's stdout and of its stderr a run keeps: the last ones (a final
/// answer and an error come at the end).
pub const OUTPUT_CAP: usize = 64 * 1024;

/// The tail of an output stream, filled by a thread of its own.
#[derive(Debug, Clone, Default)]
struct Tail(Arc<Mutex<Vec<u8>>>);

impl Tail {
    fn read_from(&self, mut pipe: impl Read + Send + 'static) {
        let tail = self.clone();
        let _ = std::thread::Builder::new()
            .name("agent-output".into())
            .spawn(move || {
                let mut buffer = [0u8; 8192];
                while let Ok(n @ 1..) = pipe.read(&mut buffer) {
                    let mut kept = tail.0.lock().unwrap_or_else(|p| p.into_inner());
                    kept.extend_from_slice(&buffer[..n]);
                    let over = kept.len().saturating_sub(OUTPUT_CAP);
                    kept.drain(..over);
                }
            });
    }

    fn text(&self) -> String {
        let kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&kept).into_owned()
    }
}

/// A running agent with its model and home. Field order is drop order: the agent is killed
/// before its home is removed.
#[derive(Debug)]
pub(super) struct AgentRun {
    group: ProcessGroup,
    pub(super) model: ModelServer,
    stdout: Tail,
    stderr: Tail,
    _home: Home,
    /// The turn waiting for what the model says next.
    pub(super) pending: Option<Turn>,
    /// Calls the model asked for so far.
    pub(super) calls: usize,
}

/// Why an agent run has no first turn.
#[derive(Debug)]
pub(super) enum StartError {
    /// It ended without asking the model about the tool: it talked to the model without
    /// offering it, or gave up before (an agent that stops when its MCP server fails). What
    /// its model was told: nothing about the call.
    NoTool(String),
    /// It is still starting when its start-up allowance is over (it waits on its MCP server):
    /// a call that never begins, which the runner's deadline makes a hang.
    Silent(String),
    /// It did not start at all (the program, its home or the model could not be made).
    Failed(String),
}

/// How waiting for the agent's next turn ended.
#[derive(Debug)]
pub(super) enum Next {
    Turn(Turn),
    Exited(Exit),
}

impl AgentRun {
    /// Starts `spec`'s agent (installed in `folder`) against the MCP server at `mcp_url`, with
    /// a model whose turns are about `tool`, holding `credentials` as its `[auth]` says in an
    /// authorization case; returns once the agent's first turn came, or why it did not within
    /// `start_timeout`.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn start(
        spec: &AgentSpec,
        folder: &Path,
        mcp_url: &str,
        tool: &str,
        client: u64,
        credentials: Option<&Credentials>,
        start_timeout: Duration,
    ) -> Result<AgentRun, StartError> {
        let home = Home::new("agent", client)
            .map_err(|e| StartError::Failed(format!("cannot make the agent's home: {e}")))?;
        let model = ModelServer::start(tool)
            .await
            .map_err(|e| StartError::Failed(format!("the scripted model did not start: {e}")))?;
        let fill = Fill {
            model_url: model.url().to_owned(),
            mcp_url: mcp_url.to_owned(),
            home: home.0.clone(),
            folder: folder.to_owned(),
        };
        let plain = (&spec.command[..], &spec.env, &spec.file[..]);
        let auth = spec.auth.as_ref().zip(credentials);
        let (words, env) = seeding::set_up(&home, plain, auth, |t| fill.fill(t), mcp_url)
            .await
            .map_err(StartError::Failed)?;
        let mut command = command(&words, &fill, env);
        let (group, mut child) = ProcessGroup::spawn(&mut command).map_err(|e| {
            let program = command.get_program().to_string_lossy().into_owned();
            StartError::Failed(format!("cannot start {program:?}: {e}"))
        })?;
        let (stdout, stderr) = (Tail::default(), Tail::default());
        if let Some(pipe) = child.stdout.take() {
            stdout.read_from(pipe);
        }
        if let Some(pipe) = child.stderr.take() {
            stderr.read_from(pipe);
        }
        let mut run = AgentRun {
            group,
            model,
            stdout,
            stderr,
            _home: home,
            pending: None,
            calls: 0,
        };
        let exit = match tokio::time::timeout(start_timeout, run.next()).await {
            Ok(Next::Turn(turn)) => {
                run.pending = Some(turn);
                return Ok(run);
            }
            Ok(Next::Exited(exit)) => exit,
            Err(_) => {
                return Err(StartError::Silent(format!(
                    "the agent asked the model nothing about the tool within {} ms of its \
                     start{}",
                    start_timeout.as_millis(),
                    run.said()
                )));
            }
        };
        let requests = run.model.requests();
        let offered = match requests.iter().rev().find(|r| r.kind == "side") {
            // It reached the model, but without the tool: its MCP connection failed.
            Some(side) => format!(
                "it never offered the model a tool named `{tool}` (its last request offered {})",
                crate::model::server::offered(side)
            ),
            None => "it sent the model no request".to_owned(),
        };
        let said = run.steady(&run.said());
        Err(StartError::NoTool(format!(
            "the agent {exit} before its first turn: {offered}{said}"
        )))
    }

    /// The next turn, or the agent's end (a turn that came before the end wins).
    pub(super) async fn next(&mut self) -> Next {
        tokio::select! {
            biased;
            Some(turn) = self.model.next_turn() => Next::Turn(turn),
            exit = self.group.wait() => match self.model.next_turn_now() {
                Some(turn) => Next::Turn(turn),
                None => Next::Exited(exit),
            },
        }
    }

    /// Answers the pending turn with `say`.
    pub(super) fn say(&mut self, say: Say) {
        if let Some(turn) = self.pending.take() {
            turn.answer(say);
        }
    }

    /// Ends the conversation and waits (up to `wait`) for the agent to exit; how it ended, if
    /// it did.
    pub(super) async fn finish(&mut self, wait: Duration) -> Option<Exit> {
        self.say(Say::Text(crate::model::server::FINAL_TEXT.to_owned()));
        let until = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(until, self.next()).await {
                // A turn after the final text: end it too.
                Ok(Next::Turn(turn)) => {
                    turn.answer(Say::Text(crate::model::server::FINAL_TEXT.to_owned()))
                }
                Ok(Next::Exited(exit)) => return Some(exit),
                Err(_) => return None,
            }
        }
    }

    /// What the user saw: the last lines of stdout (stderr, where agents log, is in the
    /// call's log).
    pub(super) fn said(&self) -> String {
        let last = last_lines(&self.stdout.text(), 6);
        match last.is_empty() {
            true => "; it printed nothing".to_owned(),
            false => format!("; it printed: {last}"),
        }
    }

    /// `text` without what differs from run to run: the home's path, the model's address, a
    /// measured time in seconds (`Wall time: 0.0060 seconds`), so that a report and a snapshot
    /// say the same on every run. The MCP server's port is the snapshot's to hide.
    pub(super) fn steady(&self, text: &str) -> String {
        let home = self._home.0.to_string_lossy();
        let text = text
            .replace(home.as_ref(), "{home}")
            .replace(self.model.url(), "{model_url}");
        blur_fractional_seconds(&text)
    }

    /// The agent's whole kept stdout and stderr, for the log.
    pub(super) fn output(&self) -> (String, String) {
        (self.stdout.text(), self.stderr.text())
    }
}

/// The last `n` non-blank lines of `text`, joined by ` / `, at most 600 characters.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(n);
    let joined = lines[start..].join(" / ");
    match joined.char_indices().nth_back(600) {
        Some((at, _)) => format!("…{}", &joined[at..]),
        None => joined,
    }
}

/// The agent's command: the row's words filled, in the home's `work` folder, with an
/// environment of its own (nothing of the machine's but `PATH`, the locale and the terminal,
/// then the row's variables).
fn command(words: &[String], fill: &Fill, environment: Vec<(String, String)>) -> Command {
    let mut command = Command::new(&words[0]);
    command
        .args(&words[1..])
        .current_dir(fill.home.join("work"))
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.envs(environment);
    command
}

/// `0.0060 seconds` as `N seconds`: a number with a fraction before ` seconds` is a
/// measurement (a set bound, `300s`, `60 seconds`, has none).
fn blur_fractional_seconds(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" seconds") {
        let (head, tail) = rest.split_at(at);
        let number = head
            .rsplit(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()
            .unwrap_or_default();
        let fractional = number.contains('.') && number.chars().any(|c| c.is_ascii_digit());
        match fractional {
            true => {
                out.push_str(&head[..head.len() - number.len()]);
                out.push('N');
            }
            false => out.push_str(head),
        }
        out.push_str(" seconds");
        rest = &tail[" seconds".len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_seconds_are_blurred_and_bounds_kept() {
        assert_eq!(
            blur_fractional_seconds("Wall time: 0.0060 seconds\nOutput: after 300 seconds"),
            "Wall time: N seconds\nOutput: after 300 seconds"
        );
        assert_eq!(blur_fractional_seconds("no time"), "no time");
        assert_eq!(
            blur_fractional_seconds("1.5 seconds seconds"),
            "N seconds seconds"
        );
    }

    #[test]
    fn last_lines_are_joined_and_bounded() {
        assert_eq!(last_lines("a\n\nb\nc\n", 2), "b / c");
        let long = "x".repeat(2_000);
        assert!(last_lines(&long, 1).chars().count() <= 602);
    }
}
