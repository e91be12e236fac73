"""Tests of the matrix and adapter-list scripts and of the Python adapter contract (contract.py,
kept.py): `python3 -m unittest harness/adapters/test_scripts.py`
(`cargo test --test adapter_scripts` runs them)."""

import asyncio
import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import unittest.mock
from unittest import mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import adapters  # noqa: E402
import contract  # noqa: E402
import kept  # noqa: E402
import matrix  # noqa: E402
import under_load  # noqa: E402


def call(verdict="fail", problems=(), checks=(), outcome="TOOL_SUCCESS"):
    return {
        "verdict": verdict,
        "observed": {"outcome": outcome, "status": None, "code": None},
        "expected": {"outcome": "TOOL_SUCCESS"},
        "problems": list(problems),
        "checks": [{"name": name, "passed": False} for name in checks],
    }


class Cell(unittest.TestCase):
    def test_a_pass_is_the_outcome_alone(self):
        self.assertEqual(matrix.cell(call(verdict="pass")), "TOOL_SUCCESS")

    def test_a_gap_is_shown_when_nothing_else_differs(self):
        gap = "min_gaps_ms: tools/call POST 2 came 30 ms after POST 1, expected at least 200 ms"
        self.assertEqual(matrix.cell(call(problems=[gap])), "✗ TOOL_SUCCESS (min_gaps_ms)")

    def test_a_gap_is_left_out_beside_a_steadier_difference(self):
        gap = "min_gaps_ms: tools/call POST 2 came 30 ms after POST 1, expected at least 200 ms"
        cell = matrix.cell(call(problems=[gap], checks=["new-request-id"]))
        self.assertEqual(cell, "✗ TOOL_SUCCESS (check new-request-id)")

    def test_counted_keys_and_checks_are_named_once(self):
        problems = ["tool_posts: expected 2, observed 1", "tool_posts: again"]
        cell = matrix.cell(call(problems=problems, checks=["meta-fields"]))
        self.assertEqual(cell, "✗ TOOL_SUCCESS (tool_posts, check meta-fields)")

    def test_nothing_observed_shows_the_verdict(self):
        hang = {**call(verdict="hang"), "observed": None}
        self.assertEqual(matrix.cell(hang), "✗ hang")

    def test_unsupported_is_no_deviation_and_keeps_its_reason_for_the_note(self):
        reason = "this adapter uses no task API of its client"
        skipped = {**call(verdict="unsupported", problems=[reason]), "observed": {"unsupported": reason}}
        self.assertEqual(matrix.cell(skipped), "unsupported")
        report = {"cases": [{"verdict": "unsupported", "reason": reason}] * 2 + [{"verdict": "pass"}]}
        passing = {"cases": [{"verdict": "pass"}]}
        grouped = matrix.unsupported_by_reason(["rmcp 3.11.0", "x 1", "y 2"], [report, passing, report])
        self.assertEqual(grouped, {reason: ["rmcp 3.11.0 (2 cases)", "y 2 (2 cases)"]})


