#!/usr/bin/env python3
"""The matrix of cases × rows, from the JSON reports of `cargo test --test sdk` (schema
mcp-error-layers/report/v1, docs/reports.md), in pages a reader can open:

    python3 harness/adapters/matrix.py write docs/matrix REPORT...   # the pages below
    python3 harness/adapters/matrix.py check docs/matrix REPORT...   # CI: do they match? (exit 1, a diff)
    python3 harness/adapters/matrix.py summary REPORT...             # the README's summary, on stdout
    python3 harness/adapters/matrix.py REPORT...                     # one wide table, on stdout

`docs/matrix/README.md` (and the README) is the summary: per kind of row (SDKs, frameworks,
agents, bridges) a line per row, at most 120 characters, with its fidelity (layer fidelity: of
the cases it ran, its racy ones left out, how many it reported in the layer a correct client
names; an agent's model
fidelity; a bridge's hop fidelity), how many cases deviate, how many hung, and its two commonest
deviations with a case each. `docs/matrix/rows/<row>.md` is every case of one row;
`docs/matrix/families/<family>.md` one family of cases (their folder under cases/), a table per
kind. A cell is the observed outcome (with its HTTP status / JSON-RPC code where they matter),
one per call; a deviation is marked ✗, with what else differs in parentheses (a counted key such
as `tool_posts`, a failed request check), a hang or crash says so, "unsupported" is no deviation.
The agent and bridge rows' parts are the record of a run of every case (CI runs them on a sample):
they sit between record markers, which `check` leaves out. Pass the reports in the order of
`adapters.py list`. Write the reports with `adapters.py run` (or `MCP_ERROR_LAYERS_SDK_REPORTS=<folder>
cargo test` for every row at once).
"""

import difflib
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


# The layer of each outcome (src/outcome.rs, `Outcome::layer`); a success names none
# (src/fidelity.rs, `class`). tests/adapter_scripts.rs checks it against the crate's, outcome
# for outcome.
LAYER_OF = {
    "CONNECTION_ERROR": "transport", "HTTP_ERROR": "transport", "UNEXPECTED_CONTENT_TYPE": "transport",
    "NO_RESULT": "transport", "STREAM_INCOMPLETE": "transport", "TIMEOUT": "transport",
    "MALFORMED_JSON": "protocol", "INVALID_ENVELOPE": "protocol", "JSONRPC_ERROR": "protocol",
    "INVALID_TOOL_RESULT": "protocol", "INPUT_REQUIRED": "interaction", "TASK_CANCELLED": "application",
    "TOOL_ERROR": "application", "TOOL_SUCCESS": None, "UNCLASSIFIED_ERROR": "unknown",
}


def told_apart(case: dict) -> bool | None:
    """Whether every call of `case` reported an outcome of the layer it expected, as layer
    fidelity counts it (src/fidelity.rs); `None` for a case it does not count (a call declined)."""
    calls = case["calls"]
    if not calls or any("unsupported" in (c.get("observed") or {}) for c in calls):
        return None
    return all("outcome" in (c.get("observed") or {})
               and LAYER_OF[c["observed"]["outcome"]] == LAYER_OF[c["expected"]["outcome"]] for c in calls)


def fidelity(report: dict, key: str = "layer_fidelity") -> str:
    """`told_apart/cases` of the report's layer fidelity (or another figure of its summary: a
    bridge's `hop_fidelity`), the row's racy cases left out (what they do differs from run to run,
    so a figure that counted them would too); `?` for a report written before it."""
    figure = report["summary"].get(key)
    if not figure:
        return "?"
    told, cases = figure["told_apart"], figure["cases"]
    if key == "layer_fidelity":
        racy = racy_of(report)
        for case in report["cases"]:
            counted = told_apart(case) if case["id"] in racy else None
            if counted is not None:
                told, cases = told - counted, cases - 1
    return f"{told}/{cases}"


def racy_of(report: dict) -> set[str]:
    """The cases a row's adapter.toml names `racy`: what the client does differs from run to run."""
    row = adapters.HERE / report["adapter"]["name"]
    return set(adapters.load(row).get("racy", [])) if (row / "adapter.toml").is_file() else set()


def ids_of(kind: str) -> set[str]:
    """The rows of `kind` (`agent`, `bridge`): their reports get a table of their own."""
    return {a["id"] for a in adapters.all_adapters() if a.get("kind") == kind}


def main(paths: list[str]) -> int:
    reports = read_reports(paths)
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
            "101 cases it ran (not those it answered unsupported, nor its racy ones), it reported 52 in the layer the case "
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


# ---- The pages a reader opens: a summary that fits a screen, a page per row, a page per family ----

