"""Tests of the matrix and adapter-list scripts: `python3 -m unittest harness/adapters/test_scripts.py`
(`cargo test --test adapter_scripts` runs them)."""

import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import adapters  # noqa: E402
import contract  # noqa: E402
import matrix  # noqa: E402


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


class Manifest(unittest.TestCase):
    def load(self, text):
        with tempfile.TemporaryDirectory() as folder:
            (pathlib.Path(folder) / "adapter.toml").write_text(text)
            return adapters.load(pathlib.Path(folder))

    BASE = 'sdk = "x"\nversion = "1"\ninstall = "npm"\nprogram = "a.mjs"\npersistent = true\n'

    def test_a_complete_manifest_loads(self):
        self.assertEqual(self.load(self.BASE + "threads = 16\n")["threads"], 16)

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


if __name__ == "__main__":
    unittest.main()
