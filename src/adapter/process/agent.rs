//! Agent rows (docs/adapters.md, "Agent rows"): a coding agent run headless against the case's
//! MCP server and a scripted model on loopback ([`crate::model`]), observed by what the model
//! was told.
//!
//! The calls of a case run in one agent: its first turn is awaited in `prepare` (starting an
//! agent is not a call's time), each call's `drive` has the model ask for the tool with the
//! call's arguments and waits for the turn that carries the result, and after the last call
//! the model ends the conversation and the agent's exit and output are what the user saw. A
//! call the agent never answers is a hang: the run is dropped, which kills the agent's whole
//! process group, stops the model and removes the fresh home.

mod run;
pub mod spec;

use crate::adapter::{AdapterLog, CallContext, Driver, DriverInfo, Observes};
use crate::model::told::{self, Told};
use crate::model::{ModelRequest, Say};
use crate::observation::AdapterReport;
use run::{AgentRun, Next};
use spec::AgentSpec;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// How long an agent has from its start to its first turn, by default.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long an agent's call may take from its first request to its `tools/call`: its model
/// turn comes between them (on two cores beside the bridge rows, up to 9.5 s measured).
pub const SET_UP_BOUND: Duration = Duration::from_secs(30);
/// How long a call waits for its agent to exit after the model's final text (agents exit in
/// well under a second): what the user saw goes to the call's log, not to the observation,
/// whose detail must not depend on how fast the machine is.
pub const FINISH_WAIT: Duration = Duration::from_secs(2);
/// The most agent runs kept between the calls of their cases.
const MAX_RUNS: usize = 256;

/// A coding agent driven through a scripted model.
#[derive(Debug)]
pub struct AgentAdapter {
    spec: AgentSpec,
    folder: PathBuf,
    /// The runs that hold a case's agent until its next call, by client id.
    runs: Mutex<HashMap<u64, AgentRun>>,
}

/// What `prepare` hands to `drive`: the call's agent run, or why there is none.
#[derive(Debug)]
pub struct Prepared {
    run: Result<AgentRun, run::StartError>,
    /// Said in the call's log (a new agent for a later call).
    note: Option<String>,
}

impl AgentAdapter {
    /// The agent `spec` describes, installed in `folder` (where its `node_modules` is).
    pub fn new(spec: AgentSpec, folder: impl Into<PathBuf>) -> AgentAdapter {
        AgentAdapter {
            spec,
            folder: folder.into(),
            runs: Mutex::new(HashMap::new()),
        }
    }

    /// Reads the row in `folder` (its `adapter.toml`); the folder is made absolute, since the
    /// agent runs in its own home.
    pub fn load(folder: &Path) -> Result<AgentAdapter, String> {
        let spec = AgentSpec::load(folder)?;
        let folder = folder
            .canonicalize()
            .map_err(|e| format!("{}: {e}", folder.display()))?;
        Ok(AgentAdapter::new(spec, folder))
    }

    /// Whether the agent's program can be started: the first word of its `command`, with
    /// `{folder}` filled, names an executable file (looked up in the `PATH` the agent gets,
    /// its row's `env.PATH` or the harness's, when it has no `/`), as its start would find it.
    /// `Err` is the one line saying which program, in which folder, and the fix, for a run to
    /// stop on before any case (a missing program would otherwise fail every case alike). A
    /// program named through a placeholder only a run fills, or by a relative path, which the
    /// agent's own working folder resolves, is left to the run.
    pub fn check_startable(&self) -> Result<(), String> {
        let folder = self.folder.to_string_lossy();
        let fill = |word: &str| {
            let filled = word.replace("{folder}", &folder);
            let unknown = spec::PLACEHOLDERS.iter().any(|p| filled.contains(p));
            (!unknown).then_some(filled)
        };
        let Some(program) = self.spec.command.first().and_then(|word| fill(word)) else {
            return Ok(());
        };
        let path = Path::new(&program);
        let found = if program.contains('/') {
            if path.is_relative() {
                return Ok(());
            }
            super::executable(path)
        } else {
            let dirs = match self.spec.env.get("PATH") {
                Some(dirs) => match fill(dirs) {
                    Some(dirs) => dirs.into(),
                    None => return Ok(()),
                },
                None => std::env::var_os("PATH").unwrap_or_default(),
            };
            super::locate_in(path, &dirs)
        };
        found.map(|_| ()).map_err(|e| {
            format!(
                "cannot start the agent in {folder}: its program {program:?} (the first word of \
                 `command` in adapter.toml): {e}; install the agent with `npm ci --prefix \
                 {folder}`, or correct `command`"
            )
        })
    }