KINDS = [
    ("sdk", "SDKs", "layers"),
    ("framework", "Frameworks (what the application receives)", "layers"),
    ("agent", "Coding agents (what the model was told)", "model"),
    ("bridge", "Bridges and gateways (what arrived downstream)", "hop"),
]
# The kinds whose table is the record of one run of every case (CI runs them on a sample and
# checks their baselines): their parts of the pages are between these markers, and `check`
# leaves them out.
RECORD_KINDS = {"agent", "bridge"}
RECORD_START, RECORD_END = "<!-- record: a run of every case -->", "<!-- /record -->"
WIDTH = 120
GENERATED_START = "<!-- generated by harness/adapters/matrix.py"
GENERATED_END = "<!-- /generated -->"


def kind_of(report: dict) -> str:
    row = adapters.HERE / report["adapter"]["name"]
    if not (row / "adapter.toml").is_file():
        return "sdk"
    return adapters.load(row).get("kind") or "sdk"


def cell_of(kind: str, case: dict, racy: set[str]) -> str:
    """A row's cell for `case`, in the words its table uses."""
    figure = dict((k, f) for k, _, f in KINDS)[kind]
    if figure == "model":
        return "; ".join(told_cell(c, case["id"] in racy) for c in case["calls"])
    if figure == "hop":
        return "; ".join(hop_cell(c) for c in case["calls"])
    if case["id"] in racy:
        return "racy"
    return "; ".join(cell(c) for c in case["calls"])


def expected_of(case: dict) -> str:
    return "; ".join(outcome(c["expected"], c["expected"]) for c in case["calls"])


def findings(kind: str, report: dict, racy: set[str]) -> list[tuple[int, str, str]]:
    """The row's deviations grouped by what was expected and what came instead (with what else
    differed), most first: (count, `EXPECTED → OBSERVED (notes)`, the first case id)."""
    groups: dict[str, list[str]] = {}
    for case in report["cases"]:
        text = cell_of(kind, case, racy)
        if not text.startswith("✗") and "; ✗" not in text:
            continue
        got = "; ".join(t.removeprefix("✗ ") for t in text.split("; "))
        groups.setdefault(f"{expected_of(case)} → {got}", []).append(case["id"])
    ranked = sorted(groups.items(), key=lambda g: (-len(g[1]), g[0]))
    return [(len(ids), words, ids[0]) for words, ids in ranked]


def deviating(kind: str, report: dict, racy: set[str]) -> int:
    return sum(n for n, _, _ in findings(kind, report, racy))


def label(report: dict) -> str:
    return f"{report['adapter']['name']} {report['adapter']['version'] or ''}".strip()


def wrapped(text: str) -> list[str]:
    """`text` as lines of at most WIDTH characters, broken at spaces (one paragraph)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > WIDTH:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]


def fitted(line: str) -> str:
    """`line` cut to the page width, an ellipsis saying so."""
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def summary(reports: list[dict], rows_link: str, families_link: str) -> str:
    """The summary: per kind, one line per row (version, fidelity, deviations, hangs outside its
    racy cases, its page)
    and its two commonest deviations with a case id; every line at most WIDTH characters."""
    lines = [f"<!-- generated by harness/adapters/matrix.py from the JSON reports of `cargo test --test sdk` -->"]
    families = sorted({c["id"].split("/")[0] for r in reports for c in r["cases"]})
    lines.append("")
    links = [f"[{f}]({families_link}{f}.md)" for f in families]
    lines.extend(wrapped("Every case of every row, by family: " + ", ".join(links) + "."))
    for kind, title, figure in KINDS:
        chosen = [r for r in reports if kind_of(r) == kind]
        if not chosen:
            continue
        block = ["", f"**{title}**", ""]
        for report in chosen:
            racy = racy_of(report)
            # A racy case hangs in some runs and not in others: the line counts the others.
            hangs = sum(1 for case in report["cases"] if case["verdict"] == "hang" and case["id"] not in racy)
            name = report["adapter"]["name"]
            block.append(fitted(
                f"- [`{name}`]({rows_link}{name}.md) {report['adapter']['version'] or ''}: "
                f"{figure} {fidelity(report, FIGURES[figure])}, {deviating(kind, report, racy)} of "
                f"{len(report['cases'])} deviate, {hangs} {'hang' if hangs == 1 else 'hangs'}"))
            for count, words, first in findings(kind, report, racy)[:2]:
                block.append(fitted(f"  - {count} × {words} (`{first}`)"))
        if kind in RECORD_KINDS:
            block = ["", RECORD_START] + block + ["", RECORD_END]
        lines.extend(block)
    lines += ["", GENERATED_END]
    return "\n".join(lines) + "\n"


def row_page(report: dict) -> str:
    """One row's page: every case, what it expected and what this row did."""
    kind = kind_of(report)
    figure = dict((k, f) for k, _, f in KINDS)[kind]
    racy = racy_of(report)
    lines = [
        "<!-- generated by harness/adapters/matrix.py from the JSON reports of `cargo test --test sdk` -->",
        f"# {label(report)}",
        "",
        f"{figure} fidelity {fidelity(report, FIGURES[figure])}; "
        f"{deviating(kind, report, racy)} of {len(report['cases'])} cases deviate "
        f"([README](../../../harness/adapters/{report['adapter']['name']}/README.md), baseline in "
        f"`harness/adapters/{report['adapter']['name']}/baseline.toml`).",
        "",
        "| case | grade | expected | observed |",
        "|---|---|---|---|",
    ]
    for case in sorted(report["cases"], key=lambda c: c["id"]):
        lines.append(f"| `{case['id']}` | {case['grade']} | {expected_of(case)} | {cell_of(kind, case, racy)} |")
    text = "\n".join(lines) + "\n"
    if kind in RECORD_KINDS:
        text = f"{RECORD_START}\n{text}{RECORD_END}\n"
    return text


