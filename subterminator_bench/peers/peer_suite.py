"""Playwright MCP's own tests against ``serve --tools playwright``: the per-test summary.

``benchmarks/peers/playwright_mcp_suite/run.sh`` runs the suite of a Playwright MCP
checkout with its own runner, against serve (``results-serve.json``) and, with
``BARE=1``, against Playwright MCP itself (``results-bare.json``), both in the runner's
JSON report. This reads the two reports and the adapter's ``verdicts.toml`` (why a test
does not apply, or which answer part it misses on purpose) and writes one summary:
per test, its outcome on each side, whether it applies, and why it fails. A failure
the verdicts do not explain, or one whose error does not show the part they name as
omitted, is counted as a real incompatibility.

``python -m subterminator_bench.peers.peer_suite CHECKOUT [--output FILE]``
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

VERDICTS = (
    Path(__file__).resolve().parents[2] / "benchmarks/peers/playwright_mcp_suite/verdicts.toml"
)
DEFAULT_OUTPUT = Path("docs/peers/playwright-mcp-suite.json")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: In the fixture's ``toHaveResponse`` diff: an expected part, and a received one.
_EXPECTED = re.compile(
    r'^-   "(?P<key>\w+)": (?P<containing>StringContaining )?(?P<value>.*?),?$', re.M
)
_RECEIVED = re.compile(r'^\+   "(?P<key>\w+)": (?P<value>.*?),?$', re.M)


@dataclass(frozen=True)
class SuiteTest:
    """One test of the suite: where it is, how it ended on each side, and why."""

    file: str
    title: str
    #: ``passed``, ``failed`` (or the runner's other words), ``not run`` with no report.
    bare: str
    serve: str
    applies: bool
    why: str
    #: A failure against serve that is neither a test that does not apply nor an answer
    #: part serve omits on purpose.
    incompatible: bool


def report_outcomes(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    """Each test's (file, title) in a Playwright JSON report: its last status and error."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    outcomes = {}
    for spec, file in _specs(data.get("suites", []), ""):
        for test in spec.get("tests", []):
            last = (test.get("results") or [{}])[-1]
            error = _ANSI.sub("", str((last.get("error") or {}).get("message", "")))
            outcomes[(file, str(spec["title"]))] = (str(last.get("status", "not run")), error)
    return outcomes


def _specs(suites: list[dict[str, Any]], file: str) -> Iterator[tuple[dict[str, Any], str]]:
    for suite in suites:
        where = str(suite.get("file") or file)
        yield from ((spec, where) for spec in suite.get("specs", []))
        yield from _specs(suite.get("suites", []), where)


def only_missing(error: str, missing: str) -> bool:
    """Whether the answer part ``missing`` is absent and every other part the test expected
    was received as expected (the fixture's diff lists both), so the part alone fails it."""
    expected = {m["key"]: m for m in _EXPECTED.finditer(error)}
    received = {m["key"]: m["value"] for m in _RECEIVED.finditer(error)}
    if missing not in expected or received.get(missing) != "undefined":
        return False
    for key, part in expected.items():
        if key == missing:
            continue
        got = received.get(key, "")
        if part["containing"]:
            if not (got.startswith('"') and part["value"][1:-1] in got):
                return False
        elif got != part["value"]:
            return False
    return True


def summarize_suite(checkout: Path, verdicts_path: Path = VERDICTS) -> list[SuiteTest]:
    """Every test either report holds, judged against the verdicts."""
    verdicts = {
        str(entry["title"]): entry
        for entry in tomllib.loads(verdicts_path.read_text(encoding="utf-8"))["tests"]
    }
    serve = report_outcomes(checkout / "results-serve.json")
    bare = report_outcomes(checkout / "results-bare.json")
    tests = []
    for file, title in sorted({*serve, *bare}):
        serve_status, error = serve.get((file, title), ("not run", ""))
        bare_status = bare.get((file, title), ("not run", ""))[0]
        verdict = verdicts.get(title, {})
        applies = bool(verdict.get("applies", True))
        missing = str(verdict.get("missing", ""))
        explained = not applies or (bool(missing) and only_missing(error, missing))
        failed = serve_status not in ("passed", "skipped")
        why = str(verdict.get("why", "")) if failed or not applies else ""
        tests.append(
            SuiteTest(
                file=file,
                title=title,
                bare=bare_status,
                serve=serve_status,
                applies=applies,
                why=why if (not failed or explained) else f"not explained: {error[:300]}",
                incompatible=failed and not explained,
            )
        )
    return tests


def suite_counts(tests: list[SuiteTest]) -> dict[str, int]:
    """How many tests, and of those that apply: passed, failed on purpose, incompatible."""
    applicable = [t for t in tests if t.applies]
    return {
        "tests": len(tests),
        "not_applicable": len(tests) - len(applicable),
        "applicable": len(applicable),
        "passed": sum(t.serve == "passed" for t in applicable),
        "failed_on_purpose": sum(t.serve != "passed" and not t.incompatible for t in applicable),
        "incompatible": sum(t.incompatible for t in tests),
        "bare_passed": sum(t.bare == "passed" for t in tests),
    }


def write_summary(checkout: Path, output: Path) -> dict[str, Any]:
    """Write the summary of ``checkout``'s two reports to ``output``; what was written."""
    tests = summarize_suite(checkout)
    report = checkout / "results-serve.json"
    started = json.loads(report.read_text(encoding="utf-8"))["stats"]["startTime"]
    summary = {
        "run": str(started)[:16].replace("T", " ") + " UTC",
        "version": _checkout_version(checkout),
        "counts": suite_counts(tests),
        "tests": [asdict(t) for t in tests],
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _checkout_version(checkout: Path) -> str:
    try:
        manifest = json.loads((checkout / "package.json").read_text(encoding="utf-8"))
    except OSError:
        return ""
    return str(manifest.get("version", ""))


def main(argv: list[str] | None = None) -> int:
    """Summarize a checkout's reports; 1 when a failure is a real incompatibility."""
    parser = argparse.ArgumentParser(prog="python -m subterminator_bench.peers.peer_suite")
    parser.add_argument("checkout", type=Path, help="the Playwright MCP checkout run.sh ran")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    summary = write_summary(args.checkout, args.output)
    print(json.dumps(summary["counts"]))
    return 1 if summary["counts"]["incompatible"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
