// A closure's parameter needs its type: nothing else tells Rust it is a CallContext.
use mcp_error_layers::{AdapterReport, Observation, Outcome};

mcp_error_layers::main!(|call| async move {
    let _ = call.endpoint;
    AdapterReport::from(Observation::new(Outcome::ToolSuccess))
});
