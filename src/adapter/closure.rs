//! [`Adapter`] for closures, so that a client project can write its adapter inline:
//!
//! ```
//! use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};
//!
//! let adapter = |call: CallContext| async move {
//!     // Drive your client against `call.endpoint` here.
//!     let _ = call.endpoint;
//!     AdapterReport::from(Observation::new(Outcome::ToolSuccess))
//! };
//! # fn is_adapter<A: mcp_error_layers::Adapter>(_: &A) {}
//! # is_adapter(&adapter);
//! ```
//!
//! The closure takes the [`CallContext`] by value and returns a future of an
//! [`AdapterReport`] that is `Send` (the runner may poll it on any thread). Annotate the
//! parameter's type: Rust infers closure parameters only from a bound on the function the
//! closure is passed to, and the `main!` macro is generic over any adapter.

use super::{Adapter, CallContext};
use crate::observation::AdapterReport;
use std::future::Future;

impl<F, Fut> Adapter for F
where
    F: Fn(CallContext) -> Fut + Send + Sync,
    Fut: Future<Output = AdapterReport> + Send,
{
    fn call(&self, call: CallContext) -> impl Future<Output = AdapterReport> + Send {
        self(call)
    }
}
