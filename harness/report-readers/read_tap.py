"""Reads a TAP file with tap.py and writes what it understood as JSON.

Usage: read_tap.py REPORT.tap OUT.json

The harness (harness/third_party.rs) compares the result with the run it wrote the report
from. The output goes to a file because tap.py prints its own YAML complaints on stdout.
"""

import json
import sys

from tap.parser import Parser


def point(line):
    return {
        "number": line.number,
        "ok": line.ok,
        "description": line.description,
        "skip": line.skip,
        "todo": line.todo,
        "directive": line.directive.text,
        "yaml": line.yaml_block,
    }


def main(report, out):
    seen = {"version": None, "plan": None, "points": [], "unknown": [], "bail": False}
    for line in Parser().parse_file(report):
        if line.category == "version":
            seen["version"] = line.version
        elif line.category == "plan":
            seen["plan"] = line.expected_tests
        elif line.category == "test":
            seen["points"].append(point(line))
        elif line.category == "bail":
            seen["bail"] = True
        elif line.category == "unknown":
            seen["unknown"].append(str(line))
    with open(out, "w", encoding="utf-8") as f:
        json.dump(seen, f, default=str)


if __name__ == "__main__":
    main(*sys.argv[1:])
