//! A bridge row's `adapter.toml` (`kind = "bridge"`): the bridge's command line, environment
//! and config files as templates the harness fills per case (docs/bridges.md).

use crate::hop::Downstream;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The placeholders a template may use.
pub const PLACEHOLDERS: [&str; 6] = [
    "{upstream_url}",
    "{listen}",
    "{port}",
    "{home}",
    "{install}",
    "{tool}",
];

/// The longest any duration a bridge's `adapter.toml` names may be: ten minutes.
pub const MAX_MS: u64 = super::super::limits::MAX_MS;
/// The most cases at once a bridge row may ask for.
pub const MAX_THREADS: usize = super::super::limits::MAX_THREADS;

/// A bridge row, as its `adapter.toml` says.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BridgeSpec {
    /// `"bridge"`.
    pub kind: String,
    /// The package as its registry names it (`mcp-remote`).
    pub bridge: String,
    /// The pinned version.
    pub version: String,
    /// How it is installed: `npm` (the folder's `package-lock.json`) or `pip` (the folder's
    /// `requirements.lock`, into a venv of its own).
    pub install: String,
    /// What it exposes to its client: `stdio` (the client starts it) or `http` (it listens on
    /// `{listen}`).
    pub exposes: Downstream,
    /// The command line; the first word is the program (`{install}/node_modules/.bin/x`).
    pub command: Vec<String>,
    /// `exposes = "http"`: its MCP endpoint (`http://{listen}/mcp`).
    #[serde(default)]
    pub endpoint: Option<String>,
    /// How the bridge names the upstream tool to its client (`up__{tool}` for a gateway that
    /// prefixes the server's name); default `{tool}`.
    #[serde(default)]
    pub tool: Option<String>,
    /// The bridge's own timeout for an upstream request, as its documentation or source says
    /// (the row's README cites where): its client waits this long past the case's timeout.
    pub timeout_ms: u64,
    /// The protocol version its client speaks to it (default `2025-06-18`).
    #[serde(default)]
    pub downstream_version: Option<String>,
    /// The key a gateway requires of its clients (its master key or a token it accepts; synthetic,
    /// the row's own config sets it): its client sends `Authorization: Bearer <key>` on every
    /// request. Absent: its client sends no `Authorization`.
    #[serde(default)]
    pub downstream_key: Option<String>,
    /// Environment variables set for it, besides `HOME`, `PATH` and the XDG folders (its
    /// environment is otherwise empty).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Files written under its fresh home before it starts.
    #[serde(default)]
    pub file: Vec<ConfigFile>,
    /// Cases at once (default 16, the most: a bridge row's cases mostly wait for the bridge's
    /// own timeout, on no core).
    pub threads: Option<usize>,
    /// How long it may take to start (default 30 s, at most 600 s): an HTTP bridge to listen,
    /// any to make its first upstream request, after which the call's deadline runs.
    pub start_timeout_ms: Option<u64>,
    /// What the row sets that the bridge does not default to, for people (telemetry off).
    #[serde(default)]
    pub setting: Option<String>,
    /// Cases whose outcome differs from run to run: their baseline reasons start with `racy: `.
    #[serde(default)]
    pub racy: Vec<String>,
    /// What it does with an authorization case's credentials upstream (its token store seeded,
    /// a header flag); absent: it takes none, and the authorization cases are `unsupported` for
    /// it.
    #[serde(default)]
    pub auth: Option<AuthSpec>,
}

pub use super::super::home::ConfigFile;
pub use super::super::seeding::AuthSpec;

