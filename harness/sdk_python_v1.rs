//! `cargo test --test sdk_python_v1`: every built-in case against the adapter `harness/adapters/python-sdk-v1/`
//! (its `adapter.toml` says which SDK, pinned how), checked against the snapshots in
//! `snapshots/python-sdk-v1/` and the accepted deviations in its `baseline.toml`. Setup is automatic
//! and cached; see `sdk_setup.rs`.

#[path = "sdk_setup.rs"]
mod sdk_setup;

mcp_error_layers::main!(
    sdk_setup::adapter("python-sdk-v1"),
    sdk_setup::config("python-sdk-v1")
);
