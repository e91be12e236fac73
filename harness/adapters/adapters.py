#!/usr/bin/env python3
"""The list of SDK adapters: every `harness/adapters/<id>/adapter.toml`. One home for it, read by
`.ci/run`, `matrix.py` and `try.sh` (the Rust side, `harness/sdk_setup.rs`, reads the same files).

    python3 harness/adapters/adapters.py list          # "<id>\t<sdk> <version>", one per adapter
    python3 harness/adapters/adapters.py command ID    # the adapter's command, one word per line
    python3 harness/adapters/adapters.py run [--lanes N] [--reports DIR] [ID ...]
        # every row (or just these) as `MCP_ERROR_LAYERS_SDK=<id> cargo test --locked --test sdk`,
        # N rows side by side (default 2), each writing DIR/<id>.json (default target/sdk-reports);
        # prints each row's wall time and the whole; exits 1 if a row failed

The keys are documented in harness/adapters/README.md ("adapter.toml").
"""

import argparse
import concurrent.futures
import os
import pathlib
import subprocess
import sys
import time
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
REQUIRED = {"sdk": str, "version": str, "install": str, "program": str, "persistent": bool}
OPTIONAL = {"args": list, "installed_with": str, "setting": str, "deadline_margin_ms": int, "threads": int,
            "announce_timeout_ms": int, "default_timeout_ms": int, "node": str, "sweep": dict,
            "transports": list, "racy": list, "kind": str, "auth": bool}
TRANSPORTS = ("http", "stdio")
# Agent rows (`kind = "agent"`, docs/adapters.md "Agent rows"): the library's AgentSpec reads them
# and checks every key; here only what the lists need.
AGENT_REQUIRED = {"kind": str, "agent": str, "version": str, "install": str, "api": str, "command": list}
# Bridge rows (`kind = "bridge"`, docs/bridges.md): the library's BridgeSpec reads them and
# checks every key; here only what the lists need.
BRIDGE_REQUIRED = {"kind": str, "bridge": str, "version": str, "install": str, "exposes": str,
                   "command": list, "timeout_ms": int}
# `threads`: cases at once, as in harness/sdk_setup.rs.
MAX_THREADS = 64
INSTALLERS = ("npm", "pip", "cargo", "maven", "go")


def load(folder: pathlib.Path) -> dict:
    path = folder / "adapter.toml"
    with open(path, "rb") as f:
        manifest = tomllib.load(f)
    if manifest.get("kind") == "agent":
        for key, kind in AGENT_REQUIRED.items():
            if not isinstance(manifest.get(key), kind):
                sys.exit(f"{path}: `{key}` must be a {kind.__name__} (see docs/adapters.md, \"Agent rows\")")
        return {"id": folder.name, "folder": folder, "sdk": manifest["agent"], **manifest}
    if manifest.get("kind") == "bridge":
        for key, kind in BRIDGE_REQUIRED.items():
            if not isinstance(manifest.get(key), kind):
                sys.exit(f"{path}: `{key}` must be a {kind.__name__} (see docs/bridges.md)")
        return {"id": folder.name, "folder": folder, "sdk": manifest["bridge"], **manifest}
    for key, kind in {**REQUIRED, **OPTIONAL}.items():
        if (key in REQUIRED and key not in manifest) or (key in manifest and not isinstance(manifest[key], kind)):
            sys.exit(f"{path}: `{key}` must be a {kind.__name__} (see harness/adapters/README.md)")
    unknown = set(manifest) - set(REQUIRED) - set(OPTIONAL)
    if unknown:
        sys.exit(f"{path}: unknown key(s) {sorted(unknown)} (see harness/adapters/README.md)")
    if "threads" in manifest and not 1 <= manifest["threads"] <= MAX_THREADS:
        sys.exit(f"{path}: `threads` is {manifest['threads']}; cases at once, from 1 to {MAX_THREADS}")
    if not set(manifest.get("transports", ["http"])) <= set(TRANSPORTS):
        sys.exit(f"{path}: `transports` is {manifest['transports']!r}; a list of {TRANSPORTS}")
    if manifest.get("kind", "framework") != "framework":
        sys.exit(f"{path}: `kind` is {manifest['kind']!r}; an SDK row has none, a framework \"framework\"")
    if manifest["install"] not in INSTALLERS:
        sys.exit(f"{path}: `install` is {manifest['install']!r}; one of {INSTALLERS}")
    return {"id": folder.name, "folder": folder, **manifest}


