//! The modules under `src/` depend on one another one way: at every level of the module tree,
//! no two sibling modules (each with everything under it) use each other, directly or around a
//! loop. A parent using its children, and a child using its parent's items, are how a module is
//! built and are not counted. Read from the sources, so that a new `use` that closes a loop fails
//! here with the loop named, and the fix is the one the issue asked for: move what the two share
//! into the module that owns it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module by its path from the crate root: `[]` is `lib.rs`, `["report", "json"]` is
/// `src/report/json.rs`.
type ModPath = Vec<String>;

/// Every module's code without comment lines and without its `#[cfg(test)]` part (tests may use
/// anything), by module path; a `tests.rs` file is a test module and left out.
fn sources() -> BTreeMap<ModPath, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = BTreeMap::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a source folder is readable") {
            let path = entry.expect("a source folder lists").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            if path.extension().is_none_or(|e| e != "rs") || stem == "tests" {
                continue;
            }
            let relative = path
                .strip_prefix(&root)
                .expect("under src/")
                .with_extension("");
            let mut module: ModPath = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if module == ["lib"] {
                module.clear();
            }
            let text = std::fs::read_to_string(&path).expect("a module file is readable");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let lines = code.lines().filter(|l| !l.trim_start().starts_with("//"));
            found.insert(module, lines.collect::<Vec<_>>().join("\n"));
        }
    }
    found
}

/// The identifiers of a path that starts at `text` (`a::b::{c, d::e}` gives `[a, b]` and, for
/// a group, each member's path after it), as whole paths.
fn paths_at(text: &str) -> Vec<Vec<String>> {
    let mut prefix = Vec::new();
    let mut rest = text;
    loop {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if word.is_empty() {
            if let Some(group) = rest.strip_prefix('{') {
                return group_members(group)
                    .into_iter()
                    .flat_map(|member| paths_at(member.trim()))
                    .map(|tail| prefix.iter().cloned().chain(tail).collect())
                    .collect();
            }
            return vec![prefix];
        }
        rest = &rest[word.len()..];
        prefix.push(word);
        match rest.strip_prefix("::") {
            Some(more) => rest = more,
            None => return vec![prefix],
        }
    }
}

/// The members of a `{...}` group whose text starts after the `{`: split at the commas of its
/// own depth, up to its `}`.
fn group_members(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut members) = (0usize, 0, Vec::new());
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                members.push(&group[start..at]);
                return members;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                members.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    members
}

/// Whether `at` in `code` starts a path (not the end of a longer name or path).
fn starts_path(code: &str, at: usize) -> bool {
    let before = code[..at].chars().next_back();
    !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
}

/// The module paths `code` (of module `module`) names: `crate::…`, `super::…` (any number),
/// `self::…`, and its children by name (`child::…`).
fn named(module: &ModPath, code: &str, children: &[String]) -> Vec<ModPath> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if starts_path(code, at) {
            out.extend(paths_at(&code[at + "crate::".len()..]));
        }
    }
    for (at, _) in code.match_indices("super::") {
        if !starts_path(code, at) {
            continue;
        }
        let mut rest = &code[at..];
        let mut base = module.clone();
        while let Some(more) = rest.strip_prefix("super::") {
            base.pop();
            rest = more;
        }
        out.extend(
            paths_at(rest)
                .into_iter()
                .map(|tail| [base.clone(), tail].concat()),
        );
    }
    for child in children {
        let head = format!("{child}::");
        for (at, _) in code.match_indices(&head) {
            if starts_path(code, at) {
                let tail = paths_at(&code[at..]);
                out.extend(tail.into_iter().map(|t| [module.clone(), t].concat()));
            }
        }
    }
    out
}

/// The module a path names: its longest prefix that is a module file.
fn resolve(path: &ModPath, modules: &BTreeSet<ModPath>) -> Option<ModPath> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains(prefix))
}

