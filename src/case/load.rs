//! Finding case files and turning their text into validated cases.
//!
//! Discovery and loading are separate on purpose: discovery names every case (so each becomes a
//! test), loading happens per case (so a broken file fails that case, not the run).

use super::model::CaseFile;
use super::validate::validate;
use include_dir::{Dir, include_dir};
use std::fmt;
use std::path::{Path, PathBuf};

static BUILTIN: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/cases");

/// Why a case file that is not UTF-8 does not load.
const NOT_UTF8: &str = "the file is not UTF-8 text: save it as UTF-8";

/// A case file found on disk or compiled in, not yet parsed.
#[derive(Debug, Clone)]
pub struct CaseSource {
    /// The case id: its path under the cases folder without `.toml`, `/`-separated.
    pub id: String,
    /// Where it came from, for messages (`cases/sse/final-result.toml`).
    pub origin: String,
    /// Its text, or why it could not be read.
    pub text: Result<String, String>,
}

/// A loaded, validated case.
#[derive(Debug, Clone)]
pub struct Case {
    /// The case id (`jsonrpc/invalid-params`).
    pub id: String,
    /// Where it came from.
    pub origin: String,
    /// The validated contents; JSON texts are compact.
    pub file: CaseFile,
}

/// A case file that does not load: the file, the key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LoadError {
    /// The file.
    pub origin: String,
    /// The key path inside it (`call[0].reply[1].json`), when one is to blame.
    pub key: Option<String>,
    /// What is wrong and, where it helps, how to fix it.
    pub message: String,
}

/// One line, whatever the file holds: a key or value quoted in the message may carry line
/// breaks and other control characters, shown escaped (`\n`, `\u{0}`).
impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = |text: &str| -> String {
            let shown = |c: char| {
                if c.is_control() {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            };
            text.chars().map(shown).collect()
        };
        let (origin, message) = (line(&self.origin), line(&self.message));
        match &self.key {
            Some(key) => write!(f, "{origin}: key `{}`: {message}", line(key)),
            None => write!(f, "{origin}: {message}"),
        }
    }
}

/// A cases folder that cannot be used at all.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// The folder or one of its subfolders cannot be read.
    #[error("cannot read cases folder {path}: {source}")]
    Unreadable {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A symbolic link leads back to a folder that contains it: following it would never end.
    #[error(
        "symbolic link {link} leads back to {target}, a folder that contains it: remove the link"
    )]
    Cycle {
        /// The link.
        link: PathBuf,
        /// The folder it resolves to.
        target: PathBuf,
    },
    /// The folder holds no `.toml` file.
    #[error("no case files (*.toml) found under {0}")]
    Empty(PathBuf),
}

/// The built-in cases, compiled into the library, sorted by id.
pub fn builtin() -> Vec<CaseSource> {
    let mut sources = Vec::new();
    collect_builtin(&BUILTIN, &mut sources);
    sources.sort_by(|a, b| a.id.cmp(&b.id));
    sources
}

fn collect_builtin(dir: &Dir<'static>, out: &mut Vec<CaseSource>) {
    for file in dir.files() {
        if let Some(id) = case_id(file.path()) {
            let text = file.contents_utf8().map(str::to_owned);
            out.push(CaseSource {
                origin: format!("cases/{}", slashed(file.path())),
                id,
                text: text.ok_or_else(|| NOT_UTF8.to_owned()),
            });
        }
    }
    for sub in dir.dirs() {
        collect_builtin(sub, out);
    }
}

/// The case files under `root`, sorted by id. Ids are paths relative to `root`.
pub fn discover(root: &Path) -> Result<Vec<CaseSource>, DiscoverError> {
    let mut sources = Vec::new();
    let mut walk_state = Walk::default();
    walk_state.dir(root, root, &mut sources)?;
    if sources.is_empty() {
        return Err(DiscoverError::Empty(root.to_owned()));
    }
    sources.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(sources)
}

/// The folders a discovery has entered, by their real (canonical) path: each real folder is read
/// once, however many links lead to it, and a link to a folder on the current path is a cycle.
#[derive(Default)]
struct Walk {
    visited: std::collections::HashSet<PathBuf>,
    ancestors: Vec<PathBuf>,
}

impl Walk {
    fn dir(
        &mut self,
        root: &Path,
        dir: &Path,
        out: &mut Vec<CaseSource>,
    ) -> Result<(), DiscoverError> {
        let unreadable = |source| DiscoverError::Unreadable {
            path: dir.to_owned(),
            source,
        };
        let real = std::fs::canonicalize(dir).map_err(unreadable)?;
        if self.ancestors.contains(&real) {
            return Err(DiscoverError::Cycle {
                link: dir.to_owned(),
                target: real,
            });
        }
        if !self.visited.insert(real.clone()) {
            return Ok(()); // another link to a folder already read
        }
        self.ancestors.push(real);
        for entry in std::fs::read_dir(dir).map_err(unreadable)? {
            let path = entry.map_err(unreadable)?.path();
            if path.is_dir() {
                self.dir(root, &path, out)?;
            } else if let Some(id) = path.strip_prefix(root).ok().and_then(case_id) {
                // A file that cannot be read (a FIFO, a link to a device, too large) fails its
                // case only, with the reader's words: the file's type or the bound.
                let text = crate::input::read_to_string(&path, crate::input::Kind::Case)
                    .map_err(|e| e.why());
                out.push(CaseSource {
                    id,
                    origin: path.display().to_string(),
                    text,
                });
            }
        }
        self.ancestors.pop();
        Ok(())
    }
}

