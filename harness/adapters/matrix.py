#!/usr/bin/env python3
"""Prints the SDK matrix as a markdown table: one row per case, one column per JSON report
(schema mcp-error-layers/report/v1, docs/reports.md), each cell what that SDK surfaced.

    python3 harness/adapters/matrix.py ts.json py.json rmcp.json > harness/adapters/matrix.md

A column's head is the adapter, its version and its layer fidelity (the JSON report's
`summary.layer_fidelity`: of the cases it ran, how many it reported in the layer a correct client
names). A cell is the observed outcome (with its HTTP status / JSON-RPC code where they matter),
one per call; a deviation is marked ✗, with what else differs in parentheses (a counted key such
as `tool_posts`, a failed request check), and a hang or crash says so. A call the adapter answered
`unsupported` (its client has no API for it, e.g. no task API) is no deviation: the cell says
"unsupported" and the note under the table gives each row's reasons once.
Write the reports with `adapters.py run` (or `MCP_ERROR_LAYERS_SDK=<id> MCP_ERROR_LAYERS_JSON=<file>
cargo test --test sdk`, or `MCP_ERROR_LAYERS_SDK_REPORTS=<folder> cargo test` for every row at once).
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import adapters  # noqa: E402 (the one list of rows, beside this file)

SCHEMA = "mcp-error-layers/report/v1"


def outcome(value: dict, expected: dict) -> str:
    """`HTTP_ERROR 404 / -32601`: the outcome with its status and code where they matter (the
    expectation names them for this outcome, or the outcome is an HTTP or JSON-RPC error)."""
    text = value["outcome"]
    same = text == expected["outcome"]
    keys = [
        k
        for k, own in (("status", "HTTP_ERROR"), ("code", "JSONRPC_ERROR"))
        if text == own or (same and k in expected)
    ]
    extra = [str(value[k]) if value.get(k) is not None else "–" for k in keys]
    return f"{text} {' / '.join(extra)}" if extra else text


TIMING_KEYS = {"min_gaps_ms"}


def cell(call: dict) -> str:
    observed = call["observed"]
    if call["verdict"] == "unsupported":
        return "unsupported"
    if observed is None:
        text = call["verdict"]  # hang or adapter-error: nothing was observed
    else:
        text = outcome(observed, call["expected"])
    if call["verdict"] == "pass":
        return text
    # What else differs: the expectation's other keys (tool_posts, initializes, ...) and the
    # request checks that failed.
    notes = [p.split(":")[0] for p in call["problems"] if observed and not p.startswith("outcome:")]
    notes += [f"check {k['name']}" for k in call.get("checks", []) if not k["passed"]]
    # A gap between POSTs measures the SDK's wait plus the machine's load: a client that does not
    # back off can pass a lower bound on a busy machine. Where something steadier already
    # differs, the cell leaves the timing out, so that the matrix is the same on any machine.
    steady = [n for n in notes if n not in TIMING_KEYS]
    if steady:
        notes = steady
    return f"✗ {text}" + (f" ({', '.join(dict.fromkeys(notes))})" if notes else "")


def told_cell(call: dict, racy: bool = False) -> str:
    """An agent row's cell: what its model was told (the outcome, with its status and code), ✗
    when that is not the layer's outcome, or the hang. Its request checks and counts stay in its
    JSON report: an agent races with itself, so they vary from run to run (docs/adapters.md,
    "Agent rows"), and the table must be the same on every run."""
    observed = call["observed"]
    if call["verdict"] == "unsupported":
        return "unsupported"
    if racy:
        return "✗ racy"
    if observed is None or "outcome" not in observed:
        return f"✗ {call['verdict']}"
    text = outcome(observed, call["expected"])
    wrong = any(p.startswith(("outcome:", "status:", "code:")) for p in call["problems"])
    return f"✗ {text}" if wrong else text


def hop_cell(call: dict) -> str:
    """A bridge row's cell: what arrived downstream, ✗ when the faithful-hop table found it
    wanting ("not faithful"; the reason is in the JSON report) or a check failed (named)."""
    observed = call["observed"]
    if call["verdict"] == "unsupported":
        return "unsupported"
    text = call["verdict"] if observed is None else outcome(observed, call["expected"])
    if call["verdict"] == "pass":
        return text
    notes = ["not faithful"] if observed is not None and call["problems"] else []
    notes += [f"check {k['name']}" for k in call.get("checks", []) if not k["passed"]]
    return f"✗ {text}" + (f" ({', '.join(notes)})" if notes else "")


def fidelity(report: dict, key: str = "layer_fidelity") -> str:
    """`told_apart/cases` of the report's layer fidelity (or another figure of its summary: a
    bridge's `hop_fidelity`); `?` for a report written before it."""
    figure = report["summary"].get(key)
    return f"{figure['told_apart']}/{figure['cases']}" if figure else "?"