class Table(unittest.TestCase):
    def report(self, name, verdict):
        case = {"id": "sse/x", "grade": "should", "verdict": verdict, "calls": [call(verdict=verdict, outcome="TIMEOUT")]}
        case["calls"][0]["expected"] = {"outcome": "TIMEOUT"}
        return {"adapter": {"name": name, "version": "1"}, "summary": {}, "cases": [case]}

    def test_a_racy_case_of_an_sdk_row_is_racy_whatever_it_did_and_not_counted(self):
        printed = io.StringIO()
        racy = {"a": {"sse/x"}, "b": set()}
        reports = [self.report("a", "fail"), self.report("b", "fail")]
        with mock.patch.object(matrix, "racy_of", lambda r: racy[r["adapter"]["name"]]), contextlib.redirect_stdout(printed):
            matrix.table(reports, "layers")
        row = next(line for line in printed.getvalue().splitlines() if line.startswith("| `sse/x`"))
        self.assertEqual(row, "| `sse/x` | should | TIMEOUT | racy | ✗ TIMEOUT |")
        self.assertIn("a 1: 0 of 1 cases deviate, b 1: 1 of 1 cases deviate", printed.getvalue())


    def test_a_bridge_table_heads_its_columns_with_hop_fidelity(self):
        printed = io.StringIO()
        report = self.report("mcp-remote", "fail")
        report["cases"][0]["calls"][0]["problems"] = ["the upstream TIMEOUT arrived as TIMEOUT: silence"]
        report["summary"] = {"hop_fidelity": {"told_apart": 68, "cases": 123}, "layer_fidelity": {"told_apart": 1, "cases": 2}}
        with mock.patch.object(matrix, "racy_of", lambda r: set()), contextlib.redirect_stdout(printed):
            matrix.table([report], "hop")
        self.assertIn("| mcp-remote 1 · hop 68/123 |", printed.getvalue())
        self.assertIn("| `sse/x` | should | TIMEOUT | ✗ TIMEOUT (not faithful) |", printed.getvalue())
        self.assertIn("faithful-hop table", printed.getvalue())


class Pages(unittest.TestCase):
    def report(self, name, outcome, verdict):
        case = {"id": f"sse/{name}-case", "grade": "must", "verdict": verdict,
                "calls": [call(verdict=verdict, outcome=outcome)]}
        summary = {"verdicts": {"hang": 0}, "layer_fidelity": {"told_apart": 1, "cases": 2}}
        return {"adapter": {"name": name, "version": "1"}, "summary": summary, "cases": [case]}

    def test_the_summary_fits_120_columns_and_names_the_commonest_deviation(self):
        long_name = "x" * 130
        reports = [self.report(long_name, "TIMEOUT", "fail"), self.report("b", "TOOL_SUCCESS", "pass")]
        with mock.patch.object(matrix, "racy_of", lambda r: set()), \
                mock.patch.object(matrix, "kind_of", lambda r: "sdk"):
            text = matrix.summary(reports, "rows/", "families/")
        self.assertTrue(all(len(line) <= 120 for line in text.splitlines()), text)
        self.assertIn("  - 1 × TOOL_SUCCESS → TIMEOUT (`sse/", text)
        self.assertIn("- [`b`](rows/b.md) 1: layers 1/2, 0 of 1 deviate, 0 hangs", text)

    def test_a_hang_in_a_racy_case_is_not_counted(self):
        reports = [self.report("b", "TOOL_SUCCESS", "hang")]
        with mock.patch.object(matrix, "kind_of", lambda r: "sdk"):
            with mock.patch.object(matrix, "racy_of", lambda r: set()):
                self.assertIn("deviate, 1 hang", matrix.summary(reports, "rows/", "families/"))
            with mock.patch.object(matrix, "racy_of", lambda r: {"sse/b-case"}):
                self.assertIn("deviate, 0 hangs", matrix.summary(reports, "rows/", "families/"))

    def test_layer_fidelity_leaves_out_racy_cases(self):
        report = self.report("b", "TIMEOUT", "fail")
        report["cases"][0]["calls"][0]["expected"] = {"outcome": "TIMEOUT"}
        report["summary"]["layer_fidelity"] = {"told_apart": 5, "cases": 9}
        with mock.patch.object(matrix, "racy_of", lambda r: set()):
            self.assertEqual(matrix.fidelity(report), "5/9")
        with mock.patch.object(matrix, "racy_of", lambda r: {"sse/b-case"}):
            self.assertEqual(matrix.fidelity(report), "4/8")
            report["cases"][0]["calls"][0]["observed"]["outcome"] = "UNCLASSIFIED_ERROR"
            self.assertEqual(matrix.fidelity(report), "5/8")
            report["cases"][0]["calls"][0]["observed"] = {"unsupported": "no tasks"}
            self.assertEqual(matrix.fidelity(report), "5/9")

    def test_told_apart_counts_a_real_report_as_the_crate_does(self):
        # The careless fixture's report, as tests/reports.rs snapshots it: counting every case
        # gives the figure the crate wrote (tests/adapter_scripts.rs checks LAYER_OF itself).
        root = pathlib.Path(__file__).resolve().parents[2]
        text = (root / "snapshots/reports/careless.json.snap").read_text()
        report = json.loads(text[text.index("\n{") + 1:])
        counted = [matrix.told_apart(c) for c in report["cases"]]
        figure = report["summary"]["layer_fidelity"]
        self.assertEqual((sum(1 for c in counted if c), sum(1 for c in counted if c is not None)),
                         (figure["told_apart"], figure["cases"]))

    def test_check_leaves_out_record_blocks_and_catches_the_rest(self):
        page = f"a\n{matrix.RECORD_START}\nagent cell\n{matrix.RECORD_END}\nb"
        other = f"a\n{matrix.RECORD_START}\nanother run\n{matrix.RECORD_END}\nb"
        self.assertEqual(matrix.without_records(page), matrix.without_records(other))
        self.assertNotEqual(matrix.without_records(page), matrix.without_records(page.replace("b", "c")))
        readme = f"intro\n{matrix.GENERATED_START} -->\nrows\n{matrix.GENERATED_END}\noutro"
        self.assertEqual(matrix.generated_block(readme), f"{matrix.GENERATED_START} -->\nrows\n{matrix.GENERATED_END}\n")


