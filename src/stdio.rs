//! The harness as a stdio MCP server (docs/stdio.md).
//!
//! A stdio case is served by a process the client under test starts itself:
//! `mcp-error-layers stdio-server --session FILE`. That process is a thin relay: every line it
//! reads on stdin goes to the case's wire server on loopback *before* it acts on it, and the
//! wire server answers with what to do ([`Action`]s: write these bytes, pause, flood stderr,
//! exit, kill itself, close stdout). So the record, the replies and the checks stay in the
//! runner's wire server, and a server that exits or is killed has already reported what it read.
//!
//! - [`action`]: what the wire server tells the process to do;
//! - [`session`]: the session file that points a process at its wire server, and the command
//!   line an adapter is given;
//! - [`server`]: the process itself.

pub mod action;
#[cfg(unix)]
pub mod server;
pub mod session;

pub use action::{Action, Event};
#[cfg(unix)]
pub use server::{intercept, serve};
pub use session::{Session, StdioCommand};
