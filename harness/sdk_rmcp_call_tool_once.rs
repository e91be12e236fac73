//! `cargo test --test sdk_rmcp_call_tool_once`: every built-in case against the adapter
//! `harness/adapters/rmcp+call_tool_once/` (rmcp's adapter calling `call_tool_once`: its
//! `adapter.toml` says which SDK, pinned how), checked against the snapshots in
//! `snapshots/rmcp+call_tool_once/` and the accepted deviations in its `baseline.toml`. Setup is
//! automatic and cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(
    sdk_setup::adapter("rmcp+call_tool_once"),
    sdk_setup::config("rmcp+call_tool_once")
);