def racy_of(report: dict) -> set[str]:
    """The cases a row's adapter.toml names `racy`: what the client does differs from run to run."""
    row = adapters.HERE / report["adapter"]["name"]
    return set(adapters.load(row).get("racy", [])) if (row / "adapter.toml").is_file() else set()


def ids_of(kind: str) -> set[str]:
    """The rows of `kind` (`agent`, `bridge`): their reports get a table of their own."""
    return {a["id"] for a in adapters.all_adapters() if a.get("kind") == kind}


def main(paths: list[str]) -> int:
    reports = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        if report.get("schema") != SCHEMA:
            sys.exit(f"{path}: schema {report.get('schema')!r}, expected {SCHEMA!r}")
        reports.append(report)
    agents, bridges = ids_of("agent"), ids_of("bridge")
    sdks = [r for r in reports if r["adapter"]["name"] not in agents | bridges]
    told = [r for r in reports if r["adapter"]["name"] in agents]
    hops = [r for r in reports if r["adapter"]["name"] in bridges]
    print("<!-- generated by harness/adapters/matrix.py from the JSON reports of `cargo test --test sdk` -->")
    tables = [(sdks, "layers", None), (told, "model", "#### What the model was told (agent rows)"),
              (hops, "hop", "#### What arrived through the bridge (bridge rows)")]
    printed = False
    for chosen, figure, heading in tables:
        if not chosen:
            continue
        if printed:
            print()
        if heading:
            print(heading)
            print()
        table(chosen, figure)
        printed = True
    return 0


FIGURES = {"layers": "layer_fidelity", "model": "layer_fidelity", "hop": "hop_fidelity"}


