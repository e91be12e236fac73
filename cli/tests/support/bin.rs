//! Shared by the CLI test files that include it (`#[path = "support/bin.rs"] mod support;`):
//! running the binary and a fresh temporary folder.

use std::path::PathBuf;
use std::process::{Command, Output};

/// `mcp-error-layers ARGS...`, waited for.
pub fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-error-layers"))
        .args(args)
        .output()
        .unwrap()
}

/// An empty folder under the system's temporary folder, named for the test and this process.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mcp-error-layers-cli-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
