#!/usr/bin/env python3
"""Runs an SDK row again from the command line, with the flags its JSON report's header prints,
and checks that the verdicts are the row's: what a reader of a report can do by hand.

    python3 harness/adapters/reproduce.py ID [--report FILE] [--bin PROGRAM]

FILE is the row's JSON report (default target/sdk-reports/ID.json, which `cargo test` writes with
MCP_ERROR_LAYERS_SDK_REPORTS, as .ci/run does); PROGRAM the mcp-error-layers binary (default
target/debug/mcp-error-layers, which `cargo test` and `cargo run` build). Per case and call it
compares the verdict and the observed outcome, status and code; it prints each difference and
exits 1 when there is one.
"""

import argparse
import json
import shlex
import subprocess
import sys
import tempfile

import adapters


def observed(call: dict) -> tuple:
    seen = call.get("observed") or {}
    return (call["verdict"], seen.get("outcome"), seen.get("status"), seen.get("code"))


def verdicts(report: dict) -> dict:
    return {case["id"]: [observed(call) for call in case["calls"]] for case in report["cases"]}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="reproduce.py")
    parser.add_argument("id")
    parser.add_argument("--report")
    parser.add_argument("--bin", default=str(adapters.target() / "debug" / "mcp-error-layers"))
    args = parser.parse_args(argv)
    row = next((a for a in adapters.all_adapters() if a["id"] == args.id), None)
    if row is None:
        sys.exit(f"no adapter {args.id!r}; `adapters.py list` names them")
    path = args.report or str(adapters.target() / "sdk-reports" / f"{args.id}.json")
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    flags = shlex.split(report["settings"]["flags"])
    with tempfile.TemporaryDirectory() as scratch:
        again_path = f"{scratch}/again.json"
        command = [args.bin, "run", *flags, "--json", again_path, "--", *adapters.command(row)]
        print("$ " + shlex.join(command), flush=True)
        done = subprocess.run(command, cwd=adapters.ROOT, stdout=subprocess.DEVNULL)
        if done.returncode not in (0, 1):
            sys.exit(f"the run could not happen (exit {done.returncode})")
        with open(again_path, encoding="utf-8") as f:
            again = json.load(f)
    was, now = verdicts(report), verdicts(again)
    # A case the row leaves out of its run (auth/ for a row whose adapter takes no credentials,
    # stdio/ for an HTTP-only one) is `unsupported` from the command line: the same standing.
    left_out = [case for case in set(now) - set(was) if all(call[0] == "unsupported" for call in now[case])]
    for case in left_out:
        del now[case]
    differ = [case for case in sorted(set(was) | set(now)) if was.get(case) != now.get(case)]
    for case in differ:
        print(f"{case}: the row had {was.get(case)}, the command line {now.get(case)}")
    print(f"{args.id}: {len(was)} cases, {len(differ)} with other verdicts from the command line")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
