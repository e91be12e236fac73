"""Validates what the wire server sent against the official MCP types of each era, with the
models of the PyPI package `mcp-types` (the Python SDK's wire types, generated from the spec's
schema for 2025-11-25 and 2026-07-28), and writes what it found as JSON.

Usage:
    validate_wire.py exchanges EXCHANGES.json OUT.json
    validate_wire.py report REPORT.json CASES_DIR OUT.json

`exchanges`: a list of {"label", "version", "method", "id", "response"} (`response`: the raw
HTTP response as text). `report`: a JSON report of this harness (`run --json`); every exchange
in it is checked in the version the request speaks (its MCP-Protocol-Version header, or the
version an `initialize` offers; else the case's `protocol_version`: a client that fell back to
2025 gets 2025 answers), and a case's `breaks_on_purpose` key (read from CASES_DIR/<id>.toml)
exempts the parts it names. A case without a file there (a test fixture's) is not checked; its
id is listed in `unknown_cases`.

OUT.json: {"checked": N, "messages": N, "problems": [{"label", "part", "problem", "exempt"}],
"unknown_cases": [id, ...]},
`exempt` when the case breaks that part on purpose. The parts:
`http` (framing: status, Content-Type, an empty 202), `envelope` (JSON, JSON-RPC 2.0, the id),
`result` (the result, error, request or notification against its era's model), and
`unmodeled`: a task answer (a `tasks/*` result, a `tools/call` answered with a task), which
mcp-types 2.3.0 has no model for (it has neither the 2025-11-25 task methods nor the 2026-07-28
tasks extension): its envelope is checked, its result is not, and it is listed, not passed.
"""

import json
import sys
import tomllib
from pathlib import Path

import pydantic
from mcp_types import methods
from mcp_types.jsonrpc import JSONRPCError, JSONRPCResponse
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

# A case without `protocol_version` is a 2026-07-28 case (cases/README.md).
CASE_DEFAULT = "2026-07-28"


