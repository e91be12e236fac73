// A value that is no adapter.
mcp_error_layers::main!(42);
