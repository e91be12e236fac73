#!/usr/bin/env python3
"""A persistent-mode test adapter: with MCP_ERROR_LAYERS_MODE=persistent it announces
{"persistent": 1}, then answers each request line on stdin with one observation line;
otherwise it behaves as oneshot.py. The test hooks are oneshot.py's. The detail ends with the
client the call ran on (oneshot.kept_client).
"""

import json
import os
import sys

from oneshot import answer, call_tool, kept_client, one_shot


def serve():
    # Announce once ready to serve: every call's deadline starts after this line, so whatever
    # is slow to load (a client library) belongs before it.
    print(json.dumps({"persistent": 1}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        result = call_tool(
            request["endpoint"],
            request["tool"],
            request["arguments"],
            request["protocol_version"],
            request["timeout_ms"],
        )
        if result is not None:
            result["detail"] += kept_client(request)
        answer(result)


if __name__ == "__main__":
    if os.environ.get("MCP_ERROR_LAYERS_MODE") == "persistent":
        serve()
    else:
        one_shot()
