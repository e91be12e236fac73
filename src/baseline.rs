//! The baseline: a TOML file in the client crate that lists accepted deviations, each with the
//! reason it is accepted for now.
//!
//! ```toml
//! [accepted]
//! "transport/http-404-method-not-found" = "we do not read error bodies of 4xx answers yet (#12)"
//! ```
//!
//! A listed case that does not pass is an accepted deviation: its test passes, with a note. A
//! listed case that passes fails, so that the entry is removed and the fix stays fixed.
//!
//! Request checks a client fails everywhere (it never sends `Mcp-Name`, say) are accepted by
//! name, for every case, in a second table:
//!
//! ```toml
//! [checks]
//! "name-header" = "the client does not send Mcp-Name yet (#31)"
//! ```

use std::collections::BTreeMap;
use std::path::Path;

/// The accepted deviations: case ids and request-check names, each with its reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    accepted: BTreeMap<String, String>,
    checks: BTreeMap<String, String>,
}

/// A baseline file as read: the entries that are sound, and a line for each that is not.
/// A bad entry loses only itself: the rest of the file still accepts what it lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The sound entries.
    pub baseline: Baseline,
    /// What is wrong, one line per entry or key, naming it and the fix.
    pub problems: Vec<String>,
}

impl Baseline {
    /// Reads `path` (`shown` names it in problems). A missing file is `None` unless
    /// `required`; an unreadable one is a problem.
    pub fn load(path: &Path, shown: &str, required: bool) -> Option<Loaded> {
        match crate::input::read_to_string(path, crate::input::Kind::Baseline) {
            Ok(text) => {
                let mut loaded = Baseline::parse(&text);
                for problem in &mut loaded.problems {
                    *problem = format!("{shown}: {problem}");
                }
                Some(loaded)
            }
            Err(e) if e.is_not_found() && !required => None,
            Err(e) => Some(Loaded {
                baseline: Baseline::default(),
                problems: vec![format!("cannot read the baseline {shown}: {}", e.why())],
            }),
        }
    }

    /// Parses the text of a baseline file, keeping every sound entry.
    pub fn parse(text: &str) -> Loaded {
        let mut loaded = Loaded::default();
        let table: toml::Table = match toml::from_str(text) {
            Ok(table) => table,
            Err(e) => {
                loaded.problems.push(one_line(text, &e));
                return loaded;
            }
        };
        for (key, value) in table {
            let entries = match key.as_str() {
                "accepted" => &mut loaded.baseline.accepted,
                "checks" => &mut loaded.baseline.checks,
                _ => {
                    loaded.problems.push(format!(
                        "unknown table `[{key}]`: a baseline has `[accepted]` (case ids) and \
                         `[checks]` (request check names)"
                    ));
                    continue;
                }
            };
            read_table(&key, value, entries, &mut loaded.problems);
        }
        loaded
            .problems
            .extend(unknown_checks(&mut loaded.baseline.checks));
        loaded
    }

    /// Why `id` may deviate, if it is listed.
    pub fn reason(&self, id: &str) -> Option<&str> {
        self.accepted.get(id).map(String::as_str)
    }

    /// Why the request check `name` may fail, if it is listed.
    pub fn check_reason(&self, name: &str) -> Option<&str> {
        self.checks.get(name).map(String::as_str)
    }

    /// Listed ids for which `known` is false (typos, removed cases).
    pub fn unknown<'a>(&'a self, known: &dyn Fn(&str) -> bool) -> Vec<&'a str> {
        let ids = self.accepted.keys().map(String::as_str);
        ids.filter(|id| !known(id)).collect()
    }

    /// The `[checks]` entries for which `failed` is false: no case of the run failed that
    /// check, so the entry accepts nothing and should go.
    pub fn unused_checks<'a>(&'a self, failed: &dyn Fn(&str) -> bool) -> Vec<&'a str> {
        let names = self.checks.keys().map(String::as_str);
        names.filter(|name| !failed(name)).collect()
    }

    /// Whether the baseline lists nothing.
    pub fn is_empty(&self) -> bool {
        self.accepted.is_empty() && self.checks.is_empty()
    }
}

/// Reads one table's `"key" = "reason"` entries into `entries`; anything else is a problem.
fn read_table(
    table: &str,
    value: toml::Value,
    entries: &mut BTreeMap<String, String>,
    problems: &mut Vec<String>,
) {
    let toml::Value::Table(items) = value else {
        return problems.push(format!(
            "`{table}` must be a table: write `[{table}]` and one `\"name\" = \"reason\"` per line"
        ));
    };
    for (key, value) in items {
        match value {
            toml::Value::String(why) if !why.trim().is_empty() => {
                entries.insert(key, why);
            }
            toml::Value::String(_) => problems.push(format!(
                "[{table}] `{key}` has no reason: say why the deviation is accepted"
            )),
            other => problems.push(format!(
                "[{table}] `{key}` is a {}, not a reason: write `\"{key}\" = \"why it is accepted\"`",
                other.type_str()
            )),
        }
    }
}