class Manifest(unittest.TestCase):
    def load(self, text):
        with tempfile.TemporaryDirectory() as folder:
            (pathlib.Path(folder) / "adapter.toml").write_text(text)
            return adapters.load(pathlib.Path(folder))

    BASE = 'sdk = "x"\nversion = "1"\ninstall = "npm"\nprogram = "a.mjs"\npersistent = true\n'

    def test_a_complete_manifest_loads(self):
        self.assertEqual(self.load(self.BASE + "threads = 16\n")["threads"], 16)

    def test_a_bridge_row_names_its_package_and_refuses_a_missing_key(self):
        bridge = ('kind = "bridge"\nbridge = "mcp-remote"\nversion = "1"\ninstall = "npm"\nexposes = "stdio"\n'
                  'command = ["x", "{upstream_url}"]\ntimeout_ms = 60000\n')
        self.assertEqual(self.load(bridge)["sdk"], "mcp-remote")
        with self.assertRaises(SystemExit) as refused:
            self.load(bridge.replace("timeout_ms = 60000\n", ""))
        self.assertIn("`timeout_ms` must be a int (see docs/bridges.md)", str(refused.exception))

    def test_threads_out_of_bounds_is_refused_with_the_range(self):
        with self.assertRaises(SystemExit) as refused:
            self.load(self.BASE + "threads = 65\n")
        self.assertIn("from 1 to 64", str(refused.exception))

    def test_an_unknown_key_is_refused_by_name(self):
        with self.assertRaises(SystemExit) as refused:
            self.load(self.BASE + "thread = 4\n")
        self.assertIn("'thread'", str(refused.exception))

    def test_run_refuses_lanes_out_of_bounds(self):
        with self.assertRaises(SystemExit) as refused:
            adapters.run(["--lanes", "0"])
        self.assertIn("from 1 to 16", str(refused.exception))



