//! What a run will do, decided before any trial starts: which cases (built-in, skipped, extra),
//! which baseline, and what is wrong with the configuration.

use super::config::Resolved;
use crate::baseline::Baseline;
use crate::case::{CaseSource, builtin, discover};
use std::collections::BTreeSet;

/// One case the run knows about.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    /// The case file, not yet loaded.
    pub source: CaseSource,
    /// Skipped by the configuration: listed as ignored, runnable with `--ignored`.
    pub skipped: bool,
}

/// The cases, the baseline and the configuration's problems.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    /// Every case, sorted by id.
    pub cases: Vec<Planned>,
    /// The accepted deviations (empty without a baseline file).
    pub baseline: Baseline,
    /// Whether there is a baseline file: only then does the run get a trial that reports
    /// `baseline_problems` and the `[checks]` entries nothing used.
    pub has_baseline: bool,
    /// What is wrong with the baseline file, one line per entry.
    pub baseline_problems: Vec<String>,
    /// What is wrong with the rest of the configuration, one line each.
    pub problems: Vec<String>,
    /// Whether the configuration names anything to check (extra folders, skips, a baseline
    /// file); only then does the run get a trial that reports `problems`.
    pub checked: bool,
}

impl Plan {
    /// Plans the run `resolved` describes.
    pub(crate) fn new(resolved: &Resolved) -> Self {
        let mut plan = Plan::default();
        plan.add_builtin(&resolved.skip);
        for folder in &resolved.case_folders {
            plan.add_folder(&resolved.shown(folder), folder);
        }
        plan.cases.sort_by(|a, b| a.source.id.cmp(&b.source.id));
        plan.load_baseline(resolved);
        plan.checked = !resolved.skip.is_empty() || !resolved.case_folders.is_empty();
        plan
    }

    fn add_builtin(&mut self, patterns: &[String]) {
        let cases = builtin();
        for pattern in patterns {
            if !cases.iter().any(|case| skips(pattern, &case.id)) {
                self.problems.push(format!(
                    "skip `{pattern}` matches no built-in case: check the id or folder"
                ));
            }
        }
        self.cases.extend(cases.into_iter().map(|source| Planned {
            skipped: patterns.iter().any(|p| skips(p, &source.id)),
            source,
        }));
    }

    fn add_folder(&mut self, shown: &str, folder: &std::path::Path) {
        let sources = match discover(folder) {
            Ok(sources) => sources,
            Err(e) => return self.problems.push(format!("cases folder {shown}: {e}")),
        };
        let mut ids: BTreeSet<String> = self.cases.iter().map(|c| c.source.id.clone()).collect();
        for source in sources {
            if ids.insert(source.id.clone()) {
                self.cases.push(Planned {
                    source,
                    skipped: false,
                });
            } else {
                self.problems.push(format!(
                    "{} has the id `{}` of another case: rename it (ids must be unique)",
                    source.origin, source.id
                ));
            }
        }
    }

    fn load_baseline(&mut self, resolved: &Resolved) {
        let shown = resolved.shown(&resolved.baseline);
        let Some(loaded) = Baseline::load(&resolved.baseline, &shown, resolved.baseline_required)
        else {
            return;
        };
        self.has_baseline = true;
        self.baseline_problems = loaded.problems;
        let known = |id: &str| self.cases.iter().any(|c| c.source.id == id);
        for id in loaded.baseline.unknown(&known) {
            self.baseline_problems.push(format!(
                "{shown} lists `{id}`, which is no case: remove the entry"
            ));
        }
        self.baseline = loaded.baseline;
    }
}

/// Whether the skip `pattern` covers the case `id`: the id itself, or a folder above it
/// (`sse` and `sse/` both cover `sse/final-result`, and neither covers `sse-extra/x`).
pub(crate) fn skips(pattern: &str, id: &str) -> bool {
    let folder = pattern.trim_end_matches('/');
    id == pattern
        || (!folder.is_empty()
            && id
                .strip_prefix(folder)
                .is_some_and(|rest| rest.starts_with('/')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::libtest::{Caller, Config};
    use std::path::{Path, PathBuf};

    /// A fresh client crate folder with `files` (path, text) in it.
    fn client(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("mcp-error-layers-plan-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        root
    }

    fn plan(root: &Path, config: Config) -> Plan {
        let caller = Caller {
            manifest_dir: Box::leak(root.display().to_string().into_boxed_str()),
            package: "client",
            version: "0.0.0",
            assert_snapshot: |_, _| {},
        };
        Plan::new(&config.resolve(&caller))
    }

    #[test]
    fn the_defaults_plan_every_builtin_case_and_nothing_to_check() {
        let root = client("defaults", &[]);
        let plan = plan(&root, Config::new());
        assert_eq!(plan.cases.len(), builtin().len());
        assert!(plan.problems.is_empty() && !plan.checked);
        assert!(plan.cases.iter().all(|c| !c.skipped));
    }

    #[test]
    fn extra_folders_join_the_builtin_cases_and_clashing_ids_are_problems() {
        let case = "summary = \"x\"\n";
        let files = [
            ("cases/mine/a.toml", case),
            ("cases/sse/final-result.toml", case),
        ];
        let root = client("extra", &files);
        let plan = plan(&root, Config::new().cases("cases").cases("missing"));
        let ids: Vec<&str> = plan.cases.iter().map(|c| c.source.id.as_str()).collect();
        assert!(ids.contains(&"mine/a") && ids.is_sorted(), "{ids:?}");
        assert_eq!(ids.len(), builtin().len() + 1);
        assert_eq!(plan.problems.len(), 2, "{:?}", plan.problems);
        assert!(plan.problems[0].contains("has the id `sse/final-result` of another case"));
        assert!(plan.problems[1].starts_with("cases folder missing: cannot read"));
        assert!(plan.checked);
    }

    #[test]
    fn skips_mark_cases_and_a_skip_that_matches_nothing_is_a_problem() {
        let root = client("skip", &[]);
        let plan = plan(&root, Config::new().skip("sse").skip("nope/"));
        let skipped = plan.cases.iter().filter(|c| c.skipped);
        assert!(skipped.clone().count() > 0);
        assert!(skipped.clone().all(|c| c.source.id.starts_with("sse/")));
        assert_eq!(plan.problems.len(), 1);
        assert!(plan.problems[0].contains("skip `nope/` matches no built-in case"));
    }

    #[test]
    fn the_baseline_is_read_and_its_unknown_ids_are_problems() {
        let baseline = "[accepted]\n\"tool/success\" = \"r\"\n\"tool/typo\" = \"r\"\n";
        let root = client(
            "baseline",
            &[("tests/mcp-error-layers.baseline.toml", baseline)],
        );
        let plan = plan(&root, Config::new());
        assert_eq!(plan.baseline.reason("tool/success"), Some("r"));
        assert!(plan.has_baseline && !plan.checked && plan.problems.is_empty());
        assert_eq!(
            plan.baseline_problems,
            [
                "tests/mcp-error-layers.baseline.toml lists `tool/typo`, which is no case: \
                 remove the entry"
            ]
        );
    }

    #[test]
    fn skip_patterns_are_ids_or_whole_folders() {
        assert!(skips("sse/final-result", "sse/final-result"));
        assert!(skips("sse/", "sse/final-result"));
        assert!(skips("sse", "sse/final-result"));
        assert!(!skips("sse/final", "sse/final-result"));
        assert!(!skips("sse", "sse-extra/x"));
        assert!(!skips("/", "sse/x"));
        assert!(skips("transport/deep/", "transport/deep/er/x"));
    }
}
