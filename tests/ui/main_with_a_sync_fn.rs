// An adapter must be async: a plain fn cannot be dropped at the deadline.
use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};

fn adapter(_call: CallContext) -> AdapterReport {
    Observation::new(Outcome::ToolSuccess).into()
}

mcp_error_layers::main!(adapter);
