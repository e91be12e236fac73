//! `cargo test --test sdk`: every built-in case against each SDK row under `harness/adapters/`
//! (a folder with an `adapter.toml`), checked against its snapshots in `snapshots/<row>/` and
//! the accepted deviations in its `baseline.toml`. A new row is a new folder.
//!
//! Every row runs in a process of its own (`sdk_rows.rs`): this binary again, for the row that
//! `MCP_ERROR_LAYERS_SDK_ROW` names, with the libtest arguments it was given, so filters work
//! as for any test (`MCP_ERROR_LAYERS_SDK=python-sdk cargo test --test sdk -- sse/`). Setup is
//! automatic and cached (`sdk_setup.rs`).

use mcp_error_layers::adapter::process::loopback;
use std::process::ExitCode;

#[path = "sdk_rows.rs"]
mod sdk_rows;
#[path = "sdk_setup.rs"]
mod sdk_setup;

fn main() -> ExitCode {
    // This binary serves the stdio cases too (mcp_error_layers::stdio): an SDK's stdio client
    // starts it with a clean environment, so this comes before anything that reads one.
    if let Some(code) = mcp_error_layers::stdio::intercept() {
        return code;
    }
    if std::env::var_os(sdk_setup::ROW_VAR).is_none() {
        return sdk_rows::run_all();
    }
    // What `mcp_error_layers::main!` expands to, for the one row this process runs: an agent
    // row drives its agent, a bridge row the reference client through its bridge, any other
    // row its adapter program.
    use mcp_error_layers::__private::__run;
    if loopback::is_inner() {
        if let Err(why) = loopback::check() {
            eprintln!("error: the row's network namespace is not loopback-only: {why}");
            return ExitCode::from(101);
        }
    }
    if let Some(agent) = sdk_setup::agent() {
        return __run(agent, sdk_setup::config(), caller());
    }
    match sdk_setup::bridge() {
        Some(bridge) => __run(bridge, sdk_setup::config(), caller()),
        None => __run(sdk_setup::adapter(), sdk_setup::config(), caller()),
    }
}

fn caller() -> mcp_error_layers::__private::Caller {
    mcp_error_layers::__private::Caller {
        manifest_dir: env!("CARGO_MANIFEST_DIR"),
        package: env!("CARGO_PKG_NAME"),
        version: env!("CARGO_PKG_VERSION"),
        assert_snapshot: |name, view| {
            mcp_error_layers::__private::__insta::assert_yaml_snapshot!(name, view);
        },
    }
}