/// `sse/final-result.toml` → `sse/final-result`; anything but `.toml` → `None`.
fn case_id(relative: &Path) -> Option<String> {
    if relative.extension()? != "toml" {
        return None;
    }
    Some(slashed(&relative.with_extension("")))
}

fn slashed(path: &Path) -> String {
    let parts: Vec<_> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    parts.join("/")
}

impl CaseSource {
    /// Parses and validates the case.
    pub fn load(&self) -> Result<Case, LoadError> {
        let text = self
            .text
            .as_deref()
            .map_err(|why| self.error(None, why.to_owned()))?;
        let mut file = parse(text).map_err(|(key, message)| self.error(key, message))?;
        validate(&mut file)
            .and_then(|()| super::tasks::validate(&mut file))
            .map_err(|(key, message)| self.error(Some(key), message))?;
        Ok(Case {
            id: self.id.clone(),
            origin: self.origin.clone(),
            file,
        })
    }

    fn error(&self, key: Option<String>, message: String) -> LoadError {
        LoadError {
            origin: self.origin.clone(),
            key,
            message,
        }
    }
}

/// TOML text → model, with the failing key's path when serde knows it.
fn parse(text: &str) -> Result<CaseFile, (Option<String>, String)> {
    let blank_or_comment = |line: &str| line.trim().is_empty() || line.trim().starts_with('#');
    if text.lines().all(blank_or_comment) {
        let msg = "the file has no keys: a case needs `summary` and at least one [[call]]";
        return Err((None, msg.into()));
    }
    let deserializer = toml::Deserializer::parse(text).map_err(|e| (None, located(text, &e)))?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let path = e.path().to_string();
        let key = (path != ".").then_some(path);
        (key, located(text, e.inner()))
    })
}

/// toml's own rendering spans several lines; a case error is one line, so give the message
/// (with the key it is about, where toml leaves it out) and the line:column it points at.
fn located(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().trim_end_matches('.');
    let message = match suggestion(message) {
        Some(near) => format!("{message}; did you mean `{near}`?"),
        None => message.to_owned(),
    };
    let Some(span) = error.span() else {
        return match too_deep_line(text) {
            Some(line) if message == "recursion limit" => format!(
                "a dotted key has more than {MAX_KEY_PARTS} parts; the TOML parser takes \
                 at most {MAX_KEY_PARTS}: nest less deeply (line {line})"
            ),
            _ => message,
        };
    };
    let message = match text.get(span.clone()) {
        Some(key) if message == "duplicate key" => {
            format!(
                "duplicate key `{}`: set each key once, remove one of them",
                key.trim()
            )
        }
        _ if message.starts_with("cannot recurse further") => {
            "arrays or tables nested deeper than the TOML parser takes: nest less deeply".into()
        }
        _ => message,
    };
    let before = text.get(..span.start).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{message} (line {line}, column {column})")
}

/// The most parts a dotted key may have before the TOML parser stops with "recursion limit"
/// (its own bound, which it reports without a place).
const MAX_KEY_PARTS: usize = 80;

/// The first line whose key (before `=`) or table header has more than [`MAX_KEY_PARTS`]
/// dot-separated parts, counting dots outside quotes.
fn too_deep_line(text: &str) -> Option<usize> {
    let parts = |line: &str| {
        let mut quote = None;
        let mut dots = 0;
        for c in line.chars() {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '.') => dots += 1,
                (None, '=' | ']' | '#') => break,
                _ => {}
            }
        }
        dots + 1
    };
    (1..)
        .zip(text.lines())
        .find(|(_, line)| parts(line) > MAX_KEY_PARTS)
        .map(|(n, _)| n)
}

/// For "unknown field `x`, expected one of `a`, `b`": the expected name `x` was most likely
/// meant to be, when one is close (the same but for case, `_` and `-`, or two edits away).
fn suggestion(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    let (unknown, expected) = rest.split_once('`')?;
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let names = expected.split('`').skip(1).step_by(2);
    names
        .map(|name| (edits(&fold(unknown), &fold(name)), name))
        .filter(|&(distance, name)| distance == 0 || (distance <= 2 && name.len() > 4))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, name)| name)
}

/// The Levenshtein distance between two short names.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substituted = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substituted.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}
