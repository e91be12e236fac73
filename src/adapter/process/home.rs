//! A fresh home for a program the harness starts as a user would (an agent, a bridge): its own
//! folder, removed when dropped, and an environment with nothing of the machine's but `PATH`,
//! the locale and the time zone, so that no config or credential of the machine leaks in.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A config file a program reads, written under its fresh home (an agent's settings, a
/// gateway's server list).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Its path under the home (`.codex/config.toml`).
    pub path: String,
    /// Its text (a template).
    pub text: String,
}

impl ConfigFile {
    /// `Err` naming the key and the fix unless its path stays under the home.
    pub fn check(&self) -> Result<(), String> {
        let path = Path::new(&self.path);
        let inside = path.is_relative()
            && path
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
        match inside {
            true => Ok(()),
            false => Err(format!(
                "`file.path = {:?}`: a relative path under the home, without `..`",
                self.path
            )),
        }
    }
}

/// A fresh home folder (with `work` and `tmp` inside), removed when dropped.
#[derive(Debug)]
pub struct Home(pub PathBuf);

impl Home {
    /// A new home named after `kind` (`agent`, `bridge`) and the client it serves.
    pub fn new(kind: &str, client: u64) -> std::io::Result<Home> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!(
            "mcp-error-layers-{kind}-{}-{client}-{n}",
            std::process::id()
        );
        let path = std::env::temp_dir().join(name);
        std::fs::create_dir_all(path.join("work"))?;
        std::fs::create_dir_all(path.join("tmp"))?;
        Ok(Home(path))
    }

    /// The whole environment of a program run in this home: `PATH`, the locale and the time
    /// zone of this process, the home and XDG folders inside it, no colour, no terminal.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = ["PATH", "LANG", "LC_ALL", "TZ"]
            .into_iter()
            .filter_map(|key| Some((key.to_owned(), std::env::var(key).ok()?)))
            .collect();
        let at = |sub: &str| shown(&self.0.join(sub));
        env.extend([
            ("HOME".to_owned(), shown(&self.0)),
            ("USERPROFILE".to_owned(), shown(&self.0)),
            ("XDG_CONFIG_HOME".to_owned(), at(".config")),
            ("XDG_DATA_HOME".to_owned(), at(".local/share")),
            ("XDG_STATE_HOME".to_owned(), at(".local/state")),
            ("XDG_CACHE_HOME".to_owned(), at(".cache")),
            ("TMPDIR".to_owned(), at("tmp")),
            ("TERM".to_owned(), "dumb".to_owned()),
            ("NO_COLOR".to_owned(), "1".to_owned()),
            ("CI".to_owned(), "1".to_owned()),
        ]);
        env
    }
}

impl Home {
    /// Writes `files` under the home, each text filled by `fill`.
    pub fn write(&self, files: &[ConfigFile], fill: impl Fn(&str) -> String) -> Result<(), String> {
        for file in files {
            let path = self.0.join(&file.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, fill(&file.text))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(())
    }
}

fn shown(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
