"""Tests of sweep.py: `python3 -m unittest harness/adapters/test_sweep.py` (`cargo test --test
adapter_scripts` runs them). No network: the registries' answers are stubbed."""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import sweep  # noqa: E402


def adapter(install="npm", **table):
    return {"id": "x", "sdk": "pkg", "install": install, "sweep": table}


def answer(stdout):
    return subprocess.CompletedProcess([], 0, stdout=stdout, stderr="")


class Versions(unittest.TestCase):
    def test_releases_sort_by_number_and_a_pre_release_before_its_release(self):
        versions = ["1.10.0", "2.0.0", "1.9.1", "2.0.0-beta.2", "2.0.0rc1"]
        self.assertEqual(sorted(versions, key=sweep.version_key),
                         ["1.9.1", "1.10.0", "2.0.0-beta.2", "2.0.0rc1", "2.0.0"])

    def test_latest_from_npm_drops_pre_releases_and_keeps_the_last_n(self):
        listed = json.dumps(["1.9.0", "1.10.0", "2.0.0-beta.1", "1.11.0"])
        with mock.patch.object(sweep.subprocess, "run", return_value=answer(listed)) as run:
            self.assertEqual(sweep.latest(adapter(), 2), ["1.10.0", "1.11.0"])
        self.assertEqual(run.call_args.args[0], ["npm", "view", "pkg", "versions", "--json"])

    def test_latest_from_pip_reads_its_list_and_the_lines_filter_it(self):
        listed = "pkg (2.1.0)\nAvailable versions: 2.1.0, 2.0.0, 2.0.0rc1, 1.30.0, 1.29.1\n"
        with mock.patch.object(sweep.subprocess, "run", return_value=answer(listed)):
            self.assertEqual(sweep.latest(adapter("pip"), 3), ["1.30.0", "2.0.0", "2.1.0"])
            self.assertEqual(sweep.latest(adapter("pip", lines=["1."]), 3), ["1.29.1", "1.30.0"])

    def test_latest_from_the_go_module_proxy_drops_the_v_and_pre_releases(self):
        listed = "github.com/o/sdk v1.6.0 v1.7.0-pre.1 v1.7.0 v1.8.0-pre.2 v1.8.0\n"
        with mock.patch.object(sweep.subprocess, "run", return_value=answer(listed)) as run:
            self.assertEqual(sweep.latest(adapter("go"), 2), ["1.7.0", "1.8.0"])
        self.assertEqual(run.call_args.args[0], ["go", "list", "-m", "-versions", "pkg"])
        self.assertEqual(run.call_args.kwargs["env"]["GOTOOLCHAIN"], "local")

    def test_latest_from_maven_central_reads_its_metadata_and_drops_pre_releases(self):
        metadata = (b"<metadata><groupId>io.o</groupId><artifactId>sdk</artifactId><versioning><versions>"
                    b"<version>2.0.0-RC1</version><version>2.0.0</version><version>2.1.0</version>"
                    b"<version>2.2.0-M1</version><version>2.2.0</version></versions></versioning></metadata>")
        page = mock.MagicMock()
        page.__enter__.return_value.read.return_value = metadata
        maven = {**adapter("maven"), "sdk": "io.o:sdk"}
        with mock.patch.object(sweep.urllib.request, "urlopen", return_value=page) as urlopen:
            self.assertEqual(sweep.latest(maven, 2), ["2.1.0", "2.2.0"])
        self.assertEqual(urlopen.call_args.args[0],
                         "https://repo.maven.apache.org/maven2/io/o/sdk/maven-metadata.xml")

    def test_latest_from_maven_says_so_when_central_cannot_be_read(self):
        maven = {**adapter("maven"), "sdk": "io.o:sdk"}
        with mock.patch.object(sweep.urllib.request, "urlopen", side_effect=OSError("unreachable")):
            with self.assertRaises(SystemExit) as exit:
                sweep.latest(maven, 2)
        self.assertIn("maven-metadata.xml could not be read (unreachable)", str(exit.exception))

    def test_a_maven_version_is_set_on_the_one_dependency_it_names(self):
        with tempfile.TemporaryDirectory() as folder:
            pom = pathlib.Path(folder) / "pom.xml"
            pom.write_text("<dependencies><dependency>\n  <groupId>io.o</groupId>\n  <artifactId>sdk</artifactId>\n"
                           "  <version>2.2.0</version>\n</dependency><dependency><groupId>io.o</groupId>"
                           "<artifactId>sdk-extra</artifactId><version>1.0</version></dependency></dependencies>")
            self.assertIsNone(sweep.maven_pin(pom, "io.o:sdk", "2.1.0"))
            self.assertIn("<version>2.1.0</version>", pom.read_text())
            self.assertIn("<version>1.0</version>", pom.read_text())
            self.assertIn("has 0 <dependency>", sweep.maven_pin(pom, "io.o:other", "1"))

    def test_an_unknown_sweep_key_names_the_file_and_the_readme(self):
        with self.assertRaises(SystemExit) as exit:
            sweep.sweep_settings(adapter(pacakge="typo"))
        self.assertIn("harness/adapters/x/adapter.toml", str(exit.exception))
        self.assertIn("pacakge", str(exit.exception))


