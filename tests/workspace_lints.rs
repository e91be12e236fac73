//! Every package of the workspace takes the workspace's lints, and those keep the rules CI
//! relies on (`cargo clippy -- -D warnings` makes each `warn` an error): a package added
//! without `[lints] workspace = true` would silently escape them.

use std::path::Path;

/// The clippy lints the code base is held to, each at `warn` or stricter.
const REQUIRED_CLIPPY: [&str; 4] = [
    // `as` casts that lose bits or change sign where `try_from` is meant.
    "cast_possible_truncation",
    "cast_sign_loss",
    "cast_possible_wrap",
    // One module layout: `foo.rs` beside `foo/`, never `foo/mod.rs`.
    "mod_module_files",
];

fn manifest(path: &Path) -> toml::Table {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{} is not TOML: {e}", path.display()))
}

#[test]
fn every_package_inherits_the_workspace_lints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest(&root.join("Cargo.toml"));
    let members = workspace["workspace"]["members"]
        .as_array()
        .expect("[workspace] members is a list");
    let packages = std::iter::once(".").chain(members.iter().filter_map(|m| m.as_str()));
    for package in packages {
        let path = root.join(package).join("Cargo.toml");
        let inherits = manifest(&path)
            .get("lints")
            .and_then(|lints| lints.get("workspace"))
            .and_then(toml::Value::as_bool);
        assert_eq!(
            inherits,
            Some(true),
            "{}: add `[lints] workspace = true` so that the package takes the workspace's lints",
            path.display()
        );
    }
}

#[test]
fn the_workspace_lints_keep_the_required_clippy_rules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest(&root.join("Cargo.toml"));
    let clippy = &workspace["workspace"]["lints"]["clippy"];
    for lint in REQUIRED_CLIPPY {
        let level = clippy.get(lint).and_then(toml::Value::as_str);
        assert!(
            matches!(level, Some("warn" | "deny" | "forbid")),
            "Cargo.toml [workspace.lints.clippy]: `{lint}` is {level:?}; set it to \"warn\" \
             (CI runs clippy with -D warnings)"
        );
    }
}
