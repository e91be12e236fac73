//! `cargo test --test sdk_typescript`: every built-in case against the adapter `harness/adapters/typescript-sdk/`
//! (its `adapter.toml` says which SDK, pinned how), checked against the snapshots in
//! `snapshots/typescript-sdk/` and the accepted deviations in its `baseline.toml`. Setup is automatic
//! and cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(
    sdk_setup::adapter("typescript-sdk"),
    sdk_setup::config("typescript-sdk")
);
