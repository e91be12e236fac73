// The second argument is a Config, not a folder of cases.
use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};

async fn adapter(_call: CallContext) -> AdapterReport {
    Observation::new(Outcome::ToolSuccess).into()
}

mcp_error_layers::main!(adapter, "tests/mcp-cases");
