module mcp-error-layers.local/contract

go 1.25.0
