"""The commit judgement on the held-out controls (not a test: it reports, never gates).

    .venv/bin/python benchmarks/held_out_commits.py [--corpus PATH] [--json]
                                                   [--by-source] [--by-kind]

The held-out split (tests/fixtures/corpus/held_out/commits.toml) was collected from public
source code by a session that does not write the rules, and is never edited to pass. Each
case is one control on a cancellation page: what it says, what it is (button or link) and
the request it sends. This script asks the rules, the way the running app asks them,
whether the person would be asked before that step, and prints per language: commits
asked (recall) and non-commits asked (false questions); then the totals.

How a case is asked, mirroring guarded/request_gate.py and guarded/guard.py (the rules are
the generic service's for the case's host, built-in checkpoints included, as the guard
builds them with ``checkpoints_for``):

* A control that sends a request is judged as the request gate judges that request:
  ``rules.requests.classify`` on the request as it leaves (method, address, body), with the
  address gated when the control's own words name a rule: ``rule_naming`` on its labels,
  and for a plain link only what ``rules.commit.asks_before_opening`` keeps (a built-in
  word asks at a link only when the link says it finishes something). Inside ``classify``
  the commit itself is ``rules.commit.commit_in_path`` / ``commit_in_names`` /
  ``commit_in_fields`` on the address, method and body, as in the app, and for a button
  ``rules.commit.commit_in_labels`` on its own words (the gate reads a form's submit
  control that way; a plain link's words never make a commit). As with the gated
  address, a button's words are taken to reach the request it sends, which the app
  knows for a form and a snapshot's target, not for every script's fetch.
* A control that sends nothing (``method = "NONE"``: it only shows a dialog or the next
  step in the page) is judged as the guard judges a click on it: its labels against the
  rules (``rule_naming``), through ``asks_before_opening`` for a link. The guard also
  checks a rule's page conditions, which this script cannot see, so here a rule's words
  alone decide (the more generous reading).

A step counts as asked when the gate would hold it for the person. A question asked only
because the request carries an amount (the money checkpoint) is counted apart: it asks
about money, not about the commit, so it is not a false commit question; a commit asked
only that way still counts as asked. Typed navigations to unseen addresses
(``finish_in_path``) are out of scope: every control here is on the page.

Misses are not printed (the split is a measure, not a to-do list). ``--by-source`` adds
the same figures per source project, so one project's shape cannot hide in the totals;
``--by-kind`` per kind of step (final, open, next, pause, offer, resume, ...).
With ``--json``, every figure as one JSON object on standard output.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.browser.interception import InterceptedRequest  # noqa: E402
from subterminator_tui.rules import CheckpointRule  # noqa: E402
from subterminator_tui.rules.commit import asks_before_opening, commit_in_labels  # noqa: E402
from subterminator_tui.rules.defaults import checkpoints_for  # noqa: E402
from subterminator_tui.rules.generic import generic_service  # noqa: E402
from subterminator_tui.rules.matching import rule_naming  # noqa: E402
from subterminator_tui.rules.requests import address_key, classify  # noqa: E402

HELD_OUT = ROOT / "tests" / "fixtures" / "corpus" / "held_out" / "commits.toml"

#: The order the table lists languages in; any other language follows alphabetically.
LANGUAGE_ORDER = (
    *("en", "de", "fr", "es", "it", "pt", "nl", "ja", "pl", "sv", "da", "nb", "fi"),
    *("cs", "tr", "ko", "zh-Hans", "zh-Hant", "ru", "ar", "he", "id", "vi", "el"),
)

#: A control that sends no request: it only changes the page in the browser.
NO_REQUEST = "NONE"


@dataclass(frozen=True)
class Verdict:
    """What the rules would do before one step: ask at all, and whether only about money."""

    asked: bool
    money_only: bool = False


@dataclass
class Figures:
    """How the rules did on one group of cases (a language, a source, or all)."""

    name: str
    commits_asked: int = 0
    commits: int = 0
    non_commits_asked: int = 0
    non_commits: int = 0
    non_commits_asked_about_money: int = 0

    def count(self, commit: bool, verdict: Verdict) -> None:
        """Add one case and what the rules did on it."""
        if commit:
            self.commits += 1
            self.commits_asked += verdict.asked
        elif verdict.asked and verdict.money_only:
            self.non_commits += 1
            self.non_commits_asked_about_money += 1
        else:
            self.non_commits += 1
            self.non_commits_asked += verdict.asked


@cache
def rules_for(host: str) -> tuple[CheckpointRule, ...]:
    """The rules the guard holds for a generic service on ``host`` (built-ins included)."""
    service = generic_service(host)
    return checkpoints_for(service.checkpoint, service.default_checkpoints)


def labels_of(case: dict[str, Any]) -> list[str]:
    """The control's names as the page exposes them: its text, then its aria-label."""
    return [label for label in (case.get("label", ""), case.get("aria_label", "")) if label]


def rule_of_control(
    case: dict[str, Any], rules: tuple[CheckpointRule, ...]
) -> CheckpointRule | None:
    """The rule the control's own words name, as the gate reads a link or a form."""
    labels = labels_of(case)
    rule = rule_naming(rules, labels)
    if case["role"] == "link" and case["method"] in ("GET", NO_REQUEST):
        rule = asks_before_opening(rule, labels)
    return rule


