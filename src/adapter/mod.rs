//! Adapters: what drives a client under test (design §6).
//!
//! An adapter is given one call (endpoint, tool, arguments, protocol version, timeout) and
//! reports one observation. It is never given the case's id or expectation.

use crate::observation::AdapterReport;
use serde_json::Value;
use std::future::Future;
use std::time::Duration;

pub mod reference;

/// Everything an adapter is told about one call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallContext {
    /// The MCP endpoint URL (`http://127.0.0.1:PORT/mcp`).
    pub endpoint: String,
    /// The tool to call.
    pub tool: String,
    /// The call's arguments (a JSON object).
    pub arguments: Value,
    /// The protocol version the client should prefer.
    pub protocol_version: String,
    /// The client's own timeout for this call.
    pub timeout: Duration,
}

impl CallContext {
    /// A call context; fields not named here take their defaults.
    pub fn new(endpoint: impl Into<String>, tool: impl Into<String>, arguments: Value) -> Self {
        CallContext {
            endpoint: endpoint.into(),
            tool: tool.into(),
            arguments,
            protocol_version: crate::case::model::DEFAULT_PROTOCOL_VERSION.to_owned(),
            timeout: Duration::from_millis(crate::case::model::DEFAULT_TIMEOUT_MS),
        }
    }

    /// Sets the protocol version to prefer.
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    /// Sets the client's timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// A client under test, driven in-process.
///
/// The runner awaits `call` under a deadline above `CallContext::timeout`; a call that does not
/// finish by then is a `hang` verdict and its future is dropped. The future must therefore yield
/// (do its waiting with async I/O and timers): a blocking call cannot be interrupted.
pub trait Adapter: Send + Sync {
    /// Makes the call and reports what the client observed.
    fn call(&self, call: CallContext) -> impl Future<Output = AdapterReport> + Send;
}
