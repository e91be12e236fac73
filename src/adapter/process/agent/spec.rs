//! An agent row's `adapter.toml` (`kind = "agent"`): the agent's command line, environment and
//! config files as templates the harness fills per case (docs/adapters.md, "Agent rows").

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The placeholders a template may use.
pub const PLACEHOLDERS: [&str; 5] = ["{model_url}", "{mcp_url}", "{home}", "{folder}", "{prompt}"];

/// What the scripted model is asked to do, for agents that read their prompt (the model it
/// talks to does not).
pub const PROMPT: &str = "Call the tool of the MCP server `probe` once, with the arguments it \
                          is given, then stop.";

/// An agent row, as its `adapter.toml` says.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSpec {
    /// `"agent"`.
    pub kind: String,
    /// The package as its registry names it (`@openai/codex`).
    pub agent: String,
    /// The pinned version.
    pub version: String,
    /// How it is installed: `npm` (the folder's `package-lock.json`).
    pub install: String,
    /// The model API it speaks (`anthropic`, `responses`, `chat`, `gemini`): for people, and
    /// checked against what it sent.
    pub api: String,
    /// The command line; the first word is the program (`{folder}/node_modules/.bin/codex`).
    pub command: Vec<String>,
    /// Environment variables set for it, besides `HOME`, `PATH` and the XDG folders (its
    /// environment is otherwise empty, so nothing of the machine's leaks in).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written under the fresh home before it starts.
    #[serde(default)]
    pub file: Vec<ConfigFile>,
    /// Where the API has no error flag: the words the agent wraps a failed call in, any of
    /// which marks a result as an error (from its source, cited in the row's README).
    #[serde(default)]
    pub error_marks: Vec<String>,
    /// Cases at once (default 4 in `cargo test`, 3 from the command line; at most 16).
    pub threads: Option<usize>,
    /// How long the agent may take from its start to its first turn (default 30 s, at most
    /// 600 s): not part of any call's time.
    pub start_timeout_ms: Option<u64>,
    /// Past the call's timeout before the runner calls a hang, when not the harness's default.
    pub deadline_margin_ms: Option<u64>,
    /// The client timeout of a call whose case names none, when not the harness's default.
    pub default_timeout_ms: Option<u64>,
    /// What the row sets that the agent does not default to, for people (telemetry off).
    #[serde(default)]
    pub setting: Option<String>,
    /// Cases whose outcome differs from run to run because the agent races with itself (it
    /// resumes a stream, or not): the matrix shows them as `racy`, the row's README says both
    /// outcomes, and their baseline reasons start with `racy: ` (accepted when they deviate, no
    /// stale entry when they pass).
    #[serde(default)]
    pub racy: Vec<String>,
    /// What it does with an authorization case's credentials (its token store seeded, a static
    /// header in its MCP config); absent: it takes none, and the authorization cases are
    /// `unsupported` for it.
    #[serde(default)]
    pub auth: Option<AuthSpec>,
}

pub use super::super::home::ConfigFile;
pub use super::super::seeding::AuthSpec;

/// The longest any duration an agent's `adapter.toml` names may be: ten minutes.
pub const MAX_MS: u64 = super::super::limits::MAX_MS;
/// The most cases at once an agent row may ask for.
pub const MAX_THREADS: usize = super::super::limits::MAX_THREADS;

impl AgentSpec {
    /// Reads `<folder>/adapter.toml`; an error names the file, the key and the fix.
    pub fn load(folder: &Path) -> Result<AgentSpec, String> {
        let path = folder.join("adapter.toml");
        let text = crate::input::read_to_string(&path, crate::input::Kind::AdapterSpec)
            .map_err(|e| e.to_string())?;
        AgentSpec::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses and checks an `adapter.toml` text.
    pub fn parse(text: &str) -> Result<AgentSpec, String> {
        let spec: AgentSpec = toml::from_str(text)
            .map_err(|e| format!("{e} (keys: docs/adapters.md, \"Agent rows\")"))?;
        spec.check()?;
        Ok(spec)
    }

    fn check(&self) -> Result<(), String> {
        if self.kind != "agent" {
            return Err(format!(
                "`kind = {:?}`: an agent row says `kind = \"agent\"`",
                self.kind
            ));
        }
        if self.install != "npm" {
            return Err(format!(
                "`install = {:?}`: agent rows install with \"npm\"",
                self.install
            ));
        }
        if !["anthropic", "responses", "chat", "gemini"].contains(&self.api.as_str()) {
            return Err(format!(
                "`api = {:?}`: one of \"anthropic\", \"responses\", \"chat\", \"gemini\"",
                self.api
            ));
        }
        if self.command.is_empty() {
            return Err("`command` is empty: the program and its arguments".to_owned());
        }
        let durations = [
            ("start_timeout_ms", self.start_timeout_ms),
            ("deadline_margin_ms", self.deadline_margin_ms),
            ("default_timeout_ms", self.default_timeout_ms),
        ];
        super::super::limits::check(self.threads, &durations)?;
        for file in &self.file {
            file.check()?;
        }
        if let Some(auth) = &self.auth {
            auth.check(&PLACEHOLDERS)?;
        }
        Ok(())
    }
}

/// The values a template's placeholders stand for in one agent run.
#[derive(Debug, Clone)]
pub struct Fill {
    /// The scripted model's base URL (`http://127.0.0.1:PORT`, no path).
    pub model_url: String,
    /// The case's MCP endpoint.
    pub mcp_url: String,
    /// The run's fresh home.
    pub home: PathBuf,
    /// The row's folder (where `node_modules` is).
    pub folder: PathBuf,
}

impl Fill {
    /// `template` with every placeholder replaced.
    pub fn fill(&self, template: &str) -> String {
        template
            .replace("{model_url}", &self.model_url)
            .replace("{mcp_url}", &self.mcp_url)
            .replace("{home}", &self.home.to_string_lossy())
            .replace("{folder}", &self.folder.to_string_lossy())
            .replace("{prompt}", PROMPT)
    }
}
