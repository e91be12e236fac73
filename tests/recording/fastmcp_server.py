"""A real MCP server for `record`'s tests (tests/record_import.rs): the Python SDK's FastMCP
(mcp 1.x) on Streamable HTTP, bound to 127.0.0.1 on a free port, which it prints on its first
line of stdout (`port N`).

usage: fastmcp_server.py [json]   (json: answer with application/json instead of SSE)
Tools: add_numbers(a, b) returns a + b; fail(reason) raises, so the result has isError true.
"""
import socket
import sys

import uvicorn
from mcp.server.fastmcp import FastMCP

json_response = len(sys.argv) > 1 and sys.argv[1] == "json"
mcp = FastMCP("record-test", json_response=json_response)


@mcp.tool()
def add_numbers(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@mcp.tool()
def fail(reason: str) -> str:
    """Always fails, with the reason given."""
    raise ValueError(reason)


sock = socket.socket()
sock.bind(("127.0.0.1", 0))
# Listening before the port is printed: a client that connects at once waits in the backlog
# until uvicorn has started, instead of being refused.
sock.listen(128)
print(f"port {sock.getsockname()[1]}", flush=True)
config = uvicorn.Config(mcp.streamable_http_app(), log_level="warning")
uvicorn.Server(config).run(sockets=[sock])
