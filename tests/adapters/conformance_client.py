#!/usr/bin/env python3
"""A conformance client for the harness's own tests and doc samples (the official MCP
conformance suite's client contract, docs/conformance-clients.md), standard library only.

Usage: MCP_CONFORMANCE_SCENARIO=tools_call conformance_client.py SERVER_URL. In `tools_call` it
makes the 2025 handshake (`initialize`, `notifications/initialized`), lists the tools and calls
`add_numbers` with {"a": 2, "b": 3}; it exits 0 when the call's answer is a JSON-RPC result, 1
with the error on stderr for anything else (an HTTP error, a JSON-RPC error, no answer). It
has no timeout of its own beyond 30 s per request: a stalled answer is the harness's hang.
A test hook: an `exit_with` argument after the script's name (`conformance_client.py
exit_with=3 URL`) makes it exit with that status before doing anything.
"""

import json
import os
import sys
import urllib.error
import urllib.request

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def post(url, message, session):
    """POSTs `message`; returns the response to it (a dict) or None, and the session id."""
    headers = dict(HEADERS)
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-11-25"
    request = urllib.request.Request(url, json.dumps(message).encode(), headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        session = response.headers.get("mcp-session-id") or session
        body = response.read().decode("utf-8", "replace")
        kind = response.headers.get("content-type", "")
    if "id" not in message or not body.strip():
        return None, session
    if kind.startswith("text/event-stream"):
        datas = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
        answers = [json.loads(d) for d in datas if d]
        answers = [a for a in answers if isinstance(a, dict) and a.get("id") == message["id"]]
        if not answers:
            raise RuntimeError("the stream ended before the response")
        return answers[0], session
    return json.loads(body), session


def request(url, session, id_, method, params):
    answer, session = post(url, {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}, session)
    if not isinstance(answer, dict) or "result" not in answer or "error" in answer:
        raise RuntimeError(f"{method}: no result: {answer!r}")
    return answer["result"], session


def tools_call(url):
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fixture", "version": "0"}}
    _, session = request(url, None, 1, "initialize", hello)
    post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    listed, session = request(url, session, 2, "tools/list", {})
    names = [tool["name"] for tool in listed.get("tools", [])]
    name = "add_numbers" if "add_numbers" in names else names[0]
    result, _ = request(url, session, 3, "tools/call", {"name": name, "arguments": {"a": 2, "b": 3}})
    print(f"called {name}: {json.dumps(result)}", file=sys.stderr)


def main():
    for word in sys.argv[1:-1]:
        if word.startswith("exit_with="):
            return int(word.split("=", 1)[1])
    if os.environ.get("MCP_CONFORMANCE_SCENARIO") != "tools_call" or len(sys.argv) < 2:
        print("usage: MCP_CONFORMANCE_SCENARIO=tools_call conformance_client.py URL", file=sys.stderr)
        return 1
    try:
        tools_call(sys.argv[-1])
    except (OSError, ValueError, RuntimeError, urllib.error.URLError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
