#!/usr/bin/env bash
# Runs one SDK adapter by hand against built-in cases, one fresh wire server per call, and prints
# case id, call, expected outcome, the adapter's observation and the time it took.
#
#   harness/adapters/try.sh <adapter> [case-id | folder/ ...]
#
# <adapter> is an adapter id (a folder here with an adapter.toml: typescript-sdk, python-sdk,
# rmcp, ...) set up by its test target, or the path of any adapter program. Without
# arguments every built-in case runs; `tool/is-error` selects one case, `sse/` a folder. Environment:
#   MCP_ERROR_LAYERS_BIN   the mcp-error-layers binary (default: build it with cargo into
#                          $CARGO_TARGET_DIR or target/, then use target/debug/mcp-error-layers)
#   TRY_MARGIN_S           seconds added to the case's timeout before the adapter is killed (5)
#   TRY_TSV                if set, also append tab-separated rows to this file
#   TRY_LOGS               if set, a folder that keeps each call's server log and adapter stderr
# Needs python3 (3.11+, for tomllib) to read the case files. This is a developer tool: the runner
# (`mcp-error-layers run`) is what judges adapters.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
root=$(cd "$here/../.." && pwd)
cd "$root"

if [[ $# -lt 1 ]]; then
  sed -n '2,/^set -euo/p' "$self" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 2
fi
adapter=$1
shift

# An adapter id (a folder with an adapter.toml, set up by its `cargo test --test` target) or a
# program.
if [[ -f "$here/$adapter/adapter.toml" ]]; then
  mapfile -t cmd < <(python3 "$here/adapters.py" command "$adapter")
else
  cmd=("$adapter")
fi

if [[ -n "${MCP_ERROR_LAYERS_BIN:-}" ]]; then
  bin=$MCP_ERROR_LAYERS_BIN
else
  cargo build -q --bin mcp-error-layers >&2
  bin="${CARGO_TARGET_DIR:-$root/target}/debug/mcp-error-layers"
fi

margin=${TRY_MARGIN_S:-5}
work=$(mktemp -d)
server_pid=
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# One row per call: id, call index, tool, arguments, protocol version, timeout, expectation.
python3 - "$root/cases" "$@" >"$work/calls.tsv" <<'PY'
import json, pathlib, sys, tomllib
root = pathlib.Path(sys.argv[1])
prefixes = sys.argv[2:]
for path in sorted(root.rglob("*.toml")):
    case_id = path.relative_to(root).with_suffix("").as_posix()
    if prefixes and not any(case_id == p or (p.endswith("/") and case_id.startswith(p)) for p in prefixes):
        continue
    case = tomllib.loads(path.read_text())
    tool = case.get("tool", {}).get("name", "synthetic")
    version = case.get("protocol_version", "2026-07-28")
    for i, call in enumerate(case["call"]):
        args = json.dumps(json.loads(call.get("arguments", "{}")), separators=(",", ":"))
        exp = call["expect"]
        want = exp["outcome"] + "".join(f" {k}={exp[k]}" for k in ("status", "code") if k in exp)
        print("\t".join([case_id, str(i), tool, args, version, str(call.get("timeout_ms", 5000)), want]))
PY

printf '%-40s %-4s %-26s %-8s %s\n' case call expected ms observation
start_all=$(date +%s%N)
calls_run=0
while IFS=$'\t' read -r id call tool args version timeout want; do
  # A fresh log file per call: the shell truncates a reused one only once the child runs, so a
  # reused file could still show the previous server's URL when it is read below.
  serve_log="$work/serve.$((++calls_run)).out"
  "$bin" serve "$id" --call "$call" >"$serve_log" 2>&1 &
  server_pid=$!
  url=
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$serve_log" 2>/dev/null | head -n1 || true)
    [[ -n "$url" ]] && break
    sleep 0.05
  done
  if [[ -z "$url" ]]; then
    echo "$id: the wire server did not start:" >&2
    cat "$serve_log" >&2
    exit 1
  fi
  deadline=$(((timeout + 999) / 1000 + margin))
  t0=$(date +%s%N)
  set +e
  MCP_ERROR_LAYERS_TOOL=$tool MCP_ERROR_LAYERS_ARGUMENTS=$args \
    MCP_ERROR_LAYERS_PROTOCOL_VERSION=$version MCP_ERROR_LAYERS_TIMEOUT_MS=$timeout \
    timeout -k 1 "$deadline" "${cmd[@]}" "$url" >"$work/stdout" 2>"$work/stderr" </dev/null
  rc=$?
  set -e
  ms=$((($(date +%s%N) - t0) / 1000000))
  # The server logs an exchange once it has finished, polling every 50 ms: give it that time.
  [[ -n "${TRY_LOGS:-}" ]] && sleep 0.2
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "$id: the wire server exited during the call; its output:" >&2
    cat "$serve_log" >&2
  fi
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then
    obs="HANG (killed after ${deadline}s)"
  elif [[ $(wc -l <"$work/stdout") -eq 1 ]]; then
    obs=$(cat "$work/stdout")
  else
    obs="ADAPTER-ERROR rc=$rc stdout=$(head -c 300 "$work/stdout" | tr '\n' ' ') stderr=$(tail -c 300 "$work/stderr" | tr '\n' ' ')"
  fi
  printf '%-40s %-4s %-26s %-8s %s\n' "$id" "$call" "$want" "$ms" "$obs"
  if [[ -n "${TRY_LOGS:-}" ]]; then
    mkdir -p "$TRY_LOGS"
    name="${id//\//_}.$call"
    cp "$serve_log" "$TRY_LOGS/$name.server.log"
    cp "$work/stderr" "$TRY_LOGS/$name.adapter-stderr.log"
  fi
  if [[ -n "${TRY_TSV:-}" ]]; then
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$call" "$want" "$ms" "$obs" >>"$TRY_TSV"
  fi
done <"$work/calls.tsv"
echo "wall: $((($(date +%s%N) - start_all) / 1000000)) ms" >&2
