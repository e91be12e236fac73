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

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The accepted deviations, by case id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Baseline {
    accepted: BTreeMap<String, String>,
    checks: BTreeMap<String, String>,
}

/// The file's shape: one table, so that later keys can join it without ambiguity.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    #[serde(default)]
    accepted: BTreeMap<String, String>,
    #[serde(default)]
    checks: BTreeMap<String, String>,
}

impl Baseline {
    /// Reads `path`. A missing file is an empty baseline unless `required`.
    pub(crate) fn load(path: &Path, shown: &str, required: bool) -> Result<Option<Self>, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Baseline::parse(&text)
                .map(Some)
                .map_err(|e| format!("{shown}: {e}")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(None),
            Err(e) => Err(format!("cannot read the baseline {shown}: {e}")),
        }
    }

    /// Parses the text of a baseline file.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let file: BaselineFile = toml::from_str(text).map_err(|e| one_line(text, &e))?;
        let entries = file.accepted.iter().chain(&file.checks);
        if let Some((id, _)) = entries.clone().find(|(_, why)| why.trim().is_empty()) {
            return Err(format!(
                "`{id}` has no reason: say why the deviation is accepted"
            ));
        }
        if let Some(name) = file
            .checks
            .keys()
            .find(|n| !crate::checks::NAMES.contains(&n.as_str()))
        {
            return Err(format!(
                "[checks] lists `{name}`, which is no request check; the checks are: {}",
                crate::checks::NAMES.join(", ")
            ));
        }
        Ok(Baseline {
            accepted: file.accepted,
            checks: file.checks,
        })
    }

    /// Why `id` may deviate, if it is listed.
    pub(crate) fn reason(&self, id: &str) -> Option<&str> {
        self.accepted.get(id).map(String::as_str)
    }

    /// Why the request check `name` may fail, if it is listed.
    pub(crate) fn check_reason(&self, name: &str) -> Option<&str> {
        self.checks.get(name).map(String::as_str)
    }

    /// Listed ids for which `known` is false (typos, removed cases).
    pub(crate) fn unknown<'a>(&'a self, known: &dyn Fn(&str) -> bool) -> Vec<&'a str> {
        let ids = self.accepted.keys().map(String::as_str);
        ids.filter(|id| !known(id)).collect()
    }
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

    #[test]
    fn reads_ids_and_reasons() {
        let baseline = Baseline::parse(
            "[accepted]\n\"sse/keepalive-forever\" = \"no read timeout yet (#4)\"\n",
        )
        .unwrap();
        assert_eq!(
            baseline.reason("sse/keepalive-forever"),
            Some("no read timeout yet (#4)")
        );
        assert_eq!(baseline.reason("tool/success"), None);
        assert_eq!(Baseline::parse("").unwrap(), Baseline::default());
    }

    #[test]
    fn rejects_unknown_keys_empty_reasons_and_non_strings() {
        assert!(
            Baseline::parse("[accept]\n\"a\" = \"b\"\n")
                .unwrap_err()
                .contains("unknown field `accept`")
        );
        assert!(
            Baseline::parse("[accepted]\n\"a\" = \" \"\n")
                .unwrap_err()
                .contains("`a` has no reason")
        );
        assert!(Baseline::parse("[accepted]\n\"a\" = 1\n").is_err());
        assert!(
            Baseline::parse("[checks]\n\"no-such-check\" = \"r\"\n")
                .unwrap_err()
                .contains("`no-such-check`, which is no request check")
        );
        let checks = Baseline::parse("[checks]\n\"name-header\" = \"not yet\"\n").unwrap();
        assert_eq!(checks.check_reason("name-header"), Some("not yet"));
    }

    #[test]
    fn names_ids_that_are_no_case() {
        let baseline =
            Baseline::parse("[accepted]\n\"x/typo\" = \"r\"\n\"x/real\" = \"r\"\n").unwrap();
        assert_eq!(baseline.unknown(&|id| id == "x/real"), ["x/typo"]);
    }

    #[test]
    fn a_missing_default_file_is_empty_and_a_named_one_is_an_error() {
        let missing = Path::new("/nonexistent/mcp-error-layers.baseline.toml");
        assert_eq!(Baseline::load(missing, "b.toml", false), Ok(None));
        let error = Baseline::load(missing, "b.toml", true).unwrap_err();
        assert!(
            error.starts_with("cannot read the baseline b.toml"),
            "{error}"
        );
    }
}