class Tasks(unittest.TestCase):
    """contract.py: a call that asks for a task reaches only an adapter that runs tasks."""

    def request(self, **extra):
        line = {"endpoint": "http://127.0.0.1:1/mcp", "tool": "t", "arguments": {}, "protocol_version": "2025-11-25", "timeout_ms": 400}
        return contract.Call.from_request({**line, **extra})

    def test_a_task_call_carries_its_task_and_an_ordinary_one_none(self):
        self.assertIsNone(self.request().task)
        self.assertEqual(self.request(task={"ttl_ms": 60000}).task, {"ttl_ms": 60000})

    def test_an_authorization_call_carries_its_credentials_in_both_modes(self):
        self.assertIsNone(self.request().auth)
        auth = {"access_token": "mel_at_1_0123456789abcdef", "refresh_token": None, "client_id": "mel-client"}
        self.assertEqual(self.request(auth=auth).auth, auth)
        env = {"MCP_ERROR_LAYERS_TOOL": "t", "MCP_ERROR_LAYERS_AUTH": json.dumps(auth)}
        with unittest.mock.patch.dict(os.environ, env):
            self.assertEqual(contract.Call.from_env("http://127.0.0.1:1/mcp").auth, auth)

    def test_an_adapter_without_tasks_answers_a_task_call_unsupported(self):
        guarded = contract.without_tasks(lambda call: {"outcome": "TOOL_SUCCESS"})
        self.assertEqual(guarded(self.request()), {"outcome": "TOOL_SUCCESS"})
        self.assertEqual(guarded(self.request(task={})), {"unsupported": contract.NO_TASKS})


class Shown(unittest.TestCase):
    """contract.py: a returned value in a detail, its type named and its repr cut at 200."""

    def test_a_short_value_is_shown_whole_and_a_long_one_cut(self):
        self.assertEqual(contract.shown("ok"), "builtins.str: 'ok'")
        cut = contract.shown("x" * 300)
        self.assertEqual(cut, "builtins.str: '" + "x" * 199 + "...")


class Transports(unittest.TestCase):
    """contract.py: a call over HTTP or over stdio, from a request line or the environment."""

    LINE = {"tool": "t", "arguments": {}, "protocol_version": "2025-11-25", "timeout_ms": 400}
    COMMAND = ["/opt/server", "stdio-server", "--session", "/tmp/s.json"]

    def test_an_http_request_keeps_its_endpoint_and_has_no_command(self):
        for line in ({}, {"transport": "http"}):
            call = contract.Call.from_request({**self.LINE, "endpoint": "http://127.0.0.1:1/mcp", **line})
            self.assertEqual((call.transport, call.stdio, call.endpoint, call.command), ("http", False, "http://127.0.0.1:1/mcp", None))

    def test_a_stdio_request_has_its_command_and_no_endpoint(self):
        call = contract.Call.from_request({**self.LINE, "transport": "stdio", "endpoint": None, "command": self.COMMAND})
        self.assertEqual((call.transport, call.stdio, call.endpoint), ("stdio", True, None))
        self.assertEqual((call.program, call.program_args), ("/opt/server", ["stdio-server", "--session", "/tmp/s.json"]))

    def test_a_stdio_request_needs_a_command_and_a_known_transport(self):
        for bad in ({"transport": "stdio"}, {"transport": "stdio", "command": []}, {"transport": "stdio", "command": "/opt/server"},
                    {"transport": "stdio", "command": ["/opt/server", 1]}, {"transport": "ws", "command": self.COMMAND}):
            with self.assertRaises(ValueError, msg=bad):
                contract.Call.from_request({**self.LINE, "endpoint": None, **bad})

    def env(self, **extra):
        base = {"MCP_ERROR_LAYERS_TOOL": "t", "MCP_ERROR_LAYERS_TIMEOUT_MS": "400"}
        return mock.patch.dict(os.environ, {**base, **{f"MCP_ERROR_LAYERS_{k}": v for k, v in extra.items()}})

    def test_one_shot_over_stdio_reads_the_command_and_the_word_stdio(self):
        with self.env(TRANSPORT="stdio", STDIO_COMMAND=json.dumps(self.COMMAND)):
            call = contract.Call.from_env("stdio")
        self.assertEqual((call.transport, call.endpoint, call.command), ("stdio", None, tuple(self.COMMAND)))

    def test_one_shot_over_http_ignores_a_command_and_defaults_to_http(self):
        with self.env(TRANSPORT="http", STDIO_COMMAND="not json"):
            self.assertEqual(contract.Call.from_env("http://127.0.0.1:1/mcp").command, None)
        with mock.patch.dict(os.environ, {"MCP_ERROR_LAYERS_TOOL": "t"}):
            os.environ.pop("MCP_ERROR_LAYERS_TRANSPORT", None)
            self.assertEqual(contract.Call.from_env("http://127.0.0.1:1/mcp").transport, "http")

    def test_one_shot_refuses_a_last_argument_that_is_not_its_transports(self):
        with self.env(TRANSPORT="http"), self.assertRaises(ValueError):
            contract.Call.from_env("stdio")
        with self.env(TRANSPORT="stdio", STDIO_COMMAND=json.dumps(self.COMMAND)), self.assertRaises(ValueError):
            contract.Call.from_env("http://127.0.0.1:1/mcp")
        with self.env(TRANSPORT="stdio"), self.assertRaises(KeyError):
            contract.Call.from_env("stdio")

    def test_a_row_that_speaks_http_only_answers_a_stdio_call_unsupported(self):
        guarded = contract.only_over(("http",), lambda call: {"outcome": "TOOL_SUCCESS"})
        stdio = contract.Call.from_request({**self.LINE, "transport": "stdio", "endpoint": None, "command": self.COMMAND})
        http = contract.Call.from_request({**self.LINE, "endpoint": "http://127.0.0.1:1/mcp"})
        self.assertEqual(guarded(http), {"outcome": "TOOL_SUCCESS"})
        self.assertIn("does not drive its client over stdio", guarded(stdio)["unsupported"])


