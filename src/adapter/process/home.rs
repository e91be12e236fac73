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
///
/// Private: a random name under the temporary folder made by an exclusive create, mode 0700
/// (never a folder that already exists, whoever planted it), its sub-folders mode 0700 too, and
/// every file [`Home::write`] puts in it created exclusively without following a link. So a
/// link or folder another user plants in the temporary folder never receives a row's config
/// or hosts its program (issue 44).
#[derive(Debug)]
pub struct Home(
    /// The home's path.
    pub PathBuf,
);

impl Home {
    /// A new home for a program of `kind` (`agent`, `bridge`) serving the client `client`:
    /// `$TMPDIR/mcp-error-layers-KIND-PID-CLIENT-<random>`.
    pub fn new(kind: &str, client: u64) -> std::io::Result<Home> {
        let pid = std::process::id();
        let dir = crate::fresh::folder(&format!("mcp-error-layers-{kind}-{pid}-{client}-"))?;
        for sub in ["work", "tmp"] {
            crate::fresh::subfolders(dir.path(), Path::new(sub)).map_err(std::io::Error::other)?;
        }
        // From here on the home is removed by `Home`'s own `Drop`.
        Ok(Home(dir.keep()))
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
    /// Writes `files` under the home, each text filled by `fill`: each folder on the way made
    /// mode 0700 one at a time, each file created new (mode 0600) without following a link.
    /// `Err` names the file's key and path when a link or a file is already there (nothing but
    /// the harness should have written into the home before its program starts).
    pub fn write(&self, files: &[ConfigFile], fill: impl Fn(&str) -> String) -> Result<(), String> {
        for file in files {
            file.check()?;
            let rel = Path::new(&file.path);
            let named = |e: String| format!("`file.path = {:?}`: {e}", file.path);
            let folder = match rel.parent() {
                Some(parent) => crate::fresh::subfolders(&self.0, parent).map_err(named)?,
                None => self.0.clone(),
            };
            let Some(name) = rel.file_name() else {
                return Err(named("names no file".to_owned()));
            };
            let path = folder.join(name);
            crate::fresh::create_file(&path, fill(&file.text).as_bytes()).map_err(|e| {
                named(format!(
                    "cannot write {}: {e} (the harness creates each file new and never \
                     through a link: two `[[file]]`s with one path, or something else wrote \
                     there first)",
                    path.display()
                ))
            })?;
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
