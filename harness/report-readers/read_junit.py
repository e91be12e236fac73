"""Reads a JUnit XML file with junitparser and writes what it understood as JSON.

Usage: read_junit.py REPORT.xml OUT.json

Counts are given twice: as the suite's attributes say, and as its test cases' results say.
"""

import json
import sys

from junitparser import JUnitXml, Properties, Property, TestSuite


def case(c):
    return {
        "name": c.name,
        "classname": c.classname,
        "time": c.time,
        "results": [
            {"kind": type(r).__name__.lower(), "type": r.type, "message": r.message}
            for r in c.result
        ],
        "system_out": c.system_out,
        "system_err": c.system_err,
        "properties": case_properties(c),
    }


def case_properties(c):
    # junitparser models properties on suites only; a test case's are read with its generic
    # child lookup, through the same Property class.
    found = c.child(Properties)
    return {p.name: p.value for p in found.iterchildren(Property)} if found is not None else {}


def suite(s):
    return {
        "name": s.name,
        "tests": s.tests,
        "failures": s.failures,
        "errors": s.errors,
        "skipped": s.skipped,
        "properties": {p.name: p.value for p in s.properties()},
        "cases": [case(c) for c in s],
    }


def main(report, out):
    xml = JUnitXml.fromfile(report)
    suites = [xml] if isinstance(xml, TestSuite) else list(xml)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"suites": [suite(s) for s in suites]}, f)


if __name__ == "__main__":
    main(*sys.argv[1:])