# A whole adapter on contract.main: its detail says which transport and command it was given.
ECHO_ADAPTER = f"""
import sys
sys.path.insert(0, {str(pathlib.Path(__file__).resolve().parent)!r})
import contract
def call(one):
    return contract.observation("TOOL_SUCCESS", f"{{one.transport}} {{one.endpoint}} {{list(one.command or [])}}")
contract.main(lambda arguments: call, package="pip", transports=tuple(sys.argv[1].split(",")))
"""


class TransportsEndToEnd(unittest.TestCase):
    """contract.main over stdio: one-shot with the word `stdio` last, persistent with request lines."""

    COMMAND = ["/opt/server", "stdio-server"]

    def run_adapter(self, transports, *arguments, env=None, lines=None):
        with tempfile.TemporaryDirectory() as folder:
            script = pathlib.Path(folder) / "adapter.py"
            script.write_text(ECHO_ADAPTER)
            environment = {k: v for k, v in os.environ.items() if not k.startswith("MCP_ERROR_LAYERS_")}
            environment.update(env or {})
            done = subprocess.run([sys.executable, str(script), transports, *arguments], input="".join(json.dumps(line) + "\n" for line in lines or []),
                                  capture_output=True, text=True, env=environment, timeout=60)
        return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]

    def test_one_shot_over_stdio(self):
        env = {"MCP_ERROR_LAYERS_TOOL": "t", "MCP_ERROR_LAYERS_TRANSPORT": "stdio", "MCP_ERROR_LAYERS_STDIO_COMMAND": json.dumps(self.COMMAND)}
        code, (line,) = self.run_adapter("http,stdio", "stdio", env=env)
        self.assertEqual((code, line["detail"]), (0, "stdio None ['/opt/server', 'stdio-server']"))
        code, (line,) = self.run_adapter("http", "stdio", env=env)
        self.assertIn("unsupported", line)

    def test_one_shot_over_http_is_as_before(self):
        code, (line,) = self.run_adapter("http,stdio", "http://127.0.0.1:1/mcp", env={"MCP_ERROR_LAYERS_TOOL": "t"})
        self.assertEqual((code, line["detail"]), (0, "http http://127.0.0.1:1/mcp []"))

    def test_persistent_over_both(self):
        base = {"tool": "t", "arguments": {}, "protocol_version": "2025-11-25", "timeout_ms": 400}
        lines = [{"id": 1, **base, "endpoint": "http://127.0.0.1:1/mcp"},
                 {"id": 2, **base, "transport": "stdio", "endpoint": None, "command": self.COMMAND}]
        code, answers = self.run_adapter("http,stdio", env={"MCP_ERROR_LAYERS_MODE": "persistent"}, lines=lines)
        details = {answer["id"]: answer["detail"] for answer in answers[1:]}
        self.assertEqual((code, answers[0]["persistent"]), (0, 1))
        self.assertEqual(details, {1: "http http://127.0.0.1:1/mcp []", 2: "stdio None ['/opt/server', 'stdio-server']"})


