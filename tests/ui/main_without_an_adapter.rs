// `main!` needs the adapter to drive.
mcp_error_layers::main!();
