//! `cargo test --test sdk_typescript_v2`: every built-in case against the adapter `harness/adapters/typescript-sdk-v2/`
//! (its `adapter.toml` says which SDK, pinned how), checked against the snapshots in
//! `snapshots/typescript-sdk-v2/` and the accepted deviations in its `baseline.toml`. Setup is automatic
//! and cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(
    sdk_setup::adapter("typescript-sdk-v2"),
    sdk_setup::config("typescript-sdk-v2")
);
