// Used by client_crate.sh as the client crate's tests/mcp_errors.rs; not built here.
//! The tutorial's adapter (src/lib.rs, step 2), with a stand-in for `my_client`.
mod my_client {
    pub struct Client;
    pub struct ToolResult {
        pub is_error: bool,
    }
    #[allow(dead_code)]
    pub enum Error {
        Timeout,
        Connection(String),
        Status(u16),
        Rpc(i64),
        NotJson(String),
    }
    impl Client {
        pub fn new(_: &str, _: std::time::Duration) -> Self {
            Client
        }
        pub async fn call_tool<A>(&self, _: &str, _: A) -> Result<ToolResult, Error> {
            Ok(ToolResult { is_error: false })
        }
    }
}
use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};
use my_client::Error;

async fn adapter(call: CallContext) -> AdapterReport {
    let client = my_client::Client::new(&call.endpoint, call.timeout);
    AdapterReport::from(match client.call_tool(&call.tool, call.arguments).await {
        Ok(result) if result.is_error => Observation::new(Outcome::ToolError),
        Ok(_) => Observation::new(Outcome::ToolSuccess),
        Err(Error::Timeout) => Observation::new(Outcome::Timeout),
        Err(Error::Connection(why)) => Observation::new(Outcome::ConnectionError).with_detail(why),
        Err(Error::Status(status)) => Observation::new(Outcome::HttpError).with_status(status),
        Err(Error::Rpc(code)) => Observation::new(Outcome::JsonrpcError).with_code(code),
        Err(Error::NotJson(why)) => Observation::new(Outcome::MalformedJson).with_detail(why),
    })
}

mcp_error_layers::main!(adapter);
