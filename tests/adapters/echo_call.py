#!/usr/bin/env python3
"""A test adapter that reports, in its detail, what it was given: argv, the call's
environment, whether stdin is closed and whether it leads its own process group."""

import json
import os
import sys

given = {
    "argv": sys.argv[1:],
    "env": {k: v for k, v in os.environ.items() if k.startswith("MCP_ERROR_LAYERS_")},
    "stdin_empty": sys.stdin.read() == "",
    "group_leader": os.getpgid(0) == os.getpid(),
}
print(json.dumps({"outcome": "TOOL_SUCCESS", "detail": json.dumps(given)}))
