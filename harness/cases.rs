//! `cargo test` entry: every built-in case against the reference client, each checked against
//! its expectation and its snapshot under `snapshots/reference/`, through the same macro that
//! client projects use.
//!
//! Filters, `--list`, `--exact` and nextest work as with any libtest binary. Set
//! `MCP_ERROR_LAYERS_STRICT=1` to fail SHOULD-grade mismatches too, and `MCP_ERROR_LAYERS_TAP`,
//! `_JUNIT`, `_JSON`, `_HTML` or `_REPORT_DIR` for reports.

use mcp_error_layers::Config;
use mcp_error_layers::adapter::reference::ReferenceAdapter;

mcp_error_layers::main!(
    ReferenceAdapter::new(),
    Config::new()
        .snapshots("snapshots/reference")
        .adapter_name("reference")
);
