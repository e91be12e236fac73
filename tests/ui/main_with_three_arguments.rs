// An adapter and a Config, nothing more.
use mcp_error_layers::{AdapterReport, CallContext, Config, Observation, Outcome};

async fn adapter(_call: CallContext) -> AdapterReport {
    Observation::new(Outcome::ToolSuccess).into()
}

mcp_error_layers::main!(adapter, Config::new(), true);
