#!/usr/bin/env python3
"""One SDK adapter across versions of its SDK: install each version into a cached folder of its own,
run the adapter's row against it, keep one JSON report per version, then build the history.

    python3 harness/adapters/sweep.py ADAPTER VERSION ...       # these versions
    python3 harness/adapters/sweep.py ADAPTER --latest N        # the registry's last N releases
      [--out DIR]       where the reports go (default target/sweep/<id>/reports), and the
                        history of the reports there unless --history names one
      [--history DIR]   fold the versions swept into the history kept in DIR (versions.tsv,
                        cases.tsv: a recorded line under harness/history/), replacing the ones
                        it has, and rebuild its pages; the reports stay in --out
      [--shard K/N]     only the versions of shard K of N (split by a hash of the version, as
                        `run --shard` splits cases); the N folders, copied into one, make the
                        whole history (docs/ci-sharding.md)
      [--no-history]    leave the history to `mcp-error-layers report history DIR`
      [--slim]          drop what the history does not read from each report (the server's
                        exchanges, the transcripts, the adapter's stderr: about 1 MB a version),
                        for reports that travel (a sharded sweep's artifacts)

How an adapter is installed at a version is its `adapter.toml`: `install` (npm, pip, cargo, go or maven) and
the `[sweep]` table (harness/adapters/README.md, "Sweeping versions"); nothing here knows an SDK.

- npm: the adapter's folder (without node_modules) copied to target/sweep/<id>/<version>/adapters/,
  beside a copy of the contract it imports (contract.mjs), then
  `npm install --save-exact <package>@<version>` there (the copied lock keeps the rest pinned);
- pip: a virtualenv target/sweep/<id>/<version>/venv with `pip install <package>==<version>` (its
  dependencies resolved by pip on that day), running the adapter's own program;
- go: the adapter's module copied the same way, beside a copy of contract-go/ (its `replace`
  directive), `go get <package>@v<version>`, then `go build` into the version's folder, the
  module and build caches those of target/sdk-go (`--latest` asks the Go module proxy:
  `go list -m -versions <package>`);
- maven: the JVM reactor copied the same way (harness/adapters/jvm/ with only contract-java/ and the
  row's module), the version of the row's `<dependency>` on `<group>:<artifact>` set to the version,
  then `mvn package` (online: Maven resolves the rest that day; the local repository is
  target/sdk-maven/m2, shared with the pinned rows) into the version's folder (`--latest` reads
  Maven Central's maven-metadata.xml for the artifact, and says so when it cannot be reached);
- cargo: the adapter's crate copied the same way, beside a copy of its contract crate
  (contract-rs), its dependency on `<package>` set to `=<version>` with `cargo add`, built with
  `cargo build --release` into target/sweep/<id>/cargo-target (shared between versions, so only
  what changed is rebuilt).

An installed version is cached (a marker file in its folder) and never installed at run time.
Each version's row is `cargo test --test <test>` with MCP_ERROR_LAYERS_SWEEP_COMMAND (the installed
program) and MCP_ERROR_LAYERS_SWEEP_VERSION set (harness/sdk_setup.rs), writing DIR/<version>.json.
A version that cannot be installed, or that the adapter cannot drive (every case an adapter error),
gets DIR/<version>.unavailable.txt saying why instead: a column of the history, not a failure.
`mcp-error-layers report history` then keeps, in the history's folder, one line per case and
version (docs/reports.md, "Shards and histories").
Prints, per version, the seconds spent installing and running.
"""

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import adapters  # noqa: E402

RELEASE = re.compile(r"^\d+(\.\d+)*$")
# The adapter contract that the adapters of a package manager import from beside their folder
# (harness/adapters/contract.mjs, contract-rs/): an installed copy gets a copy beside it. A pip
# adapter's program runs from this repository, beside its contract.
CONTRACTS = {"npm": "contract.mjs", "cargo": "contract-rs", "go": "contract-go", "maven": "contract-java"}
# Where Maven Central keeps an artifact's list of versions (`--latest` for a maven row).
MAVEN_METADATA = "https://repo.maven.apache.org/maven2/{group}/{artifact}/maven-metadata.xml"