impl BridgeSpec {
    /// Reads `<folder>/adapter.toml`; an error names the file, the key and the fix.
    pub fn load(folder: &Path) -> Result<BridgeSpec, String> {
        let path = folder.join("adapter.toml");
        let text = crate::input::read_to_string(&path, crate::input::Kind::AdapterSpec)
            .map_err(|e| e.to_string())?;
        BridgeSpec::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses and checks an `adapter.toml` text.
    pub fn parse(text: &str) -> Result<BridgeSpec, String> {
        let spec: BridgeSpec =
            toml::from_str(text).map_err(|e| format!("{e} (keys: docs/bridges.md)"))?;
        spec.check()?;
        Ok(spec)
    }

    fn check(&self) -> Result<(), String> {
        if self.kind != "bridge" {
            return Err(format!(
                "`kind = {:?}`: a bridge row says `kind = \"bridge\"`",
                self.kind
            ));
        }
        if !["npm", "pip"].contains(&self.install.as_str()) {
            return Err(format!(
                "`install = {:?}`: \"npm\" or \"pip\"",
                self.install
            ));
        }
        if self.command.is_empty() {
            return Err("`command` is empty: the program and its arguments".to_owned());
        }
        if !self.command.iter().any(|w| w.contains("{upstream_url}"))
            && !self.file.iter().any(|f| f.text.contains("{upstream_url}"))
        {
            return Err(
                "neither `command` nor a `file` names `{upstream_url}`: the bridge \
                        would not know the case's server"
                    .to_owned(),
            );
        }
        match (self.exposes, &self.endpoint) {
            (Downstream::Http, None) => {
                return Err("`exposes = \"http\"` needs `endpoint` (`http://{listen}/mcp`)".into());
            }
            (Downstream::Stdio, Some(_)) => {
                return Err(
                    "`endpoint` is for `exposes = \"http\"`; a stdio bridge has none".into(),
                );
            }
            _ => {}
        }
        let durations = [
            ("timeout_ms", Some(self.timeout_ms)),
            ("start_timeout_ms", self.start_timeout_ms),
        ];
        super::super::limits::check(self.threads, &durations)?;
        for file in &self.file {
            file.check()?;
        }
        if let Some(auth) = &self.auth {
            auth.check(&PLACEHOLDERS)?;
        }
        if self
            .downstream_key
            .as_ref()
            .is_some_and(|k| k.trim().is_empty())
        {
            return Err(
                "`downstream_key` is empty: the key its clients send, or leave it out".into(),
            );
        }
        if self.downstream_key.is_some() && self.exposes == Downstream::Stdio {
            return Err(
                "`downstream_key` is for `exposes = \"http\"`: a stdio bridge's client sends no header"
                    .into(),
            );
        }
        Ok(())
    }
}

/// The values a template's placeholders stand for in one bridge run.
#[derive(Debug, Clone)]
pub struct Fill {
    /// The case's MCP endpoint: the bridge's upstream.
    pub upstream_url: String,
    /// `exposes = "http"`: the loopback port it listens on (0 for a stdio bridge).
    pub port: u16,
    /// Its fresh home.
    pub home: PathBuf,
    /// Where it is installed (the row's folder for npm, its venv for pip).
    pub install: PathBuf,
    /// The case's tool, as the upstream server names it.
    pub tool: String,
}

impl Fill {
    /// `template` with every placeholder replaced.
    pub fn fill(&self, template: &str) -> String {
        template
            .replace("{upstream_url}", &self.upstream_url)
            .replace("{listen}", &format!("127.0.0.1:{}", self.port))
            .replace("{port}", &self.port.to_string())
            .replace("{home}", &self.home.to_string_lossy())
            .replace("{install}", &self.install.to_string_lossy())
            .replace("{tool}", &self.tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STDIO: &str = r#"
kind = "bridge"
bridge = "mcp-remote"
version = "0.1.0"
install = "npm"
exposes = "stdio"
command = ["{install}/node_modules/.bin/mcp-remote", "{upstream_url}"]
timeout_ms = 60000
"#;

    #[test]
    fn a_stdio_bridge_reads_and_fills() {
        let spec = BridgeSpec::parse(STDIO).unwrap();
        assert_eq!(spec.exposes, Downstream::Stdio);
        let fill = Fill {
            upstream_url: "http://127.0.0.1:9/mcp".into(),
            port: 0,
            home: "/h".into(),
            install: "/i".into(),
            tool: "synthetic".into(),
        };
        let words: Vec<String> = spec.command.iter().map(|w| fill.fill(w)).collect();
        assert_eq!(
            words,
            ["/i/node_modules/.bin/mcp-remote", "http://127.0.0.1:9/mcp"]
        );
    }

    #[test]
    fn each_broken_key_is_named_with_its_fix() {
        let cases = [
            (
                STDIO.replace("\"bridge\"\nbridge", "\"agent\"\nbridge"),
                "`kind = \"agent\"`",
            ),
            (
                STDIO.replace("install = \"npm\"", "install = \"cargo\""),
                "`install = \"cargo\"`",
            ),
            (
                STDIO.replace(", \"{upstream_url}\"", ""),
                "`{upstream_url}`",
            ),
            (
                STDIO.replace("exposes = \"stdio\"", "exposes = \"http\""),
                "needs `endpoint`",
            ),
            (STDIO.replace("60000", "0"), "`timeout_ms` is 0"),
            (format!("{STDIO}threads = 99\n"), "`threads = 99`"),
            (
                format!("{STDIO}[[file]]\npath = \"../x\"\ntext = \"\"\n"),
                "without `..`",
            ),
            (format!("{STDIO}colour = 1\n"), "unknown field `colour`"),
            (
                format!("{STDIO}downstream_key = \"sk-1\"\n"),
                "`downstream_key` is for `exposes = \"http\"`",
            ),
            (
                STDIO.replace("exposes = \"stdio\"", "exposes = \"http\"\nendpoint = \"http://{listen}/mcp\"\ndownstream_key = \" \""),
                "`downstream_key` is empty",
            ),
            (
                format!("{STDIO}[auth]\nsetting = \"x\"\nargs = [\"{{mcp_url}}\"]\n"),
                "`auth.args` names `{mcp_url}`",
            ),
        ];
        for (text, said) in cases {
            let error = BridgeSpec::parse(&text).unwrap_err();
            assert!(error.contains(said), "{said:?} not in {error:?}");
        }
    }
}