def body_of(case: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """The request body and its headers, built from the case as the page would send it."""
    headers = dict(case.get("headers", {}))
    if "graphql" in case:
        headers["Content-Type"] = "application/json"
        return json.dumps(case["graphql"]).encode(), headers
    if "json" in case:
        headers["Content-Type"] = "application/json"
        return json.dumps(case["json"]).encode(), headers
    if "body" in case:
        headers["Content-Type"] = case.get("content_type", "text/plain;charset=UTF-8")
        return case["body"].encode(), headers
    fields = case.get("fields", {})
    if case["method"] == "GET" or not fields:
        return b"", headers
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    return urlencode(fields).encode(), headers


def request_of(case: dict[str, Any]) -> InterceptedRequest:
    """The request the control sends, as the gate sees it paused."""
    body, headers = body_of(case)
    navigation = case["method"] == "GET" or (
        "fields" in case and not any(key in case for key in ("json", "graphql", "body"))
    )
    return InterceptedRequest(
        request_id="held-out",
        method=case["method"],
        url=case["url"],
        resource_type="Document" if navigation else "Fetch",
        headers=headers,
        body=body,
        target_type="page",
        top_level=navigation,
    )


def judge(case: dict[str, Any]) -> Verdict:
    """Whether the person would be asked before the step ``case`` describes."""
    rules = rules_for(urlsplit(case["url"]).hostname or "")
    control_rule = rule_of_control(case, rules)
    if case["method"] == NO_REQUEST:
        return Verdict(asked=control_rule is not None)
    key = address_key(case["url"])

    def gated_address(address: str) -> str | None:
        if address != key or control_rule is None:
            return None
        return f"the address of '{labels_of(case)[0]}': {control_rule.explain()}"

    def commit_named(address: str) -> str | None:
        # As the gate reads a form's submit control: a plain link's name opens a page.
        if address != key or case["role"] == "link":
            return None
        return commit_in_labels(labels_of(case))

    judgement = classify(request_of(case), rules, gated_address, commit_named)
    asked = judgement.kind == "gated"
    return Verdict(asked=asked, money_only=asked and judgement.spends_money)


def load(path: Path) -> list[dict[str, Any]]:
    """The held-out cases."""
    with path.open("rb") as file:
        cases: list[dict[str, Any]] = tomllib.load(file)["case"]
    return cases


def source_project(case: dict[str, Any]) -> str:
    """The project a case comes from (owner/name, without a commit)."""
    return str(case["source"].split()[0].split("@")[0])


@dataclass
class Measure:
    """Every figure: per language (table order), per source project, per kind, in total."""

    languages: list[Figures]
    sources: list[Figures]
    kinds: list[Figures]
    total: Figures


def measure(cases: list[dict[str, Any]]) -> Measure:
    """Judge every case once and count it in its language, source, kind and the total."""
    by_language: dict[str, Figures] = {}
    by_source: dict[str, Figures] = {}
    by_kind: dict[str, Figures] = {}
    total = Figures("total")
    for case in cases:
        verdict = judge(case)
        groups = (
            (case["lang"], by_language),
            (source_project(case), by_source),
            (case["kind"], by_kind),
        )
        for name, group in groups:
            group.setdefault(name, Figures(name)).count(case["commit"], verdict)
        total.count(case["commit"], verdict)
    known = [lang for lang in LANGUAGE_ORDER if lang in by_language]
    order = known + sorted(set(by_language) - set(LANGUAGE_ORDER))
    return Measure(
        languages=[by_language[lang] for lang in order],
        sources=[by_source[name] for name in sorted(by_source)],
        kinds=[by_kind[name] for name in sorted(by_kind)],
        total=total,
    )


def table(rows: list[Figures], total: Figures, heading: str) -> str:
    """The figures as a plain-text table, one group a line, the totals last."""
    width = max(len(heading), *(len(row.name) for row in rows))
    header = f"{heading:<{width}} {'commits asked':>14} {'false questions':>16} {'money only':>11}"
    lines = [header, "-" * len(header)]
    for row in (*rows, total):
        if row is total:
            lines.append("-" * len(header))
        lines.append(
            f"{row.name:<{width}} {row.commits_asked:>6}/{row.commits:<7}"
            f" {row.non_commits_asked:>8}/{row.non_commits:<7}"
            f" {row.non_commits_asked_about_money:>11}"
        )
    return "\n".join(lines)


def summary(total: Figures, languages: int, sources: int) -> str:
    """Recall and the false-question rate in one line."""
    recall = total.commits_asked / total.commits if total.commits else 0.0
    false_rate = total.non_commits_asked / total.non_commits if total.non_commits else 0.0
    return (
        f"recall {recall:.1%}; false questions {false_rate:.1%} of non-commits;"
        f" {languages} languages, {sources} source projects"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the held-out figures; exit 0 whatever they are (a report, not a gate)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HELD_OUT, help="the held-out TOML")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--by-source", action="store_true", help="add a table per source")
    parser.add_argument("--by-kind", action="store_true", help="add a table per kind of step")
    arguments = parser.parse_args(argv)
    figures = measure(load(arguments.corpus))
    if arguments.json:
        report = {
            "languages": [asdict(row) for row in figures.languages],
            "sources": [asdict(row) for row in figures.sources],
            "kinds": [asdict(row) for row in figures.kinds],
            "total": asdict(figures.total),
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    print(table(figures.languages, figures.total, "lang"))
    for wanted, rows, heading in (
        (arguments.by_source, figures.sources, "source"),
        (arguments.by_kind, figures.kinds, "kind"),
    ):
        if wanted:
            print()
            print(table(rows, figures.total, heading))
    print(summary(figures.total, len(figures.languages), len(figures.sources)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