def version_key(version: str) -> tuple:
    """Sorts `1.9.0` before `1.10.0` and a pre-release (`2.0.0-beta.1`, `2.0.0rc1`) before its
    release: numbers compared as numbers, then releases after pre-releases."""
    match = re.match(r"^(\d+(?:\.\d+)*)(.*)$", version)
    if not match:
        return ((), 0, version)
    numbers = tuple(int(n) for n in match.group(1).split("."))
    rest = match.group(2)
    return (numbers, 1 if not rest else 0, rest)


def fnv1a(text: str) -> int:
    """64-bit FNV-1a, as `run --shard` hashes case ids (src/report/shard.rs)."""
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def shard(text: str) -> tuple[int, int]:
    """`K/N` with 1 <= K <= N."""
    match = re.fullmatch(r"(\d+)/(\d+)", text)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N (shard K of N, 1 <= K <= N: 1/2, 2/2)")
    return int(match.group(1)), int(match.group(2))


def in_shard(version: str, k: int, n: int) -> bool:
    return fnv1a(version) % n == k - 1


def sweep_settings(adapter: dict) -> dict:
    """The `[sweep]` table with its defaults: `package` is the `sdk` key's package."""
    table = adapter.get("sweep", {})
    unknown = set(table) - {"package", "lines", "with"}
    if unknown:
        sys.exit(f"harness/adapters/{adapter['id']}/adapter.toml: unknown [sweep] key(s) {sorted(unknown)} "
                 "(see harness/adapters/README.md, \"Sweeping versions\")")
    return {"package": table.get("package", adapter["sdk"]), "lines": table.get("lines", []),
            "with": table.get("with", [])}


def latest(adapter: dict, count: int) -> list[str]:
    """The registry's last `count` releases (no pre-releases) of the adapter's package, oldest first,
    limited to the `[sweep] lines` prefixes when the table names some."""
    settings = sweep_settings(adapter)
    package, kind = settings["package"], adapter["install"]
    if kind == "npm":
        out = subprocess.run(["npm", "view", package, "versions", "--json"], capture_output=True, text=True)
        versions = json.loads(out.stdout) if out.returncode == 0 else None
    elif kind == "pip":
        out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package],
                             capture_output=True, text=True)
        found = re.search(r"Available versions: (.*)", out.stdout)
        versions = [v.strip() for v in found.group(1).split(",")] if found else None
    elif kind == "go":
        # The Go module proxy lists a module's versions (`v1.8.0`, pre-releases too).
        out = subprocess.run(["go", "list", "-m", "-versions", package], capture_output=True, text=True,
                             cwd=tempfile.gettempdir(), env=go_env())
        words = out.stdout.split()
        versions = [v.removeprefix("v") for v in words[1:]] if out.returncode == 0 and words else None
    elif kind == "maven":
        versions, why = maven_versions(package)
        if versions is None:
            sys.exit(f"--latest: cannot list the versions of {package}: {why}; give its versions")
    else:
        sys.exit(f"--latest: cargo lists no versions of a crate; give {package}'s versions "
                 "(crates.io shows them, `cargo info {package}@VERSION` checks one)")
    if versions is None:
        sys.exit(f"--latest: cannot list the versions of {package}: {out.stderr.strip()[-300:]}")
    releases = [v for v in versions if RELEASE.match(v)]
    if settings["lines"]:
        releases = [v for v in releases if any(v.startswith(line) for line in settings["lines"])]
    return sorted(releases, key=version_key)[-count:]


def maven_versions(package: str) -> tuple[list[str] | None, str]:
    """The versions Maven Central's maven-metadata.xml lists for `group:artifact`, or None and why."""
    group, _, artifact = package.partition(":")
    if not group or not artifact:
        return None, f"{package!r} is no group:artifact"
    url = MAVEN_METADATA.format(group=group.replace(".", "/"), artifact=artifact)
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            root = ElementTree.fromstring(answer.read())
    except (OSError, ElementTree.ParseError) as error:
        return None, f"Maven Central's {url} could not be read ({error})"
    return [v.text.strip() for v in root.iter("version") if v.text], ""


