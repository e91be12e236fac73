//! `case` is below the wire server: the server reads cases, and case loading needs nothing of
//! the server (what both follow of HTTP lives in [`super::http`]). Read from the sources, so
//! that a `use crate::wire…` in `case` fails here with the file named.

use std::path::Path;

/// The modules of `case` that use `module` of the crate, outside their `#[cfg(test)]` part.
fn users_of(module: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("case.rs")];
    for entry in std::fs::read_dir(src.join("case")).expect("src/case/ is readable") {
        let path = entry.expect("src/case/ lists").path();
        if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
        .into_iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).expect("a module file is readable");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            uses(code, module)
        })
        .map(|path| path.display().to_string())
        .collect()
}

/// Whether `code` names crate module `module` (`crate::wire`, or `wire` in a `crate::{…}`
/// list), comments aside.
fn uses(code: &str, module: &str) -> bool {
    let code: String = code
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let word = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == module)
    };
    let direct = code.match_indices("crate::").any(|(at, _)| {
        let rest = &code[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        name == module
    });
    let grouped = code.match_indices("crate::{").any(|(at, _)| {
        let rest = &code[at..];
        word(&rest[..rest.find('}').unwrap_or(rest.len())])
    });
    direct || grouped
}

#[test]
fn case_does_not_use_the_wire_server() {
    let users = users_of("wire");
    assert!(
        users.is_empty(),
        "case must not use crate::wire (the wire server reads cases, not the other way \
         round); move what both need into case: {users:?}"
    );
}

#[test]
fn a_use_of_the_module_is_found_in_either_form() {
    assert!(uses("use crate::wire::response::has_body;", "wire"));
    assert!(uses("use crate::{era, wire::Exchange};", "wire"));
    assert!(!uses(
        "use crate::era::MODERN_VERSION; // crate::wire",
        "wire"
    ));
    assert!(!uses("use crate::wired::X;", "wire"));
}