def family_page(family: str, reports: list[dict]) -> str:
    """The cases of one family (their folder under cases/), a table per kind of row."""
    lines = ["<!-- generated by harness/adapters/matrix.py from the JSON reports of `cargo test --test sdk` -->",
             f"# `{family}/` cases"]
    for kind, title, figure in KINDS:
        chosen = [r for r in reports if kind_of(r) == kind]
        if not chosen:
            continue
        by_id = [{c["id"]: c for c in r["cases"] if c["id"].startswith(family + "/")} for r in chosen]
        ids = sorted(set().union(*by_id))
        racy = [racy_of(r) for r in chosen]
        block = ["", f"## {title}", "",
                 "| case | expected | " + " | ".join(label(r) for r in chosen) + " |",
                 "|---|---|" + "---|" * len(chosen)]
        for case_id in ids:
            first = next(cases[case_id] for cases in by_id if case_id in cases)
            cells = [cell_of(kind, cases[case_id], r) if case_id in cases else "not run"
                     for cases, r in zip(by_id, racy)]
            block.append(f"| `{case_id}` | {expected_of(first)} | " + " | ".join(cells) + " |")
        if kind in RECORD_KINDS:
            block = ["", RECORD_START] + block + ["", RECORD_END]
        lines.extend(block)
    return "\n".join(lines) + "\n"


def pages(reports: list[dict]) -> dict[str, str]:
    """Every page, by its path under the matrix folder."""
    written = {"README.md": "# The matrix\n\n" + summary(reports, "rows/", "families/")}
    for report in reports:
        written[f"rows/{report['adapter']['name']}.md"] = row_page(report)
    for family in sorted({c["id"].split("/")[0] for r in reports for c in r["cases"]}):
        written[f"families/{family}.md"] = family_page(family, reports)
    return written


def without_records(text: str) -> str:
    """`text` without its record blocks (agent and bridge rows: a run of every case)."""
    out, inside = [], False
    for line in text.splitlines():
        if line == RECORD_START:
            inside = True
        elif line == RECORD_END:
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def read_reports(paths: list[str]) -> list[dict]:
    reports = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        if report.get("schema") != SCHEMA:
            sys.exit(f"{path}: schema {report.get('schema')!r}, expected {SCHEMA!r}")
        reports.append(report)
    return reports


def write_pages(folder: pathlib.Path, paths: list[str]) -> int:
    for name, text in pages(read_reports(paths)).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return 0


def check_pages(folder: pathlib.Path, paths: list[str]) -> int:
    """Whether the pages under `folder`, and the summary in the README, say what these reports
    say, the record blocks left out; a diff for each that does not."""
    reports = read_reports(paths)
    wanted = {folder / name: text for name, text in pages(reports).items()}
    readme = adapters.ROOT / "README.md"
    wanted[readme] = summary(reports, "docs/matrix/rows/", "docs/matrix/families/")
    wrong = 0
    for path, text in wanted.items():
        have = path.read_text(encoding="utf-8") if path.is_file() else ""
        if path == readme:
            have = generated_block(have)
        if without_records(have) != without_records(text):
            wrong += 1
            diff = difflib.unified_diff(without_records(have).splitlines(), without_records(text).splitlines(),
                                        f"{path} (committed)", f"{path} (this run)", lineterm="", n=1)
            print("\n".join(list(diff)[:40]), file=sys.stderr)
    return 1 if wrong else 0


def generated_block(text: str) -> str:
    """The summary matrix.py wrote into `text` (from its first line to its end marker)."""
    start = text.find(GENERATED_START)
    end = text.find(GENERATED_END, start)
    return text[start:end + len(GENERATED_END)] + "\n" if start >= 0 and end >= 0 else ""


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] in ("write", "check") and len(sys.argv) > 3:
        act = write_pages if sys.argv[1] == "write" else check_pages
        sys.exit(act(pathlib.Path(sys.argv[2]), sys.argv[3:]))
    if sys.argv[1] == "summary" and len(sys.argv) > 2:
        print(summary(read_reports(sys.argv[2:]), "docs/matrix/rows/", "docs/matrix/families/"), end="")
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))
