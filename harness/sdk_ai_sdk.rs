//! `cargo test --test sdk_ai_sdk`: every built-in case against the adapter `harness/adapters/ai-sdk/`
//! (its `adapter.toml` says which SDK, pinned how), checked against the snapshots in
//! `snapshots/ai-sdk/` and the accepted deviations in its `baseline.toml`. Setup is automatic
//! and cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(sdk_setup::adapter("ai-sdk"), sdk_setup::config("ai-sdk"));
