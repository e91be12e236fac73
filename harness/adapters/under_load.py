#!/usr/bin/env python3
"""Runs SDK rows twice, idle and with every core busy, and prints the cases whose verdict or
observation differ: how much a row's record depends on the machine's load (issue 45).

    python3 harness/adapters/under_load.py ID [ID ...] [--busy N] [--out DIR]

Each run is `cargo test --locked --test sdk` with MCP_ERROR_LAYERS_SDK=ID and its JSON report in
DIR/idle/ID.json and DIR/busy/ID.json (default DIR: target/under-load). The busy run starts N
processes that spin on a core each (default: one per core) before the row and ends them after;
they are plain Python loops, so they compete for the CPU as a parallel build or another CI job
does, not for memory or the disk. The row's snapshot and baseline checks run as usual; their
failures under load are what this measures, so the exit status of `cargo test` is ignored.
Per case and call it compares the verdict and the observed outcome, status and code (as
reproduce.py does), prints each difference, and exits 1 when there is one.
"""

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import adapters
from reproduce import verdicts


def spin() -> None:
    while True:
        pass


def run_row(row: str, reports: Path) -> float:
    """Runs `row`'s cases, its report into `reports`; how long it took."""
    reports.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        MCP_ERROR_LAYERS_SDK=row,
        MCP_ERROR_LAYERS_SDK_REPORTS=str(reports),
        INSTA_UPDATE="no",
    )
    started = time.monotonic()
    subprocess.run(
        ["cargo", "test", "--locked", "-q", "--test", "sdk"],
        cwd=adapters.ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.monotonic() - started


def differences(idle: dict, busy: dict) -> list[str]:
    lines = []
    for case in sorted(set(idle) | set(busy)):
        a, b = idle.get(case), busy.get(case)
        if a != b:
            lines.append(f"  {case}: idle {a} / busy {b}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="under_load.py")
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--out", default=str(adapters.target() / "under-load"))
    args = parser.parse_args(argv)
    known = {a["id"] for a in adapters.all_adapters()}
    unknown = [row for row in args.rows if row not in known]
    if unknown:
        sys.exit(f"under_load.py: no row {', '.join(unknown)}; the rows: {', '.join(sorted(known))}")
    out = Path(args.out)
    differ = 0
    for row in args.rows:
        idle_s = run_row(row, out / "idle")
        spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
        for spinner in spinners:
            spinner.start()
        try:
            busy_s = run_row(row, out / "busy")
        finally:
            for spinner in spinners:
                spinner.terminate()
        reports = [json.loads((out / kind / f"{row}.json").read_text()) for kind in ("idle", "busy")]
        lines = differences(verdicts(reports[0]), verdicts(reports[1]))
        print(
            f"{row}: {len(reports[0]['cases'])} cases, {len(lines)} differ with {args.busy} "
            f"spinning processes on {os.cpu_count()} cores (idle {idle_s:.0f} s, busy {busy_s:.0f} s)"
        )
        for line in lines:
            print(line)
        differ += len(lines)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
