//! The modules of `libtest` depend on one another one way only: no two of them (the parent
//! included) use each other, directly or around a loop. Read from the sources, so that a new
//! `use super::…` that closes a loop fails here with the loop named.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The parent module's name in the graph.
const PARENT: &str = "libtest";

/// Each module's source without comments and without its `#[cfg(test)]` part (tests may use
/// anything), by module name.
fn sources() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![(PARENT.to_owned(), root.join("libtest.rs"))];
    let folder = root.join("libtest");
    for entry in std::fs::read_dir(&folder).expect("src/libtest/ is readable") {
        let path = entry.expect("src/libtest/ lists").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if path.extension().is_some_and(|e| e == "rs") && name != "tests" {
            files.push((name.to_owned(), path.clone()));
        }
    }
    files
        .into_iter()
        .map(|(name, path)| {
            let text = std::fs::read_to_string(&path).expect("a module file is readable");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let lines = code.lines().filter(|l| !l.trim_start().starts_with("//"));
            (name, lines.collect::<Vec<_>>().join("\n"))
        })
        .collect()
}

/// Which modules each module uses: a child's `super::sibling` or `super::item` (the parent),
/// and the parent's `child::`.
fn uses(sources: &BTreeMap<String, String>) -> BTreeMap<&str, BTreeSet<&str>> {
    let names: Vec<&str> = sources.keys().map(String::as_str).collect();
    let mut graph = BTreeMap::new();
    for (module, code) in sources {
        let mut used = BTreeSet::new();
        if module == PARENT {
            let children = names.iter().filter(|n| **n != PARENT);
            used.extend(children.filter(|child| mentions(code, &format!("{child}::"))));
        } else {
            for (at, _) in code.match_indices("super::") {
                let rest = &code[at + "super::".len()..];
                let word: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let target = names.iter().find(|n| **n == word && **n != PARENT);
                used.insert(target.copied().unwrap_or(PARENT));
            }
        }
        used.remove(module.as_str());
        graph.insert(module.as_str(), used);
    }
    graph
}

/// Whether `code` has `path` at the start of a path (not as the end of a longer name).
fn mentions(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
    })
}

/// A loop in `graph`, as the modules around it, if there is one.
fn a_loop<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Option<Vec<&'a str>> {
    fn walk<'a>(
        graph: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        let here = *path.last()?;
        for next in graph.get(here).into_iter().flatten() {
            if let Some(at) = path.iter().position(|m| m == next) {
                let mut found = path[at..].to_vec();
                found.push(next);
                return Some(found);
            }
            if !done.contains(next) {
                path.push(next);
                if let Some(found) = walk(graph, path, done) {
                    return Some(found);
                }
                path.pop();
            }
        }
        done.insert(here);
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|start| walk(graph, &mut vec![*start], &mut done))
}

#[test]
fn the_modules_depend_one_way() {
    let sources = sources();
    let graph = uses(&sources);
    assert!(graph.len() > 5, "the modules were not found: {graph:?}");
    if let Some(found) = a_loop(&graph) {
        panic!(
            "libtest's modules use each other in a loop: {}; move what they share into the \
             module that owns it (graph: {graph:?})",
            found.join(" -> ")
        );
    }
}

#[test]
fn a_loop_is_found_and_named() {
    let graph = BTreeMap::from([
        ("a", BTreeSet::from(["b"])),
        ("b", BTreeSet::from(["c"])),
        ("c", BTreeSet::from(["b"])),
    ]);
    assert_eq!(a_loop(&graph), Some(vec!["b", "c", "b"]));
    let one_way = BTreeMap::from([("a", BTreeSet::from(["b"])), ("b", BTreeSet::new())]);
    assert_eq!(a_loop(&one_way), None);
}