def table(reports: list[dict], figure: str) -> None:
    """One table: a row per case, a column per report; `figure` names the fidelity in the heads
    (`layers` for SDK and framework rows, `model` for agent rows, whose observation is what
    their model was told, `hop` for bridge rows, judged by what arrived downstream)."""
    names = [f"{r['adapter']['name']} {r['adapter']['version'] or ''}".strip() for r in reports]
    heads = [f"{name} · {figure} {fidelity(r, FIGURES[figure])}" for name, r in zip(names, reports)]
    by_id = [{case["id"]: case for case in r["cases"]} for r in reports]
    racy_cases = [racy_of(r) for r in reports]
    ids = sorted(set().union(*by_id))
    print("| case | grade | expected | " + " | ".join(heads) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for case_id in ids:
        first = next(cases[case_id] for cases in by_id if case_id in cases)
        expected = "; ".join(outcome(c["expected"], c["expected"]) for c in first["calls"])
        cells = []
        for cases, racy in zip(by_id, racy_cases):
            case = cases.get(case_id)
            if figure == "model":
                text = "; ".join(told_cell(c, case_id in racy) for c in case["calls"]) if case else "not run"
            elif figure == "hop":
                text = "; ".join(hop_cell(c) for c in case["calls"]) if case else "not run"
            elif case_id in racy and case:
                # Its checks or outcome differ from run to run: the cell stays the same.
                text = "racy"
            else:
                text = "; ".join(cell(c) for c in case["calls"]) if case else "not run"
            cells.append(text)
        print(f"| `{case_id}` | {first['grade']} | {expected} | " + " | ".join(cells) + " |")
    if figure == "model":
        # What the model was told deviates (the steady part of an agent's run).
        deviations = [sum(any(told_cell(k, c["id"] in racy).startswith("✗") for k in c["calls"]) for c in r["cases"])
                      for r, racy in zip(reports, racy_cases)]
    else:
        deviations = [sum(c["verdict"] not in ("pass", "unsupported") and c["id"] not in racy for c in r["cases"])
                      for r, racy in zip(reports, racy_cases)]
    print()
    if figure == "model":
        print(
            "A cell is what the agent told its model about the call, judged as docs/adapters.md "
            "(\"What the model was told\") says: an unmarked result is TOOL_SUCCESS, a marked one names "
            "the layer whose fact (the status, the JSON-RPC code, the tool's own text, the agent's "
            "timeout words) its text carries, else UNCLASSIFIED_ERROR; no result at all is "
            "UNCLASSIFIED_ERROR (\"no tool result\" in the report). \"model 40/123\" in a column's head "
            "is its model fidelity: of the cases it ran, in how many the model was told the layer a "
            "correct client reports. ✗ marks a cell whose outcome, status or code is not the case's; "
            "an agent row's request checks and counts are in its JSON report, not here (an agent races "
            "with itself: they vary from run to run); \"racy\" marks a case whose outcome differs from run "
            "to run (its row's adapter.toml lists it, its README says both). "
            + ", ".join(f"{n}: its model was told another outcome in {d} of {len(r['cases'])} cases"
                        for n, d, r in zip(names, deviations, reports))
            + "."
        )
    elif figure == "hop":
        print(
            "A cell is what the reference client got downstream, through the bridge, judged by the "
            "faithful-hop table of docs/bridges.md against what a correct client reports talking to "
            "the server directly (the expected column); ✗ marks a deviation: in parentheses \"not "
            "faithful\" (the call did not arrive with its layer's facts) and the failed checks (a "
            "request check on the bridge's own upstream requests, or `hop-no-retry-unsafe`, "
            "`hop-survives`, `hop-answers`); \"hop "
            "40/123\" in a column's head is its hop fidelity: of the cases it ran, in how many every "
            "call arrived with its upstream layer's facts intact. "
            + ", ".join(f"{n}: {d} of {len(r['cases'])} cases deviate" for n, d, r in zip(names, deviations, reports))
            + "."
        )
    else:
        print(
            "✗ marks a deviation (each one listed with its reason in "
            "`harness/adapters/<sdk>/baseline.toml`, or accepted there by check name); in parentheses, "
            "what else differs: a counted key (`tool_posts`, `initializes`, ...) or a failed request "
            "check (a gap, `min_gaps_ms`, only when nothing else differs: it depends on the machine's load); "
            "– is a status or code the SDK did not give; \"layers 52/101\" in a column's head: of the "
            "101 cases it ran (not those it answered unsupported), it reported 52 in the layer the case "
            "expects (transport, protocol, interaction, the tool's own error, or none: a success), "
            "whatever else differed; \"racy\" marks a case whose result differs from run to run (its "
            "row's adapter.toml lists it, its baseline says how; not counted below). "
            + ", ".join(f"{n}: {d} of {len(r['cases'])} cases deviate" for n, d, r in zip(names, deviations, reports))
            + "."
        )
    grouped = unsupported_by_reason(names, reports)
    if grouped:
        print()
        print("unsupported (no deviation): " + "; ".join(f"{reason}: {', '.join(rows)}" for reason, rows in grouped.items()) + ".")


def unsupported_by_reason(names: list[str], reports: list[dict]) -> dict[str, list[str]]:
    """Each reason a row gave for a call it answered unsupported, with the rows that gave it and
    how many cases: `{"no task API": ["rmcp 3.11.0 (12 cases)"]}`."""
    grouped: dict[str, list[str]] = {}
    for name, report in zip(names, reports):
        counted: dict[str, int] = {}
        for case in report["cases"]:
            if case["verdict"] == "unsupported":
                reason = case.get("reason") or "no reason given"
                counted[reason] = counted.get(reason, 0) + 1
        for reason, n in counted.items():
            grouped.setdefault(reason, []).append(f"{name} ({n} cases)")
    return grouped


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
