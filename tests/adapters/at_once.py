#!/usr/bin/env python3
"""A persistent-mode test adapter that serves calls at once, standard library only: with
MCP_ERROR_LAYERS_MODE=persistent it writes its pid to PID_FILE, announces ANNOUNCEMENT (default
{"persistent": 1, "concurrent": 4}), then serves each request line on a thread of its own and
answers it with the request's id (when the request has one). Otherwise it behaves as oneshot.py.

Usage: at_once.py PID_FILE [ANNOUNCEMENT] [ENDPOINT_URL]

Test hooks in the call's arguments, besides oneshot.py's ({"hang": true}; {"garbage": true}
answers with an outcome that does not exist):
  {"wait": NAME}            answer only after a request with {"release": NAME} arrived
  {"release": NAME}         see "wait"
  {"wait_file": PATH}       create PATH.waiting, then answer once PATH exists
  {"in_flight": N, "then": WHAT}
                            once N requests are in flight: "exit" exits with status 3,
                            "no-id" answers without an id, "unknown-id" answers with id 999,
                            "hang" hangs (after a line on stderr)
Every stderr line it writes for a request starts with "[id] ". The detail is
"pid P: request ID keys K client C opened at call I, its call N" (K: the request's keys,
sorted; then the client the call ran on, oneshot.kept_client).
"""

import json
import os
import sys
import threading
import time

from oneshot import call_tool, kept_client, one_shot

DEFAULT_ANNOUNCEMENT = '{"persistent": 1, "concurrent": 4}'

state = threading.Condition()
in_flight = 0
released = set()
out = threading.Lock()


def write_line(value):
    with out:
        sys.stdout.write((value if isinstance(value, str) else json.dumps(value)) + "\n")
        sys.stdout.flush()


def log(request_id, text):
    prefix = "" if request_id is None else f"[{request_id}] "
    with out:
        print(prefix + text, file=sys.stderr, flush=True)


def handle(request):
    global in_flight
    request_id = request.get("id")
    args = request["arguments"]
    with state:
        in_flight += 1
        if "release" in args:
            released.add(args["release"])
        state.notify_all()
    try:
        if "wait" in args:
            log(request_id, f"waiting for {args['wait']}")
            with state:
                state.wait_for(lambda: args["wait"] in released)
        if "wait_file" in args:
            open(args["wait_file"] + ".waiting", "w").close()
            while not os.path.exists(args["wait_file"]):
                time.sleep(0.01)
        if "in_flight" in args:
            with state:
                state.wait_for(lambda: in_flight >= args["in_flight"])
            then = args.get("then")
            if then == "exit":
                log(request_id, "exiting with calls in flight")
                os._exit(3)
            if then == "no-id":
                write_line({"outcome": "TOOL_SUCCESS", "detail": "no id"})
                return
            if then == "unknown-id":
                write_line({"id": 999, "outcome": "TOOL_SUCCESS", "detail": "wrong id"})
                return
            if then == "hang":
                log(request_id, "hanging on purpose")
                time.sleep(100_000)
        if args.get("hang"):
            log(request_id, "about to hang")
        result = call_tool(
            request["endpoint"], request["tool"], args, request["protocol_version"], request["timeout_ms"]
        )
        if result is None:
            # The garbage hook: an answer with its id that is no observation.
            write_line({"id": request_id, "outcome": "NOT_AN_OUTCOME"})
            return
        with state:
            client = kept_client(request)
        result["detail"] += f"request {request_id} keys {sorted(request)}{client}"
        write_line(result if request_id is None else {"id": request_id, **result})
    finally:
        with state:
            in_flight -= 1


def serve(announcement):
    write_line(announcement)
    for line in sys.stdin:
        if line.strip():
            threading.Thread(target=handle, args=(json.loads(line),), daemon=True).start()
    # Stdin closed: no more calls.
    os._exit(0)


if __name__ == "__main__":
    with open(sys.argv[1], "w") as pid_file:
        pid_file.write(str(os.getpid()))
    if os.environ.get("MCP_ERROR_LAYERS_MODE") == "persistent":
        serve(sys.argv[2] if len(sys.argv) > 2 else DEFAULT_ANNOUNCEMENT)
    else:
        one_shot()