/// Which module uses which (file to file).
fn uses(sources: &BTreeMap<ModPath, String>) -> BTreeSet<(ModPath, ModPath)> {
    let modules: BTreeSet<ModPath> = sources.keys().cloned().collect();
    let mut edges = BTreeSet::new();
    for (module, code) in sources {
        let children: Vec<String> = modules
            .iter()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m[module.len()].clone())
            .collect();
        for path in named(module, code, &children) {
            if let Some(target) = resolve(&path, &modules) {
                if &target != module {
                    edges.insert((module.clone(), target));
                }
            }
        }
    }
    edges
}

/// Per parent module, the graph of its children: A -> B when something under A uses something
/// under B.
fn sibling_graphs(
    edges: &BTreeSet<(ModPath, ModPath)>,
) -> BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> {
    let mut graphs: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, to) in edges {
        // The deepest module both are strictly under: there they are two different children.
        let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if common >= from.len() || common >= to.len() {
            continue; // one is under the other: a parent and its own descendant
        }
        let parent = from[..common].to_vec();
        let graph = graphs.entry(parent).or_default();
        graph
            .entry(from[common].clone())
            .or_default()
            .insert(to[common].clone());
    }
    graphs
}

/// A loop in `graph`, as the modules around it, if there is one.
fn a_loop(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        let here = path.last()?.clone();
        for next in graph.get(&here).into_iter().flatten() {
            if let Some(at) = path.iter().position(|m| m == next) {
                let mut found = path[at..].to_vec();
                found.push(next.clone());
                return Some(found);
            }
            if !done.contains(next) {
                path.push(next.clone());
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
        .find_map(|start| walk(graph, &mut vec![start.clone()], &mut done))
}

#[test]
fn no_two_modules_of_src_use_each_other_around_a_loop() {
    let sources = sources();
    assert!(
        sources.len() > 40,
        "the modules were not found: {}",
        sources.len()
    );
    let edges = uses(&sources);
    let graphs = sibling_graphs(&edges);
    assert!(
        graphs.contains_key(&ModPath::new()),
        "the crate root's children were not linked"
    );
    let loops: Vec<String> = graphs
        .iter()
        .filter_map(|(parent, graph)| {
            let found = a_loop(graph)?;
            let at = if parent.is_empty() {
                "crate".to_owned()
            } else {
                parent.join("::")
            };
            Some(format!("in {at}: {}", found.join(" -> ")))
        })
        .collect();
    assert!(
        loops.is_empty(),
        "modules that use each other around a loop (move what they share into the module that \
         owns it):\n{}",
        loops.join("\n")
    );
}

#[test]
fn paths_and_groups_are_read_as_the_compiler_reads_them() {
    assert_eq!(paths_at("a::b::C;"), vec![vec!["a", "b", "C"]]);
    assert_eq!(
        paths_at("a::{b::C, d, e::{F, g}};"),
        vec![
            vec!["a", "b", "C"],
            vec!["a", "d"],
            vec!["a", "e", "F"],
            vec!["a", "e", "g"]
        ]
    );
    let module: ModPath = vec!["report".into(), "json".into()];
    let code = "use super::shard::ShardInfo;\nuse crate::record::{CaseRecord, CallRecord};\n";
    let named = named(&module, code, &[]);
    assert!(named.contains(&vec!["report".into(), "shard".into(), "ShardInfo".into()]));
    assert!(named.contains(&vec!["record".into(), "CaseRecord".into()]));
}

#[test]
fn a_loop_between_siblings_is_found_and_a_parent_and_child_are_not_one() {
    let path = |p: &str| -> ModPath {
        p.split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let edges = BTreeSet::from([
        (path("a::x"), path("b")),
        (path("b"), path("a::y")),
        (path("c"), path("c::child")),
        (path("c::child"), path("c")),
    ]);
    let graphs = sibling_graphs(&edges);
    assert_eq!(
        a_loop(&graphs[&ModPath::new()]),
        Some(vec!["a".to_owned(), "b".to_owned(), "a".to_owned()])
    );
    assert!(
        !graphs.contains_key(&path("c")),
        "a parent and its child are not siblings"
    );
}