def all_adapters() -> list[dict]:
    """Every adapter, sorted by id: the order of the matrix's columns, and of the rows that
    `cargo test --test sdk` runs (harness/sdk_rows.rs finds them the same way)."""
    return [load(p.parent) for p in sorted(HERE.glob("*/adapter.toml"))]


def target() -> pathlib.Path:
    # An empty CARGO_TARGET_DIR means unset, as in harness/sdk_setup.rs.
    return ROOT / (os.environ.get("CARGO_TARGET_DIR") or "target")


def command(adapter: dict) -> list[str]:
    """The program and its arguments (the runner appends the endpoint URL)."""
    if adapter.get("kind") == "agent":
        sys.exit(f"{adapter['id']} is an agent row: run it with `mcp-error-layers run --agent "
                 f"{adapter['folder']}` (docs/adapters.md, \"Agent rows\")")
    if adapter.get("kind") == "bridge":
        sys.exit(f"{adapter['id']} is a bridge row: the reference client drives it; run it with "
                 f"`MCP_ERROR_LAYERS_SDK={adapter['id']} cargo test --test sdk` (docs/bridges.md)")
    folder, program = adapter["folder"], adapter["program"]
    installed = adapter.get("installed_with", adapter["id"])
    if adapter["install"] == "npm":
        node = HERE / installed / adapter["node"] / "node_modules/.bin/node" if "node" in adapter else "node"
        words = [str(node), str(folder / program)]
    elif adapter["install"] == "pip":
        words = [str(target() / "sdk-venvs" / installed / "bin/python"), str(folder / program)]
    elif adapter["install"] == "maven":
        # The JVM reactor's build (harness/sdk_setup.rs, `maven_package`): the row's jar.
        words = ["java", "-jar", str(target() / "sdk-maven" / "build" / program)]
    elif adapter["install"] == "go":
        # `go build` of the row's module (harness/sdk_setup.rs, `go_build`): the row's binary.
        words = [str(target() / "sdk-go" / "bin" / program)]
    else:
        words = [str(target() / "sdk-rust" / "release" / program)]
    return words + adapter.get("args", [])


def run_row(adapter: dict, reports: pathlib.Path) -> tuple[str, float, int, str]:
    """One row's test target: (id, wall seconds, exit code, its output's last lines)."""
    env = {**os.environ, "MCP_ERROR_LAYERS_SDK": adapter["id"],
           "MCP_ERROR_LAYERS_JSON": str(reports / f"{adapter['id']}.json")}
    started = time.monotonic()
    done = subprocess.run(
        ["cargo", "test", "--locked", "-q", "--test", "sdk"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
    return adapter["id"], time.monotonic() - started, done.returncode, tail


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="adapters.py run")
    parser.add_argument("--lanes", type=int, default=2, help="rows side by side, 1 to 16")
    parser.add_argument("--reports", type=pathlib.Path, default=target() / "sdk-reports")
    parser.add_argument("ids", nargs="*", help="adapter ids (default: every one)")
    args = parser.parse_args(argv)
    if not 1 <= args.lanes <= 16:
        sys.exit(f"--lanes {args.lanes}: rows side by side, from 1 to 16")
    lanes, reports, ids = args.lanes, args.reports.resolve(), args.ids
    adapters = all_adapters()
    unknown = set(ids) - {a["id"] for a in adapters}
    if unknown:
        sys.exit(f"no adapter {sorted(unknown)}; `adapters.py list` names them")
    chosen = [a for a in adapters if not ids or a["id"] in ids]
    # Build the test target first, so that the timings are the rows'.
    subprocess.run(["cargo", "test", "--locked", "--no-run", "-q", "--test", "sdk"], cwd=ROOT, check=True)
    reports.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(lanes) as pool:
        rows = list(pool.map(lambda a: run_row(a, reports), chosen))
    wall = time.monotonic() - started
    width = max(len(a["id"]) for a in chosen)
    for row_id, seconds, code, tail in rows:
        print(f"{row_id:<{width}}  {seconds:6.1f} s  {'ok' if code == 0 else 'FAILED'}")
    print(f"{'all ' + str(len(rows)) + ' rows':<{width}}  {wall:6.1f} s  wall, {lanes} side by side")
    failed = [(row_id, tail) for row_id, _, code, tail in rows if code != 0]
    for row_id, tail in failed:
        print(f"\n--- {row_id} ---\n{tail}", file=sys.stderr)
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["run"]:
        return run(argv[1:])
    if argv[:1] == ["list"]:
        for adapter in all_adapters():
            print(f"{adapter['id']}\t{adapter['sdk']} {adapter['version']}")
        return 0
    if len(argv) == 2 and argv[0] == "command":
        print("\n".join(command(load(HERE / argv[1]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
