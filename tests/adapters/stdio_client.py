#!/usr/bin/env python3
"""A one-shot stdio adapter with the standard library only, for tests/stdio.rs: it starts the
server command it is given, makes the 2025 handshake and the call, and reports what came back.
Two flags make it misbehave the ways real clients do:

  --orphan     start the server in a session of its own and exit without closing it (the
               runner's process-group kill cannot reach it; the runner must end it)
  --no-stderr  pipe the server's stderr and never read it (a flood blocks the server)
"""

import json
import os
import select
import subprocess
import sys
import time


def main() -> None:
    if os.environ.get("MCP_ERROR_LAYERS_TRANSPORT") != "stdio":
        print(json.dumps({"unsupported": "this test adapter speaks stdio only"}))
        return
    argv = json.loads(os.environ["MCP_ERROR_LAYERS_STDIO_COMMAND"])
    timeout = int(os.environ["MCP_ERROR_LAYERS_TIMEOUT_MS"]) / 1000
    stderr = subprocess.PIPE if "--no-stderr" in sys.argv else subprocess.DEVNULL
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                              start_new_session="--orphan" in sys.argv)
    send(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": {"name": "stdio-test", "version": "1"}}})
    receive(server, 1, timeout)
    send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": os.environ["MCP_ERROR_LAYERS_TOOL"], "arguments": {}}})
    print(json.dumps(observe(receive(server, 2, timeout))), flush=True)
    if "--orphan" not in sys.argv:
        server.kill()


def send(server, message) -> None:
    server.stdin.write((json.dumps(message) + "\n").encode())
    server.stdin.flush()


def receive(server, request_id, timeout):
    """The response to request_id, "eof", or None at the timeout."""
    end = time.monotonic() + timeout
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([server.stdout], [], [], left)
        if not ready:
            continue
        line = server.stdout.readline()
        if not line:
            return "eof"
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
            return message
    return None


def observe(answer) -> dict:
    if answer == "eof":
        return {"outcome": "CONNECTION_ERROR"}
    if answer is None:
        return {"outcome": "TIMEOUT"}
    if "error" in answer:
        return {"outcome": "JSONRPC_ERROR", "code": answer["error"].get("code")}
    return {"outcome": "TOOL_ERROR" if answer["result"].get("isError") else "TOOL_SUCCESS"}


if __name__ == "__main__":
    main()