if __name__ == "__main__":
    unittest.main()


class FakeHttpx:
    """The httpx classes `contract.from_http_layer` reads, without httpx (standard library only)."""

    class HTTPError(Exception):
        pass

    class HTTPStatusError(HTTPError):
        def __init__(self, message, status):
            super().__init__(message)
            self.response = type("Response", (), {"status_code": status})()

    class TimeoutException(HTTPError):
        pass

    class NetworkError(HTTPError):
        pass

    class ConnectError(NetworkError):
        pass

    class RemoteProtocolError(HTTPError):
        pass


def caught_observation(error):
    """What a row makes of `error` through the contract alone: its HTTP layer, else unclassified."""
    text = contract.caught(error)
    return contract.from_http_layer(FakeHttpx, error, text) or contract.observation("UNCLASSIFIED_ERROR", text)


class WhatTheApplicationCatches(unittest.TestCase):
    def test_a_bare_http_error_keeps_its_layer(self):
        seen = caught_observation(FakeHttpx.HTTPStatusError("Server error '503 Service Unavailable'", 503))
        self.assertEqual((seen["outcome"], seen["status"]), ("HTTP_ERROR", 503))

    def test_a_group_is_unclassified_and_names_the_group_and_its_leaf(self):
        leaf = FakeHttpx.HTTPStatusError("Server error '503 Service Unavailable'", 503)
        seen = caught_observation(ExceptionGroup("unhandled errors in a TaskGroup", [leaf]))
        self.assertEqual((seen["outcome"], seen["status"], seen["code"]), ("UNCLASSIFIED_ERROR", None, None))
        self.assertEqual(
            seen["detail"],
            "builtins.ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception), holding: "
            f"{__name__}.FakeHttpx.HTTPStatusError: Server error '503 Service Unavailable'",
        )

    def test_nested_groups_show_every_leaf_with_its_causes_and_drop_cancellations(self):
        try:
            raise RuntimeError("connection loss") from ConnectionResetError("reset by peer")
        except RuntimeError as error:
            wrapped = error
        inner = BaseExceptionGroup("inner", [wrapped, asyncio.CancelledError()])
        group = BaseExceptionGroup("outer", [inner, ValueError("second")])
        detail = caught_observation(group)["detail"]
        self.assertIn("builtins.BaseExceptionGroup: outer (2 sub-exceptions), holding: ", detail)
        self.assertIn("builtins.RuntimeError: connection loss <- caused by builtins.ConnectionResetError: reset by peer", detail)
        self.assertIn(" | builtins.ValueError: second", detail)
        self.assertNotIn("CancelledError", detail)

    def test_a_group_of_cancellations_only_says_so(self):
        group = BaseExceptionGroup("cancelled", [asyncio.CancelledError()])
        self.assertTrue(contract.caught(group).endswith("holding: only cancellations"))