def maven_pin(pom: pathlib.Path, package: str, version: str) -> str | None:
    """Sets the version of `pom`'s `<dependency>` on `group:artifact`; None, or why not."""
    group, _, artifact = package.partition(":")
    block = re.compile(r"(<dependency>\s*<groupId>" + re.escape(group) + r"</groupId>\s*<artifactId>"
                       + re.escape(artifact) + r"</artifactId>\s*<version>)[^<]*(</version>)")
    new, count = block.subn(lambda m: m.group(1) + version + m.group(2), pom.read_text())
    if count != 1:
        return f"{pom} has {count} <dependency> on {package} with a <version>, not one"
    pom.write_text(new)
    return None


def go_env() -> dict:
    """The Go build's environment, as harness/sdk_setup.rs's `go_build`: the module and build
    caches under target/sdk-go (shared with the pinned rows), the machine's Go."""
    cache = adapters.target() / "sdk-go"
    return {**os.environ, "GOMODCACHE": str(cache / "mod"), "GOCACHE": str(cache / "cache"),
            "GOTOOLCHAIN": "local", "GOWORK": "off", "GOFLAGS": "-mod=mod"}


def run_quiet(command: list, **kwargs) -> str | None:
    """None when `command` succeeds, else the last lines of its output."""
    done = subprocess.run([str(w) for w in command], capture_output=True, text=True, **kwargs)
    if done.returncode == 0:
        return None
    lines = (done.stdout + done.stderr).strip().splitlines()
    return " / ".join(lines[-3:]) or f"exit {done.returncode}"


