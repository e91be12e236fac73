//! `mcp-error-layers`: a conformance test harness for how MCP clients handle errors.
//!
//! An MCP client that calls a tool over Streamable HTTP can fail in three layers: the HTTP
//! transport (503, 429, a reset), the JSON-RPC envelope (HTTP 200 carrying an `error`, a wrong
//! `id`, bad JSON) and the tool result (`isError: true`, `resultType: "input_required"`). This
//! crate serves synthetic wire responses described by case files on loopback, drives a client
//! against each, and judges what the client reported.
//!
//! The pieces, in the order a case flows through them:
//! - [`case`]: case files (TOML), discovered on disk or compiled in ([`case::builtin`]).
//! - [`wire`]: the wire server, one per case on `127.0.0.1:0`, writing raw HTTP/1.1.
//! - [`adapter`]: the client under test; [`adapter::reference::ReferenceAdapter`] is ours.
//! - [`classify`]: the reference classifier, usable on its own by gateways.
//! - [`runner`] and [`suite`]: one case, many cases; [`verdict`] compares.
//! - [`explain`], [`transcript`], [`snapshot`]: what a person or a snapshot sees.
//!
//! ```no_run
//! use mcp_error_layers::adapter::reference::ReferenceAdapter;
//! use mcp_error_layers::case::builtin;
//! use mcp_error_layers::runner::{RunOptions, run_source_blocking};
//!
//! let adapter = ReferenceAdapter::new();
//! for source in builtin() {
//!     let record = run_source_blocking(&adapter, &source, &RunOptions::default());
//!     println!("{} {}", record.id, record.verdict);
//! }
//! ```

#![warn(missing_docs)]

pub mod adapter;
pub mod case;
pub mod classify;
pub mod explain;
pub mod observation;
pub mod outcome;
pub mod runner;
pub mod snapshot;
pub mod suite;
pub mod transcript;
pub mod verdict;
pub mod wire;