def parse_http(raw):
    """(status, headers, body) of a raw HTTP/1.1 response, chunked bodies joined; None if the
    bytes are no HTTP response (a reset, a case's garbage)."""
    head, _, body = raw.partition("\r\n\r\n")
    lines = head.split("\r\n")
    words = lines[0].split(" ")
    if len(words) < 2 or not words[0].startswith("HTTP/") or not words[1].isdigit():
        return None
    status = int(words[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = dechunk(body)
    return status, headers, body


def dechunk(body):
    out, rest = [], body
    while rest:
        size_line, _, rest = rest.partition("\r\n")
        size = int(size_line.split(";")[0] or "0", 16)
        if size == 0:
            break
        out.append(rest[:size])
        rest = rest[size + 2 :]
    return "".join(out)


def sse_messages(body):
    """The data of each SSE event that has data: an empty `data:` is a priming event (2025-11-25
    transports: an event ID and an empty data field), not a message."""
    events = body.replace("\r\n", "\n").split("\n\n")
    for event in events:
        data = [l[5:].removeprefix(" ") for l in event.split("\n") if l.startswith("data:")]
        text = "\n".join(data)
        if text.strip():
            yield text


def messages_of(status, headers, body):
    """The JSON-RPC texts a response carries, and its framing problems."""
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    problems = []
    if status == 202 and body:
        problems.append(f"202 Accepted with a body of {len(body)} bytes")
    if not body:
        return [], problems
    if kind == "text/event-stream":
        return list(sse_messages(body)), problems
    if kind != "application/json":
        # An error status may carry any body (a proxy's text); a 2xx one carries messages.
        if 200 <= status < 300:
            problems.append(f"a {status} body with Content-Type {kind or 'none'!r}")
        return [], problems
    return [body], problems


def check_message(text, version, method, request_id):
    """(part, problem) pairs for one JSON-RPC message sent in answer to `method`."""
    try:
        message = json.loads(text)
    except ValueError as e:
        return [("envelope", f"not JSON: {e}")]
    if not isinstance(message, dict):
        return [("envelope", "not a JSON object")]
    if "method" in message:
        return check_server_message(message, version)
    if "error" in message:
        return check_error(message, request_id)
    return check_response(message, version, method, request_id)


def check_server_message(message, version):
    parse = methods.parse_server_request if "id" in message else methods.parse_server_notification
    try:
        parse(message["method"], version, message.get("params"))
    except KeyError:
        return [("result", f"{message['method']} is not a server message of {version}")]
    except pydantic.ValidationError as e:
        return [("result", f"{message['method']}: {short(e)}")]
    return []


def check_error(message, request_id):
    try:
        JSONRPCError.model_validate(message)
    except pydantic.ValidationError as e:
        return [("envelope", f"error: {short(e)}")]
    if message["id"] is not None and message["id"] != request_id:
        return [("envelope", f"error id {message['id']!r}, the request's is {request_id!r}")]
    return []


# The methods of the 2025-11-25 tasks utility and of the 2026-07-28 tasks extension (SEP-2663).
TASK_METHODS = ("tasks/get", "tasks/result", "tasks/cancel", "tasks/list", "tasks/update")


def task_answer(method, result):
    """Why `result` is a task answer mcp-types cannot judge, or None."""
    if method in TASK_METHODS:
        return f"{method} is a task method"
    if method == "tools/call" and isinstance(result, dict) and ("task" in result or result.get("resultType") == "task"):
        return "tools/call answered with a task"
    return None


def check_response(message, version, method, request_id):
    try:
        JSONRPCResponse.model_validate(message)
    except pydantic.ValidationError as e:
        return [("envelope", f"response: {short(e)}")]
    problems = []
    if message["id"] != request_id:
        problems.append(("envelope", f"id {message['id']!r}, the request's is {request_id!r}"))
    unmodeled = task_answer(method, message["result"])
    if unmodeled:
        return problems + [("unmodeled", f"{unmodeled}: mcp-types has no model for it in {version}")]
    try:
        methods.validate_server_result(method, version, message["result"])
    except KeyError:
        problems.append(("result", f"{method} has no result in {version}"))
    except pydantic.ValidationError as e:
        problems.append(("result", f"{method} result: {short(e)}"))
    return problems


def short(error):
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top)"
    return f"{where}: {first['msg']} ({error.error_count()} error(s))"


def check_exchange(item, exempt=()):
    parsed = parse_http(item["response"])
    if parsed is None:
        texts, framing = [], [f"not an HTTP response: {item['response'][:40]!r}"]
    else:
        texts, framing = messages_of(*parsed)
    found = [("http", p) for p in framing]
    for text in texts:
        found += check_message(text, item["version"], item["method"], item["id"])
    problems = [
        {"label": item["label"], "part": part, "problem": problem, "exempt": part in exempt}
        for part, problem in found
    ]
    return problems, len(texts)


def exchanges_of_report(report, cases_dir, unknown):
    """(item, exempt parts) for every exchange answering a JSON-RPC request in a report; the
    ids of cases without a file in `cases_dir` go into `unknown`."""
    for case in report["cases"]:
        if not case.get("server", {}).get("exchanges"):
            continue
        spec = case_file(cases_dir, case["id"])
        if spec is None:
            unknown.append(case["id"])
            continue
        exempt = tuple(spec.get("breaks_on_purpose", []))
        version = spec.get("protocol_version", CASE_DEFAULT)
        for at, exchange in enumerate(case.get("server", {}).get("exchanges", [])):
            item = report_item(case["id"], at, exchange, version)
            if item:
                yield item, exempt + stray_reply(exchange, item)


def stray_reply(exchange, item):
    """A scripted reply is written as a `tools/call` answer; one that a case aims at every POST
    and that lands on another request (a client's `initialize`) is judged as JSON-RPC only."""
    by_script = (exchange.get("reply") or {}).get("by") == "script"
    return ("result",) if by_script and item["method"] != "tools/call" else ()


def case_file(cases_dir, case_id):
    path = Path(cases_dir) / f"{case_id}.toml"
    if not path.is_file():
        return None
    with open(path, "rb") as f:
        return tomllib.load(f)


def report_item(case_id, at, exchange, case_version):
    reply = exchange.get("reply") or {}
    if exchange.get("http_method") != "POST" or "bytes" not in reply:
        return None
    try:
        request = json.loads(exchange.get("body") or "")
    except ValueError:
        return None
    if not isinstance(request, dict) or "method" not in request or "id" not in request:
        return None
    version = spoken_version(exchange, request, case_version)
    return {
        "label": f"{case_id} exchange {at + 1} ({request['method']}, by {reply.get('by')})",
        "version": version,
        "method": request["method"],
        "id": request["id"],
        "response": reply["bytes"],
    }


def spoken_version(exchange, request, case_version):
    """The version the prelude answers in: what the request speaks (its header, or the version
    an `initialize` offers), else the case's."""
    headers = dict(exchange.get("headers", []))
    version = headers.get("mcp-protocol-version")
    if request["method"] == "initialize":
        version = (request.get("params") or {}).get("protocolVersion")
    return version if version in KNOWN_PROTOCOL_VERSIONS else case_version


def main(argv):
    unknown = []
    if argv[:1] == ["exchanges"] and len(argv) == 3:
        with open(argv[1]) as f:
            pairs = [(item, ()) for item in json.load(f)]
        out = argv[2]
    elif argv[:1] == ["report"] and len(argv) == 4:
        with open(argv[1]) as f:
            pairs = list(exchanges_of_report(json.load(f), argv[2], unknown))
        out = argv[3]
    else:
        sys.exit(__doc__)
    seen = {"checked": 0, "messages": 0, "problems": [], "unknown_cases": unknown}
    for item, exempt in pairs:
        problems, count = check_exchange(item, exempt)
        seen["checked"] += 1
        seen["messages"] += count
        seen["problems"] += problems
    with open(out, "w") as f:
        json.dump(seen, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
