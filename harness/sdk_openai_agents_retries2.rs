//! `cargo test --test sdk_openai_agents_retries2`: every built-in case against the adapter `harness/adapters/openai-agents+retries2/`
//! (its `adapter.toml` says which SDK, pinned how), checked against the snapshots in
//! `snapshots/openai-agents+retries2/` and the accepted deviations in its `baseline.toml`. Setup is automatic
//! and cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(
    sdk_setup::adapter("openai-agents+retries2"),
    sdk_setup::config("openai-agents+retries2")
);
