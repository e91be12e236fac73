//! `cargo test --test sdk`: every built-in case against each SDK row under `harness/adapters/`
//! (a folder with an `adapter.toml`), checked against its snapshots in `snapshots/<row>/` and
//! the accepted deviations in its `baseline.toml`. A new row is a new folder.
//!
//! Every row runs in a process of its own (`sdk_rows.rs`): this binary again, for the row that
//! `MCP_ERROR_LAYERS_SDK_ROW` names, with the libtest arguments it was given, so filters work
//! as for any test (`MCP_ERROR_LAYERS_SDK=python-sdk cargo test --test sdk -- sse/`). Setup is
//! automatic and cached (`sdk_setup.rs`).

use std::process::ExitCode;

#[path = "sdk_rows.rs"]
mod sdk_rows;
#[path = "sdk_setup.rs"]
mod sdk_setup;

fn main() -> ExitCode {
    if std::env::var_os(sdk_setup::ROW_VAR).is_none() {
        return sdk_rows::run_all();
    }
    // What `mcp_error_layers::main!` expands to, for the one row this process runs.
    mcp_error_layers::__private::__run(
        sdk_setup::adapter(),
        sdk_setup::config(),
        mcp_error_layers::__private::Caller {
            manifest_dir: env!("CARGO_MANIFEST_DIR"),
            package: env!("CARGO_PKG_NAME"),
            version: env!("CARGO_PKG_VERSION"),
            assert_snapshot: |name, view| {
                mcp_error_layers::__private::__insta::assert_yaml_snapshot!(name, view);
            },
        },
    )
}
