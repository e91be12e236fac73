"""FastMCP (mcp==1.30.0) server with one tool `synthetic`, Streamable HTTP on 127.0.0.1.
usage: py_server.py PORT [stateless]"""
import sys
from mcp.server.fastmcp import FastMCP

port = int(sys.argv[1])
stateless = len(sys.argv) > 2 and sys.argv[2] == "stateless"
mcp = FastMCP("probe-py", host="127.0.0.1", port=port, stateless_http=stateless)


@mcp.tool()
def synthetic(text: str = "x") -> str:
    """Synthetic tool for probing."""
    return f"synthetic:{text}"


if __name__ == "__main__":
    mcp.run(transport="streamable-http")