class FakeRow(kept.Row):
    """A row whose client is a dict counting its opens; the call's arguments script what happens:
    {"raise": text} raises at the call, {"die": text} ends the client's context with a group,
    {"fail_open": text} fails the handshake, {"close_error": text} makes the exit raise."""

    def __init__(self) -> None:
        self.opened = 0
        # Set when a client's session task dies (from the client's own thread).
        self.died = threading.Event()

    def steps(self) -> contract.Steps:
        return contract.Steps(connect="connect", list="list", call="call")

    @contextlib.asynccontextmanager
    async def open(self, call: contract.Call):
        self.opened += 1
        client = {"number": self.opened, "calls": 0, "dead": asyncio.Event()}
        async with asyncio.TaskGroup() as group:
            group.create_task(self._session_task(client))
            yield client
            client["dead"].set()

    async def _session_task(self, client):
        await client["dead"].wait()
        if client.get("die"):
            self.died.set()
            raise RuntimeError(client["die"])
        if client.get("close_error"):
            raise ValueError(client["close_error"])

    async def start(self, client, call):
        if "fail_open" in call.arguments:
            raise ConnectionError(call.arguments["fail_open"])

    async def call(self, client, call, steps):
        client["calls"] += 1
        client["close_error"] = call.arguments.get("close_error")
        if "raise" in call.arguments:
            raise KeyError(call.arguments["raise"])
        if "die" in call.arguments:
            client["die"] = call.arguments["die"]
            client["dead"].set()
            await asyncio.sleep(10)  # cancelled by the dying task group
        if "die_after" in call.arguments:
            # The session's task dies once this call has answered, before the next comes.
            client["die"] = call.arguments["die_after"]
            asyncio.get_running_loop().call_later(0.05, client["dead"].set)
        return contract.observation("TOOL_SUCCESS", f"client {client['number']} call {client['calls']}")

    def error(self, error, call, steps):
        return contract.observation("UNCLASSIFIED_ERROR", steps.where + contract.caught(error))


async def _raise_later(client, seen):
    """A session task that dies of the error the call raised, once the call raised it."""
    await client["dead"].wait()
    raise seen[0]


def case_calls(*arguments, client=1):
    """The calls of one case on client `client`, with these arguments."""
    return [
        contract.Call(endpoint="http://127.0.0.1:1/mcp", tool="t", arguments=args, protocol_version="2025-11-25",
                      timeout_ms=1000, annotations={}, list_tools=False, client=client, index=n, calls=len(arguments))
        for n, args in enumerate(arguments)
    ]


