//! `cargo test --test sdk_tower_mcp`: every built-in case against the adapter
//! `harness/adapters/tower-mcp/` (its `adapter.toml` says which SDK, pinned how), checked against
//! the snapshots in `snapshots/tower-mcp/` and the accepted deviations in its `baseline.toml`.
//! Setup is automatic and cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(
    sdk_setup::adapter("tower-mcp"),
    sdk_setup::config("tower-mcp")
);
