//! The documented API stays what `src/lib.rs` says it is ("The public API"): a module added
//! with a plain `pub mod` would become a semver promise unnoticed. Read from the sources: every
//! public module outside the list below must be `#[doc(hidden)]` (or not public).

use std::path::Path;

/// Each file that declares modules, and the public modules it documents.
const DOCUMENTED: [(&str, &[&str]); 3] = [
    ("src/lib.rs", &["classify", "report"]),
    ("src/report.rs", &["json"]),
    ("src/classify.rs", &[]),
];

/// The `pub mod` names of `code` that carry no `#[doc(hidden)]` on the line before.
fn shown_modules(code: &str) -> Vec<String> {
    let lines: Vec<&str> = code.lines().map(str::trim).collect();
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let name = line.strip_prefix("pub mod ")?.strip_suffix(';')?;
            let hidden = i > 0 && lines[i - 1] == "#[doc(hidden)]";
            (!hidden).then(|| name.to_owned())
        })
        .collect()
}

#[test]
fn only_the_documented_modules_are_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, documented) in DOCUMENTED {
        let code = std::fs::read_to_string(root.join(file)).expect("the file is readable");
        assert_eq!(
            shown_modules(&code),
            documented,
            "{file}: a public module that is not part of the documented API must be \
             `#[doc(hidden)]` (or `pub(crate)`); to add one to the API, list it here and in \
             src/lib.rs's \"The public API\""
        );
    }
}

#[test]
fn a_plain_pub_mod_is_shown_and_a_hidden_one_is_not() {
    let code = "#[doc(hidden)]\npub mod wire;\npub mod classify;\nmod text;\npub(crate) mod era;\n";
    assert_eq!(shown_modules(code), ["classify"]);
}