class OneClientPerCase(unittest.TestCase):
    def serve(self, row, calls):
        call = kept.serving(row)
        return [call(one)["detail"] for one in calls]

    def test_the_calls_of_a_case_share_one_client_and_another_case_gets_its_own(self):
        row = FakeRow()
        self.assertEqual(self.serve(row, case_calls({}, {}, {})), ["client 1 call 1", "client 1 call 2", "client 1 call 3"])
        self.assertEqual(self.serve(row, case_calls({}, client=2)), ["client 2 call 1"])
        self.assertEqual(row.opened, 2)

    def test_an_error_at_a_call_leaves_the_client_for_the_next(self):
        row = FakeRow()
        details = self.serve(row, case_calls({"raise": "boom"}, {}))
        self.assertEqual(details, ["call failed: builtins.KeyError: 'boom'", "client 1 call 2"])
        self.assertEqual(row.opened, 1)

    def test_a_failed_handshake_is_the_calls_observation_and_the_next_call_opens_again(self):
        row = FakeRow()
        details = self.serve(row, case_calls({"fail_open": "refused"}, {}))
        self.assertEqual(details, ["connect failed: builtins.ConnectionError: refused", "client 2 call 1"])

    def test_a_context_that_dies_fails_its_call_as_caught_and_leaves_no_client(self):
        row = FakeRow()
        died, after = self.serve(row, case_calls({"die": "transport gone"}, {}))
        self.assertTrue(died.startswith("call failed: builtins.ExceptionGroup: unhandled errors in a TaskGroup"), died)
        self.assertIn("builtins.RuntimeError: transport gone", died)
        self.assertTrue(after.startswith("no client: its context ended at call 1 with builtins.ExceptionGroup"), after)
        self.assertEqual(row.opened, 1)

    def test_a_context_that_dies_between_calls_leaves_the_next_call_no_client(self):
        row = FakeRow()
        call = kept.serving(row)
        first, second = case_calls({"die_after": "stream gone"}, {})
        self.assertEqual(call(first)["detail"], "client 1 call 1")
        self.assertTrue(row.died.wait(5))
        time.sleep(0.1)  # the group's exit, on the client's loop, a few callbacks after
        after = call(second)["detail"]
        self.assertTrue(after.startswith("no client: its context ended after call 1 with builtins.ExceptionGroup"), after)
        self.assertIn("builtins.RuntimeError: stream gone", after)
        self.assertEqual(row.opened, 1)

    def test_an_error_on_close_that_the_last_call_raised_already_is_named_once(self):
        row = FakeRow()
        seen = []

        async def call(client, one, steps):
            client["dead"].set()
            error = KeyError("reset")
            client["close_error"] = None
            seen.append(error)
            raise error

        row.call = call
        row._session_task = lambda client: _raise_later(client, seen)
        (detail,) = self.serve(row, case_calls({}))
        self.assertEqual(
            detail,
            "call failed: builtins.KeyError: 'reset'; then on close: builtins.ExceptionGroup: "
            "unhandled errors in a TaskGroup (1 sub-exception), holding the same builtins.KeyError again",
        )

    def test_an_error_on_close_after_the_last_call_goes_into_its_detail(self):
        (detail,) = self.serve(FakeRow(), case_calls({"close_error": "DELETE refused"}))
        self.assertTrue(detail.startswith("client 1 call 1; then on close: builtins.ExceptionGroup"), detail)
        self.assertIn("builtins.ValueError: DELETE refused", detail)

    def test_a_teardown_that_shields_itself_past_the_bound_does_not_hold_the_last_answer(self):
        row = FakeRow()
        opened = row.open

        @contextlib.asynccontextmanager
        async def open_slow_to_close(call):
            async with opened(call) as client:
                yield client
            # As mcp 2.x's stdio shutdown: shielded from the cancel, and longer than the bound.
            end = asyncio.get_running_loop().time() + 1.5
            while (left := end - asyncio.get_running_loop().time()) > 0:
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.sleep(left)

        row.open = open_slow_to_close
        with mock.patch.object(kept, "TEARDOWN_SECONDS", 0.2):
            started = time.monotonic()
            (detail,) = self.serve(row, case_calls({}))
            took = time.monotonic() - started
        self.assertEqual(detail, "client 1 call 1")
        self.assertLess(took, 1.2)


class UnderLoad(unittest.TestCase):
    def test_only_cases_whose_calls_differ_are_listed_with_both_sides(self):
        idle = {"a": [("pass", "TOOL_SUCCESS", None, None)], "b": [("pass", "TIMEOUT", None, None)]}
        busy = {"a": [("pass", "TOOL_SUCCESS", None, None)], "b": [("fail", "TIMEOUT", None, None)]}
        lines = under_load.differences(idle, busy)
        self.assertEqual(len(lines), 1)
        self.assertIn("b: idle [('pass', 'TIMEOUT', None, None)]", lines[0])
        self.assertIn("busy [('fail', 'TIMEOUT', None, None)]", lines[0])

    def test_a_case_run_only_once_differs(self):
        lines = under_load.differences({"a": [("pass", "TOOL_SUCCESS", None, None)]}, {})
        self.assertEqual(lines, ["  a: idle [('pass', 'TOOL_SUCCESS', None, None)] / busy None"])