class Shards(unittest.TestCase):
    def test_k_of_n_parses_and_the_rest_is_refused(self):
        self.assertEqual(sweep.shard("2/3"), (2, 3))
        for bad in ["0/2", "3/2", "1/0", "junk"]:
            with self.assertRaises(argparse.ArgumentTypeError):
                sweep.shard(bad)

    def test_the_split_is_run_shards_split(self):
        # The same pins as src/report/shard.rs: one hash for cases and versions.
        self.assertTrue(sweep.in_shard("sse/final-result", 2, 2))
        self.assertTrue(sweep.in_shard("jsonrpc/wrong-id", 1, 2))
        versions = [f"1.{i}.0" for i in range(40)]
        owners = [sum(sweep.in_shard(v, k, 3) for k in (1, 2, 3)) for v in versions]
        self.assertEqual(owners, [1] * 40)


def case(verdict="fail", posts=1, detail="", log=None, problems=()):
    observed = None if verdict == "adapter-error" else {"outcome": "UNCLASSIFIED_ERROR", "detail": detail}
    return {"verdict": verdict, "calls": [{"tool_posts": posts, "observed": observed,
                                           "adapter_log": log, "problems": list(problems)}]}


class Undrivable(unittest.TestCase):
    def test_every_case_an_adapter_error_names_the_error_line_of_its_stderr(self):
        log = "node:internal/modules\nError [ERR_MODULE_NOT_FOUND]: Cannot find module 'x.js'\nNode.js v20"
        why = sweep.undrivable([case("adapter-error", 0, log=log), case("adapter-error", 0)])
        self.assertIn("every case is an adapter error (Error [ERR_MODULE_NOT_FOUND]: Cannot find module", why)

    def test_no_case_reaching_tools_call_names_the_first_detail(self):
        detail = "connect (initialize) failed: Error: Server's protocol version is not supported"
        why = sweep.undrivable([case(posts=0, detail=detail), case(posts=0)])
        self.assertEqual(why, f"the adapter cannot drive it: no case reached tools/call ({detail})")

    def test_a_version_that_made_one_call_is_a_column(self):
        self.assertIsNone(sweep.undrivable([case(posts=0), case("pass", 1), case("adapter-error", 1)]))


class Slim(unittest.TestCase):
    def test_slim_drops_exchanges_transcripts_and_logs_and_keeps_the_rest(self):
        report = {"schema": "s", "cases": [{"id": "a", "server": {"exchanges": [{"at_ms": 1}]},
                                            "transcript": "POST /", "calls": [
                                                {"adapter_log": "stderr", "tool_posts": 2}]}]}
        with tempfile.TemporaryDirectory() as dir:
            path = pathlib.Path(dir) / "1.0.0.json"
            path.write_text(json.dumps(report))
            sweep.slim(path)
            case = json.loads(path.read_text())["cases"][0]
        self.assertEqual(case["server"], {"exchanges": []})
        self.assertEqual((case["transcript"], case["calls"][0]["adapter_log"]), ("", None))
        self.assertEqual(case["calls"][0]["tool_posts"], 2)


class History(unittest.TestCase):
    def test_a_version_leaves_its_report_or_why_there_is_none(self):
        out = pathlib.Path("out")
        self.assertEqual(sweep.swept_file(out, "1.0.0", ran=True), out / "1.0.0.json")
        self.assertEqual(sweep.swept_file(out, "1.0.0", ran=False), out / "1.0.0.unavailable.txt")

    def test_the_history_is_of_the_reports_folder_or_the_versions_swept_folded_into_a_kept_one(self):
        out, line = pathlib.Path("/t/reports"), pathlib.Path("/repo/harness/history/x")
        swept = [out / "1.0.0.json", out / "1.1.0.unavailable.txt"]
        command = sweep.history_command(out, swept, None)
        self.assertEqual(command[:4], ["cargo", "run", "--locked", "-q"])
        self.assertEqual(command[-3:], ["report", "history", "/t/reports"])
        self.assertEqual(sweep.history_command(out, swept, line)[-5:],
                         ["report", "history", str(line), "/t/reports/1.0.0.json", "/t/reports/1.1.0.unavailable.txt"])

    def test_history_and_no_history_together_or_half_a_kept_history_are_refused(self):
        with tempfile.TemporaryDirectory() as dir, mock.patch("sys.stderr"):
            with self.assertRaises(SystemExit) as exit:
                sweep.main(["typescript-sdk", "1.0.0", "--history", dir, "--no-history"])
            self.assertEqual(exit.exception.code, 2)
            (pathlib.Path(dir) / "cases.tsv").write_text("")
            with mock.patch.object(sweep.subprocess, "run") as run, self.assertRaises(SystemExit) as exit:
                sweep.main(["typescript-sdk", "1.0.0", "--history", dir])
            self.assertEqual(exit.exception.code, 2)
            run.assert_not_called()


if __name__ == "__main__":
    unittest.main()
