//! `cargo test --test sdk_rmcp`: every built-in case against the rmcp SDK through its adapter
//! program (`harness/adapters/`), checked against the snapshots in `snapshots/<adapter>/` and the
//! accepted deviations in `harness/adapters/<adapter>/baseline.toml`. Setup is automatic and
//! cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(
    sdk_setup::adapter(&sdk_setup::RMCP),
    sdk_setup::config(&sdk_setup::RMCP)
);