def copy_beside_contract(folder: pathlib.Path, into: pathlib.Path, kind: str) -> pathlib.Path:
    """Copies an adapter's folder (without what an install or a build left in it) into `into`,
    beside a copy of the contract it imports from its parent folder; returns the copy."""
    copy = into / folder.name
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("node_modules", "target"))
    contract = adapters.HERE / CONTRACTS[kind]
    if contract.is_dir():
        shutil.copytree(contract, into / contract.name, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    else:
        shutil.copy2(contract, into / contract.name)
    return copy


def install(adapter: dict, version: str, home: pathlib.Path) -> tuple[list[str] | None, str | None]:
    """Installs the adapter's SDK at `version` under `home` (cached): its command, or why not."""
    settings = sweep_settings(adapter)
    package, kind = settings["package"], adapter["install"]
    folder = adapters.HERE / adapter.get("installed_with", adapter["id"])
    own = adapter["folder"]
    marker = home / ".mcp-error-layers-swept"
    # A row with a Node of its own (`node`, installed by its setup) runs, and installs, on it: npm
    # picks the versions a package's `engines` allow by the Node it runs on.
    node_bin = folder / adapter["node"] / "node_modules/.bin" if "node" in adapter else None
    npm_env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"} if node_bin else None
    if kind == "npm":
        program = pathlib.Path(os.path.normpath(own / adapter["program"]))
        node = str(node_bin / "node") if node_bin else "node"
        command = [node, str(home / "adapters" / folder.name / program.relative_to(folder))]
    elif kind == "pip":
        command = [str(home / "venv/bin/python"), str(own / adapter["program"])]
    elif kind == "maven":
        command = ["java", "-jar", str(home / "build" / adapter["program"])]
    else:
        # The shared target folder holds the last version built: each version keeps its binary.
        command = [str(home / adapter["program"])]
    command += adapter.get("args", [])
    if marker.exists():
        return command, None
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    if kind == "pip":
        why = run_quiet([sys.executable, "-m", "venv", home / "venv"]) or run_quiet(
            [home / "venv/bin/pip", "install", "-q", "--disable-pip-version-check", f"{package}=={version}",
             *settings["with"]])
    elif kind == "npm":
        copy = copy_beside_contract(folder, home / "adapters", kind)
        why = run_quiet(["npm", "install", "--no-audit", "--no-fund", "--save-exact", f"{package}@{version}"],
                        cwd=copy, env=npm_env)
    elif kind == "go":
        # The row's module copied beside the contract module (its `replace ../contract-go`), the SDK
        # set to the version with `go get` (which updates go.mod and go.sum), then built.
        copy = copy_beside_contract(folder, home / "adapters", kind)
        why = run_quiet(["go", "get", f"{package}@v{version}"], cwd=copy, env=go_env()) \
            or run_quiet(["go", "build", "-trimpath", "-o", home / adapter["program"], "."], cwd=copy, env=go_env())
    elif kind == "maven":
        # The reactor (harness/adapters/jvm/) with the contract module and this row only, the SDK's
        # version set in the row's pom, packaged into the version's folder.
        copy = copy_beside_contract(folder, home / "adapters", kind)
        reactor = home / "adapters/jvm"
        shutil.copytree(adapters.HERE / "jvm", reactor)
        pom = reactor / "pom.xml"
        pom.write_text(re.sub(r"<modules>.*?</modules>", "<modules><module>../contract-java</module>"
                              f"<module>../{folder.name}</module></modules>", pom.read_text(), flags=re.S))
        repository = adapters.target() / "sdk-maven/m2"
        why = maven_pin(copy / "pom.xml", package, version) or run_quiet(
            ["mvn", "-q", "-B", f"-Dmaven.repo.local={repository}", f"-Dmel.build={home / 'build'}",
             "-f", pom, "package", "-DskipTests"])
    else:
        copy = copy_beside_contract(folder, home / "adapters", kind)
        why = run_quiet(["cargo", "add", "-q", "--manifest-path", copy / "Cargo.toml", f"{package}@={version}"]) \
            or run_quiet(["cargo", "build", "-q", "--release", "--manifest-path", copy / "Cargo.toml"],
                         env={**os.environ, "CARGO_TARGET_DIR": str(home.parent / "cargo-target")})
        if why is None:
            shutil.copy2(home.parent / "cargo-target/release" / adapter["program"], home / adapter["program"])
    if why is not None:
        return None, f"{kind} install of {package} {version} failed: {why}"
    marker.write_text(version + "\n")
    return command, None


def slim(report: pathlib.Path) -> None:
    """Drops, in place, what `report history` and `diff` do not read: each case's exchanges and
    transcript and each call's adapter log (the report stays a valid v1 report)."""
    data = json.loads(report.read_text())
    for case in data["cases"]:
        case["server"]["exchanges"], case["transcript"] = [], ""
        for call in case["calls"]:
            call["adapter_log"] = None
    report.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def swept_file(out: pathlib.Path, version: str, ran: bool) -> pathlib.Path:
    """The file a version's sweep left in `out`: its report, or why there is none."""
    return out / (f"{version}.json" if ran else f"{version}.unavailable.txt")


def history_command(out: pathlib.Path, swept: list[pathlib.Path], history: pathlib.Path | None) -> list[str]:
    """`report history`: of the folder `out`, or, given `history`, of that folder with the files
    swept now (each replacing its version there)."""
    command = ["cargo", "run", "--locked", "-q", "-p", "mcp-error-layers-cli", "--", "report", "history"]
    if history is None:
        return command + [str(out)]
    return command + [str(history)] + [str(path) for path in swept]


def run_row(adapter: dict, version: str, command: list[str], report: pathlib.Path) -> str | None:
    """The adapter's row against `command`, its JSON report at `report`; None, or why there is no
    usable report."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_ERROR_LAYERS_")}
    env.update({
        "MCP_ERROR_LAYERS_SWEEP_COMMAND": json.dumps(command),
        "MCP_ERROR_LAYERS_SWEEP_VERSION": version,
        "MCP_ERROR_LAYERS_JSON": str(report),
        "MCP_ERROR_LAYERS_SDK": adapter["id"],
    })
    report.unlink(missing_ok=True)
    done = subprocess.run(["cargo", "test", "--locked", "-q", "--test", "sdk"],
                          cwd=adapters.ROOT, env=env, capture_output=True, text=True)
    if not report.exists():
        tail = " / ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
        return f"the row wrote no report: {tail}"
    cases = json.loads(report.read_text())["cases"]
    why = undrivable(cases)
    if why is not None:
        report.unlink()
    return why


def undrivable(cases: list[dict]) -> str | None:
    """Why no case says anything about this version, or None: every case an adapter error (the
    program does not start: an import the version lacks), or no case reaching `tools/call` (the
    connection fails the same way before it: a protocol version the SDK does not speak)."""
    calls = [call for case in cases for call in case["calls"]]
    if not cases or not calls:
        return None
    if all(case["verdict"] == "adapter-error" for case in cases):
        logs = [line for call in calls for line in (call.get("adapter_log") or "").splitlines()]
        error = next((line for line in logs if "Error" in line), None)
        first = error or next((p for call in calls for p in call["problems"]), "")
        return f"the adapter cannot drive it: every case is an adapter error ({first.strip()[:300]})"
    if all(call["tool_posts"] == 0 for call in calls):
        details = [(call.get("observed") or {}).get("detail") or "" for call in calls]
        return f"the adapter cannot drive it: no case reached tools/call ({details[0][:300]})"
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="sweep.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("adapter", help="an adapter id (`adapters.py list` names them)")
    parser.add_argument("versions", nargs="*", help="exact versions of its SDK package")
    parser.add_argument("--latest", type=int, metavar="N", help="the registry's last N releases")
    parser.add_argument("--out", type=pathlib.Path, help="the reports (default target/sweep/<id>/reports)")
    parser.add_argument("--history", type=pathlib.Path, metavar="DIR",
                        help="fold the versions swept into the history kept in DIR (harness/history/<line>)")
    parser.add_argument("--shard", type=shard, metavar="K/N", help="only shard K of N of the versions")
    parser.add_argument("--no-history", action="store_true", help="write the reports only")
    parser.add_argument("--slim", action="store_true", help="drop exchanges, transcripts and logs")
    args = parser.parse_args(argv)
    if not (adapters.HERE / args.adapter / "adapter.toml").exists():
        parser.error(f"no adapter {args.adapter!r}; `python3 harness/adapters/adapters.py list` names them")
    adapter = adapters.load(adapters.HERE / args.adapter)
    if bool(args.versions) == bool(args.latest):
        parser.error("give the versions, or --latest N (not both)")
    if args.history and args.no_history:
        parser.error("--history DIR builds a history, --no-history none: give one")
    if args.history and (args.history / "versions.tsv").exists() != (args.history / "cases.tsv").exists():
        parser.error(f"{args.history} keeps one of versions.tsv and cases.tsv, not both: restore the other")
    versions = sorted(set(args.versions or latest(adapter, args.latest)), key=version_key)
    if args.shard:
        versions = [v for v in versions if in_shard(v, *args.shard)]
    out = (args.out or adapters.target() / "sweep" / adapter["id"] / "reports").resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.history:
        args.history.mkdir(parents=True, exist_ok=True)
    # Build the row once, so that each version's time is its own.
    subprocess.run(["cargo", "test", "--locked", "--no-run", "-q", "--test", "sdk"],
                   cwd=adapters.ROOT, check=True)
    print(f"{adapter['id']}: {len(versions)} versions of {sweep_settings(adapter)['package']} -> {out}")
    started, totals, swept = time.monotonic(), [0.0, 0.0], []
    for version in versions:
        home = adapters.target() / "sweep" / adapter["id"] / version
        clock = time.monotonic()
        command, why = install(adapter, version, home)
        installed = time.monotonic() - clock
        clock = time.monotonic()
        if command is not None:
            why = run_row(adapter, version, command, out / f"{version}.json")
            if why is None and args.slim:
                slim(out / f"{version}.json")
        ran = time.monotonic() - clock
        totals[0] += installed
        totals[1] += ran
        # One file per version: drop the other kind, which an earlier sweep may have left.
        swept_file(out, version, ran=why is not None).unlink(missing_ok=True)
        if why is not None:
            # Paths relative to the repository: the file is the same on every machine.
            why = why.replace(f"{adapters.ROOT}/", "")
            swept_file(out, version, ran=False).write_text(why + "\n")
        swept.append(swept_file(out, version, ran=why is None))
        state = "ok" if why is None else f"unavailable: {why[:160]}"
        print(f"  {version:<14} install {installed:6.1f} s  run {ran:6.1f} s  {state}", flush=True)
    wall = time.monotonic() - started
    print(f"  {'all ' + str(len(versions)):<14} install {totals[0]:6.1f} s  run {totals[1]:6.1f} s  "
          f"wall {wall:.1f} s")
    if args.no_history:
        return 0
    history = args.history.resolve() if args.history else None
    return subprocess.run(history_command(out, swept, history), cwd=adapters.ROOT).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
