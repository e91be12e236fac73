#!/usr/bin/env python3
"""A one-shot test adapter (the process contract of docs/adapters.md), standard library only.

Usage: oneshot.py ENDPOINT_URL, with the call in MCP_ERROR_LAYERS_* environment variables.
It POSTs one 2026-07-28 `tools/call` to the endpoint and classifies the answer trivially: enough
for the harness's own tests, not a reference client. It ignores persistent mode, so a probe
(started without a URL) makes it exit with status 2.

Test hooks in the call's arguments: {"hang": true} sleeps forever (after a line on stderr);
{"hang_after_request": true} sends the request, then sleeps forever, its timeout ignored;
{"garbage": true} prints a line that is not JSON. The detail names the process id, so that
tests can tell processes apart.
"""

import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request

VERSION_HEADER = "MCP-Protocol-Version"


def call_tool(endpoint, tool, arguments, protocol_version, timeout_ms):
    """Makes the call; returns an observation (a dict), or None for a garbage test hook."""
    if arguments.get("hang"):
        print("hanging on purpose", file=sys.stderr, flush=True)
        time.sleep(100_000)
    if arguments.get("garbage"):
        return None
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": protocol_version,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "oneshot.py", "version": "0"},
            },
        },
    }
    request = urllib.request.Request(
        endpoint,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            VERSION_HEADER: protocol_version,
            "Mcp-Method": "tools/call",
            "Mcp-Name": tool,
        },
    )
    # Loopback only: never through a proxy from the environment.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout_ms / 1000) as response:
            if arguments.get("hang_after_request"):
                print("hanging after the request on purpose", file=sys.stderr, flush=True)
                time.sleep(100_000)
            return classify(response.read())
    except urllib.error.HTTPError as error:
        return observation("HTTP_ERROR", status=error.code, detail=str(error))
    except (socket.timeout, TimeoutError) as error:
        return observation("TIMEOUT", detail=str(error))
    except (urllib.error.URLError, ConnectionError) as error:
        return observation("CONNECTION_ERROR", detail=str(error))


def classify(body):
    """A 2xx JSON body: JSON-RPC error, tool error or success (no SSE, no checks beyond)."""
    try:
        message = json.loads(body)
    except ValueError as error:
        return observation("MALFORMED_JSON", status=200, detail=str(error))
    if "error" in message:
        return observation("JSONRPC_ERROR", status=200, code=message["error"].get("code"))
    if message.get("result", {}).get("isError"):
        return observation("TOOL_ERROR", status=200)
    return observation("TOOL_SUCCESS", status=200)


# The clients this process holds, by the runner's client id: the call index each was opened at
# and how many calls it made. A case's calls run on one client (docs/adapters.md, "One client
# per case"); a client first seen at a later call was opened by another process.
CLIENTS = {}


def kept_client(request):
    """` client C opened at call I, its call N` for a persistent request, after counting it; the
    client is forgotten after the case's last call, as an adapter closes it."""
    client = CLIENTS.setdefault(request["client"], {"opened_at": request["call"], "calls": 0})
    client["calls"] += 1
    if request["call"] + 1 >= request["calls"]:
        del CLIENTS[request["client"]]
    return f" client {request['client']} opened at call {client['opened_at']}, its call {client['calls']}"


def observation(outcome, status=None, code=None, detail=""):
    return {
        "outcome": outcome,
        "status": status,
        "code": code,
        "detail": f"pid {os.getpid()}: {detail}",
    }


def answer(result):
    """Prints one answer line: the observation, or garbage for the garbage hook."""
    print(json.dumps(result) if result is not None else "this is not an observation", flush=True)


def one_shot():
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} ENDPOINT_URL", file=sys.stderr)
        sys.exit(2)
    env = os.environ
    result = call_tool(
        sys.argv[-1],
        env["MCP_ERROR_LAYERS_TOOL"],
        json.loads(env["MCP_ERROR_LAYERS_ARGUMENTS"]),
        env["MCP_ERROR_LAYERS_PROTOCOL_VERSION"],
        int(env["MCP_ERROR_LAYERS_TIMEOUT_MS"]),
    )
    answer(result)


if __name__ == "__main__":
    one_shot()
