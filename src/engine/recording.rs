//! Turning a real server's answers into cases (docs/record-import.md): `record` (a loopback
//! proxy between a client and a server), `import` (a HAR file) and `--fault` (faulted variants
//! of one recorded answer).
//!
//! Each `tools/call` exchange becomes one case file whose reply reproduces the server's body
//! byte for byte, with the echoed request id put back as `"$id"` (and the request's progress
//! token as `"$progress_token"`), so the case answers any client's id as the server did. What
//! `initialize` and `tools/list` said (the protocol
//! version, the tool's annotations and schemas) goes into the case's top-level keys; the wire
//! server answers those requests itself on replay. The expectation of every case written is
//! the reference classifier's judgement of its reply ([`crate::classify`]), shown on stdout.

mod blocks;
mod case_text;
mod exchange;
mod expect;
mod fault;
mod har;
mod id_span;
mod loopback;
#[cfg(feature = "reference-client")]
mod proxy;
mod reply;
mod session;
mod sse_form;
mod writer;

pub use exchange::{Exchange, MAX_RECORDED_BODY};
pub use fault::Fault;
pub use har::{HarError, Imported, read_har};
pub use loopback::{LoopbackError, Upstream, checked_upstream, loopback_listen, loopback_upstream};
#[cfg(feature = "reference-client")]
pub use proxy::{RecordError, Recorder, RecorderOptions};
pub use session::Session;
pub use writer::{Report, Written, stem, writable_out, write_family};