    /// The row's `adapter.toml`.
    pub fn spec(&self) -> &AgentSpec {
        &self.spec
    }

    fn runs(&self) -> std::sync::MutexGuard<'_, HashMap<u64, AgentRun>> {
        // Plain data: still valid after a panic on another case's thread.
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn start_timeout(&self) -> Duration {
        self.spec
            .start_timeout_ms
            .map_or(DEFAULT_START_TIMEOUT, Duration::from_millis)
    }
}

impl Driver for AgentAdapter {
    type Prepared = Prepared;

    fn set_up_bound(&self) -> Duration {
        SET_UP_BOUND
    }

    fn takes_credentials(&self) -> bool {
        self.spec.auth.is_some()
    }

    async fn prepare(&self, call: &CallContext) -> Prepared {
        if call.task.is_some() {
            // Unsupported (see `drive`): no agent to start.
            let run = Err(run::StartError::Failed(String::new()));
            return Prepared { run, note: None };
        }
        let kept = self.runs().remove(&call.client.id);
        if let Some(run) = kept {
            return Prepared {
                run: Ok(run),
                note: None,
            };
        }
        let note = (call.client.call > 0).then(|| {
            "a new agent for this call: the one that made the case's earlier call has ended"
                .to_owned()
        });
        let run = AgentRun::start(
            &self.spec,
            &self.folder,
            &call.endpoint,
            &call.tool,
            call.client.id,
            call.auth.as_ref(),
            self.start_timeout(),
        )
        .await;
        Prepared { run, note }
    }

    fn info(&self) -> DriverInfo {
        DriverInfo {
            name: Some(self.spec.agent.clone()),
            version: Some(self.spec.version.clone()),
            agent: true,
            ..DriverInfo::default()
        }
    }

    fn observes(&self) -> Observes {
        Observes::ModelTold
    }

    async fn drive(
        &self,
        prepared: Prepared,
        call: CallContext,
        log: &AdapterLog,
    ) -> Result<AdapterReport, String> {
        if call.task.is_some() {
            return Ok(AdapterReport::Unsupported {
                unsupported: "an agent calls a tool as its model asks, with no task API the \
                              model can ask for"
                    .to_owned(),
            });
        }
        if let Some(note) = prepared.note {
            log.note(note);
        }
        let mut run = match prepared.run {
            Ok(run) => run,
            Err(start) => return not_started(start, log).await,
        };
        let seen = run.model.seen();
        let told = call_once(&mut run, &call, &self.spec.error_marks).await;
        let facts = call.model_facts.clone().unwrap_or_default();
        let mut observation = told::judge(&told, &facts);
        observation.detail = run.steady(&observation.detail);
        observation
            .detail
            .push_str(&format!("; model turns: {}", told.model_turns));
        log_requests(log, &run.model.requests(), seen);
        if let Some(result) = &told.result {
            let item = serde_json::to_string(result).unwrap_or_default();
            log.note(format!("the tool result the model was given: {item}"));
        }
        let ended = told.result.is_none();
        if call.client.is_last() || ended {
            finish(run, log).await;
        } else {
            let mut runs = self.runs();
            if runs.len() < MAX_RUNS {
                runs.insert(call.client.id, run);
            }
        }
        Ok(AdapterReport::Observed(observation))
    }
}

/// Ends the conversation and notes what the user saw: how the agent exited (if it did within
/// [`FINISH_WAIT`]; it is killed with the run either way), its stderr and its stdout.
async fn finish(mut run: AgentRun, log: &AdapterLog) {
    let exit = run.finish(FINISH_WAIT).await;
    let exit = exit.map_or_else(
        || {
            format!(
                "was still running {} s after the final text",
                FINISH_WAIT.as_secs()
            )
        },
        |exit| exit.to_string(),
    );
    let (stdout, stderr) = run.output();
    log.append(stderr.as_bytes());
    log.note(format!(
        "the user saw: the agent {exit}{}",
        run.steady(&run.said())
    ));
    log.note(format!("the agent's stdout: {}", stdout.trim_end()));
}

/// An agent that did not reach its first turn: an observation when it ended without asking
/// the model about the tool, a hang when it is still starting, an adapter error when it could
/// not be started.
async fn not_started(start: run::StartError, log: &AdapterLog) -> Result<AdapterReport, String> {
    if let run::StartError::Silent(why) = &start {
        log.note(why.clone());
    }
    match start {
        run::StartError::NoTool(why) => {
            let told = Told::missing(why, 0);
            Ok(AdapterReport::Observed(told::judge(
                &told,
                &Default::default(),
            )))
        }
        run::StartError::Failed(why) => Err(why),
        // A call that never begins: the runner's deadline makes it a hang.
        run::StartError::Silent(_) => std::future::pending().await,
    }
}

