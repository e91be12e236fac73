//! The complete adapters that `docs/adapters.md` shows inline ("A complete adapter, both modes,
//! calls at once"), run as they are printed: each block is written to a file under the target
//! folder and driven against built-in cases with the SDK it names, as pinned and installed for
//! an SDK row (Python: the `python-sdk` row's virtualenv; Node: the `typescript-sdk` row's
//! `node_modules`). So the examples cannot rot: a renamed SDK call, a broken announcement or a
//! mapping that no longer holds fails here. Where the SDK cannot be set up (no Node, no
//! python3-venv) the trial is ignored with the reason, as the SDK rows are; CI
//! (`MCP_ERROR_LAYERS_REQUIRE_SDKS=1`) fails instead.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use mcp_error_layers::adapter::Driver;
use mcp_error_layers::adapter::process::{Mode, ProcessAdapter};
use mcp_error_layers::case::builtin;
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use std::path::{Path, PathBuf};

// Only its setup is used here.
#[allow(dead_code)]
#[path = "sdk_setup.rs"]
mod sdk_setup;

/// One inline example: where it is in the docs, the row whose installation runs it, its file.
struct Example {
    name: &'static str,
    /// The text just before its block in docs/adapters.md.
    marker: &'static str,
    fence: &'static str,
    row: &'static str,
    file: &'static str,
    /// What it announces.
    package: &'static str,
}

const EXAMPLES: [Example; 2] = [
    Example {
        name: "python",
        marker: "Python, the official SDK",
        fence: "```python\n",
        row: "python-sdk",
        file: "adapter.py",
        package: "mcp",
    },
    Example {
        name: "node",
        marker: "Node, the official TypeScript SDK",
        fence: "```js\n",
        row: "typescript-sdk",
        file: "adapter.mjs",
        package: "@modelcontextprotocol/sdk",
    },
];

/// Cases whose outcome the examples map (a result, `isError`, a JSON-RPC error): each must pass.
const CASES: [&str; 4] = [
    "tool/success",
    "tool/is-error",
    "jsonrpc/invalid-params",
    "sse/final-result",
];

fn main() {
    let trials = EXAMPLES
        .into_iter()
        .map(|example| {
            Trial::ignorable_test(format!("docs/adapters.md: {}", example.name), move || {
                run(&example)
            })
        })
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(example: &Example) -> Result<Completion, Failed> {
    let command = match sdk_setup::installed(example.row) {
        Ok(command) => command,
        Err(why) if !required() => return Ok(Completion::ignored_with(why)),
        Err(why) => {
            return Err(format!("{}: {why} ({})", example.row, sdk_setup::REQUIRE_VAR).into());
        }
    };
    let program = write_example(example)?;
    let adapter = ProcessAdapter::new(&command[0], [program]);
    let sources: Vec<_> = builtin()
        .into_iter()
        .filter(|s| CASES.contains(&s.id.as_str()))
        .collect();
    let records = Run::new(&adapter)
        .cases(sources.clone())
        .jobs(CASES.len())
        .execute(&())
        .cases;
    if adapter.mode() != Mode::Persistent {
        return Err(format!("it did not serve in persistent mode: {:?}", adapter.mode()).into());
    }
    let info = adapter.info();
    if info.name.as_deref() != Some(example.package) || info.version.is_none() {
        return Err(format!("it announced {:?} {:?}", info.name, info.version).into());
    }
    let failed: Vec<String> = records
        .iter()
        .filter(|r| r.verdict != Verdict::Pass)
        .map(|r| format!("{}: {:?}", r.id, r.calls))
        .collect();
    match failed.is_empty() && records.len() == CASES.len() {
        true => Ok(Completion::Completed),
        false => Err(format!(
            "{} of {} cases:\n{}",
            failed.len(),
            CASES.len(),
            failed.join("\n")
        )
        .into()),
    }
}

/// The example's block, written where its SDK resolves: beside the row's `node_modules` for
/// Node (a link to them in a folder of its own), anywhere for Python (the venv's interpreter
/// runs it).
fn write_example(example: &Example) -> Result<PathBuf, Failed> {
    let docs =
        std::fs::read_to_string(root().join("docs/adapters.md")).map_err(|e| e.to_string())?;
    let code = block_after(&docs, example.marker, example.fence).ok_or_else(|| {
        format!(
            "docs/adapters.md has no {} block after {:?}",
            example.fence.trim(),
            example.marker
        )
    })?;
    let folder = root().join("target/doc-adapters").join(example.name);
    std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
    if example.name == "node" {
        let modules = root()
            .join("harness/adapters")
            .join(example.row)
            .join("node_modules");
        let link = folder.join("node_modules");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(modules, &link).map_err(|e| e.to_string())?;
    }
    let file = folder.join(example.file);
    std::fs::write(&file, code).map_err(|e| e.to_string())?;
    Ok(file)
}

/// The first fenced block that opens with `fence` after `marker`.
fn block_after<'a>(text: &'a str, marker: &str, fence: &str) -> Option<&'a str> {
    let start = text.find(marker)?;
    let open = start + text[start..].find(fence)? + fence.len();
    let close = open + text[open..].find("```")?;
    Some(&text[open..close])
}

fn required() -> bool {
    std::env::var_os(sdk_setup::REQUIRE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}
