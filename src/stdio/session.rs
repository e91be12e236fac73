//! The session file a stdio server is started with, and the command line an adapter is given.

use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The environment variable that names the program to start as the stdio server, for a runner
/// whose own executable cannot serve (docs/stdio.md, "Which program serves").
pub const PROGRAM_VAR: &str = "MCP_ERROR_LAYERS_STDIO_SERVER";

/// What a stdio server process needs to know: where its wire server listens. Written by the
/// runner into a folder of its own per case run; read once at the process's start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Session {
    /// The format's version: 1.
    pub version: u32,
    /// The case's wire server (always a loopback address).
    pub wire: SocketAddr,
}

impl Session {
    /// The session for the wire server at `wire`.
    pub fn new(wire: SocketAddr) -> Self {
        Session { version: 1, wire }
    }

    /// Reads a session file, naming the file and what is wrong.
    pub fn read(path: &Path) -> Result<Session, String> {
        let shown = path.display();
        let text = crate::input::read_to_string(path, crate::input::Kind::Session)
            .map_err(|e| e.to_string())?;
        let session: Session =
            serde_json::from_str(&text).map_err(|e| format!("{shown}: not a session file: {e}"))?;
        if session.version != 1 || !session.wire.ip().is_loopback() {
            let msg = "version 1 and a loopback `wire` address are expected";
            return Err(format!("{shown}: {msg}"));
        }
        Ok(session)
    }
}

/// The stdio server's command line for one case run: a folder of its own holding the session
/// file, removed when this is dropped.
///
/// The folder is private: a random name under the temporary folder made by an exclusive create,
/// mode 0700, and the session file in it created new (mode 0600) without following a link; so
/// nothing another user planted there is overwritten or read as the session (issue 44).
#[derive(Debug)]
pub struct StdioCommand {
    dir: PathBuf,
    argv: Vec<String>,
}

impl StdioCommand {
    /// Writes the session for `wire` into a new folder under the temporary directory
    /// (`$TMPDIR/mcp-error-layers-stdio-PID-<random>/session.json`, PID this process's, so
    /// that its servers can be told by their command line) and names `program` to serve it:
    /// `PROGRAM stdio-server --session FILE`.
    pub fn create(program: &Path, wire: SocketAddr) -> std::io::Result<StdioCommand> {
        let dir = crate::fresh::folder(&format!("mcp-error-layers-stdio-{}-", std::process::id()))?;
        let file = dir.path().join("session.json");
        let text = serde_json::to_string(&Session::new(wire)).map_err(std::io::Error::other)?;
        crate::fresh::create_file(&file, text.as_bytes())
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", file.display())))?;
        let argv = vec![
            program.display().to_string(),
            "stdio-server".to_owned(),
            "--session".to_owned(),
            file.display().to_string(),
        ];
        // From here on the folder is removed by `StdioCommand`'s own `Drop`.
        Ok(StdioCommand {
            dir: dir.keep(),
            argv,
        })
    }

    /// The command line, program first.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The session file's path: a process whose command line holds it serves this case run.
    pub fn session_file(&self) -> &str {
        &self.argv[3]
    }

    /// The folder that holds the session file (removed when this is dropped).
    pub fn folder(&self) -> &Path {
        &self.dir
    }
}

impl Drop for StdioCommand {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What `stdio-server --probe` prints: the program serves stdio cases.
pub const PROBE_REPLY: &str = "mcp-error-layers stdio-server 1";

/// How long the probe of this executable may take.
const PROBE_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// The program that serves stdio cases for this process: [`PROGRAM_VAR`] when set, else this
/// very executable if it answers `stdio-server --probe` (the command line and every `main!`
/// test binary do; probed once per process). `Err` says what to do instead.
pub fn program() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(PROGRAM_VAR).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    static OWN: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        match probe(&exe) {
            true => Ok(exe),
            false => Err(format!(
                "{} cannot serve stdio cases: call `mcp_error_layers::stdio::intercept()` first \
                 in its `main` (`main!` does), or name a program that can in {PROGRAM_VAR} \
                 (the `mcp-error-layers` command line)",
                exe.display()
            )),
        }
    })
    .clone()
}

/// Whether `exe stdio-server --probe` says it serves, within [`PROBE_WITHIN`].
fn probe(exe: &Path) -> bool {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new(exe)
        .args(["stdio-server", "--probe"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let until = std::time::Instant::now() + PROBE_WITHIN;
    while matches!(child.try_wait(), Ok(None)) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    let mut said = String::new();
    if let Some(out) = child.stdout.as_mut() {
        let _ = out.take(256).read_to_string(&mut said);
    }
    said.lines().next() == Some(PROBE_REPLY)
}