/// Has the model ask for the tool, then waits for the turn that tells it the result.
async fn call_once(run: &mut AgentRun, call: &CallContext, marks: &[String]) -> Told {
    run.calls += 1;
    let id = format!("call_{}", run.calls);
    let tool = run
        .pending
        .as_ref()
        .map(|t| t.tool.clone())
        .unwrap_or_default();
    run.say(Say::Call {
        id: id.clone(),
        arguments: call.arguments.clone(),
    });
    // The call waits for one turn: the one that carries its result (or should).
    match run.next().await {
        Next::Turn(turn) => {
            // Linked by the id the model gave the call; else by the function's name (Gemini,
            // when the agent keeps no id); else the newest result, which in the turn after a
            // call is that call's (an agent that made up an id of its own).
            let found = turn.results.iter().rev().find(|r| r.call_id == id);
            let found = found.or_else(|| turn.results.iter().rev().find(|r| r.call_id == tool));
            let found = found.or_else(|| turn.results.last());
            let told = match found {
                Some(result) => Told::result(result.clone(), marks, 1),
                None => Told::missing("the agent's next turn carried no result for the call", 1),
            };
            run.pending = Some(turn);
            told
        }
        Next::Exited(exit) => Told::missing(
            format!("the agent {exit} before it told the model{}", run.said()),
            0,
        ),
    }
}

/// The model requests of this call, one line each, into the call's log.
fn log_requests(log: &AdapterLog, requests: &[ModelRequest], from: usize) {
    for request in requests.iter().skip(from) {
        log.note(format!(
            "model request at {} ms: {} {} ({}, {} bytes)",
            request.at_ms,
            request.method,
            request.path,
            request.kind,
            request.body.len()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(folder: &Path, command: &str, env: &str) -> AgentAdapter {
        let text = format!(
            "kind = \"agent\"\nagent = \"a\"\nversion = \"1\"\ninstall = \"npm\"\napi = \
             \"anthropic\"\ncommand = [{command:?}, \"-p\"]\n{env}"
        );
        AgentAdapter::new(AgentSpec::parse(&text).unwrap(), folder)
    }

    #[test]
    fn a_missing_agent_program_is_one_line_naming_it_the_folder_and_the_fix() {
        let folder = tempfile::tempdir().unwrap();
        let shown = folder.path().display().to_string();
        let bin = folder.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        let missing = agent(folder.path(), "{folder}/node_modules/.bin/claude", "");
        let why = missing.check_startable().unwrap_err();
        assert!(!why.contains('\n'), "{why}");
        for part in [
            format!("\"{shown}/node_modules/.bin/claude\""),
            format!("cannot start the agent in {shown}"),
            format!("npm ci --prefix {shown}"),
            "No such file or directory".to_owned(),
        ] {
            assert!(why.contains(&part), "{part:?} in {why}");
        }
        let on_no_path = agent(folder.path(), "no-such-agent-program", "");
        assert!(on_no_path.check_startable().is_err());
        // The row's own PATH is where a bare name is looked for.
        use std::os::unix::fs::PermissionsExt;
        let program = bin.join("claude");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let found = agent(folder.path(), "{folder}/node_modules/.bin/claude", "");
        assert_eq!(found.check_startable(), Ok(()));
        let row_path = "[env]\nPATH = \"{folder}/node_modules/.bin\"\n";
        assert_eq!(
            agent(folder.path(), "claude", row_path).check_startable(),
            Ok(())
        );
        // Only a run knows what `{home}` is.
        assert_eq!(
            agent(folder.path(), "{home}/x", "").check_startable(),
            Ok(())
        );
    }

    #[test]
    fn an_auth_table_makes_the_row_take_credentials_and_is_checked() {
        let folder = tempfile::tempdir().unwrap();
        let plain = agent(folder.path(), "a", "");
        assert!(!Driver::takes_credentials(&plain));
        let header = "[auth]\nsetting = \"a static header\"\n[[auth.file]]\npath = \"mcp.json\"\n\
                      text = '{\"url\": \"{mcp_url}\", \"token\": \"{access_token}\"}'\n";
        assert!(Driver::takes_credentials(&agent(
            folder.path(),
            "a",
            header
        )));
        let text = "kind = \"agent\"\nagent = \"a\"\nversion = \"1\"\ninstall = \"npm\"\n\
                    api = \"anthropic\"\ncommand = [\"a\"]\n[auth]\nsetting = \"x\"\n\
                    env = { T = \"{upstream_url}\" }\n";
        let why = AgentSpec::parse(text).unwrap_err();
        assert!(why.contains("`auth.env` names `{upstream_url}`"), "{why}");
    }
}