/// Removes the `[checks]` entries that name no request check, saying so for each.
fn unknown_checks(checks: &mut BTreeMap<String, String>) -> Vec<String> {
    let names = crate::checks::NAMES;
    let unknown: Vec<String> = checks
        .keys()
        .filter(|n| !names.contains(&n.as_str()))
        .cloned()
        .collect();
    unknown
        .into_iter()
        .map(|name| {
            checks.remove(&name);
            format!(
                "[checks] lists `{name}`, which is no request check; the checks are: {}",
                names.join(", ")
            )
        })
        .collect()
}

/// toml's message with the line it points at, on one line (its own rendering spans several).
fn one_line(text: &str, error: &toml::de::Error) -> String {
    let message = error.message().trim().trim_end_matches('.');
    match error.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            format!("{message} (line {})", before.matches('\n').count() + 1)
        }
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sound(text: &str) -> Baseline {
        let loaded = Baseline::parse(text);
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        loaded.baseline
    }

    fn problems(text: &str) -> Vec<String> {
        Baseline::parse(text).problems
    }

    #[test]
    fn reads_ids_and_reasons() {
        let baseline =
            sound("[accepted]\n\"sse/keepalive-forever\" = \"no read timeout yet (#4)\"\n");
        assert_eq!(
            baseline.reason("sse/keepalive-forever"),
            Some("no read timeout yet (#4)")
        );
        assert_eq!(baseline.reason("tool/success"), None);
        assert_eq!(sound(""), Baseline::default());
        let checks = sound("[checks]\n\"name-header\" = \"not yet\"\n");
        assert_eq!(checks.check_reason("name-header"), Some("not yet"));
    }

    #[test]
    fn each_bad_entry_is_named_and_the_sound_ones_stay() {
        let text = "[accept]\n\"a\" = \"b\"\n[accepted]\n\"x/empty\" = \" \"\n\"x/number\" = 1\n\
                    \"x/kept\" = \"r\"\n[checks]\n\"no-such-check\" = \"r\"\n\"name-header\" = \"r\"\n";
        let loaded = Baseline::parse(text);
        assert_eq!(loaded.baseline.reason("x/kept"), Some("r"));
        assert_eq!(loaded.baseline.check_reason("name-header"), Some("r"));
        assert_eq!(loaded.baseline.reason("x/empty"), None);
        let all = loaded.problems.join("\n");
        assert_eq!(loaded.problems.len(), 4, "{all}");
        assert!(all.contains("unknown table `[accept]`"), "{all}");
        assert!(all.contains("[accepted] `x/empty` has no reason"), "{all}");
        assert!(
            all.contains("[accepted] `x/number` is a integer, not a reason"),
            "{all}"
        );
        assert!(
            all.contains("`no-such-check`, which is no request check"),
            "{all}"
        );
    }

    #[test]
    fn a_file_that_is_no_toml_is_one_problem_with_its_line() {
        let found = problems("[accepted]\n\"a\" = \n");
        assert_eq!(found.len(), 1);
        assert!(found[0].contains("(line 2)"), "{found:?}");
        assert_eq!(problems("accepted = 3\n").len(), 1);
    }

    #[test]
    fn names_ids_that_are_no_case_and_checks_nothing_failed() {
        let baseline = sound(
            "[accepted]\n\"x/typo\" = \"r\"\n\"x/real\" = \"r\"\n\
             [checks]\n\"name-header\" = \"r\"\n\"accept-header\" = \"r\"\n",
        );
        assert_eq!(baseline.unknown(&|id| id == "x/real"), ["x/typo"]);
        assert_eq!(
            baseline.unused_checks(&|n| n == "name-header"),
            ["accept-header"]
        );
    }

    #[test]
    fn a_missing_default_file_is_empty_and_a_named_one_is_a_problem() {
        let missing = Path::new("/nonexistent/mcp-error-layers.baseline.toml");
        assert_eq!(Baseline::load(missing, "b.toml", false), None);
        let loaded = Baseline::load(missing, "b.toml", true).unwrap();
        assert!(
            loaded.problems[0].starts_with("cannot read the baseline b.toml"),
            "{:?}",
            loaded.problems
        );
    }

    /// `/dev/zero` and a FIFO nobody writes are problems naming what they are, within 10 s,
    /// even when the baseline is optional: they exist.
    #[test]
    fn a_baseline_of_dev_zero_or_a_fifo_is_a_problem_naming_its_type() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("baseline.toml");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        for (path, what) in [
            (fifo, "is a FIFO, not a regular file"),
            (
                std::path::PathBuf::from("/dev/zero"),
                "is a character device, not a regular file",
            ),
        ] {
            let (send, receive) = std::sync::mpsc::channel();
            std::thread::spawn(move || send.send(Baseline::load(&path, "b.toml", false)));
            let loaded = receive
                .recv_timeout(std::time::Duration::from_secs(10))
                .expect("the baseline is read within 10 s")
                .expect("a file that exists is read");
            assert!(loaded.problems[0].contains(what), "{:?}", loaded.problems);
        }
    }
}
