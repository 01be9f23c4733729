"""The held-out commit split's shape, and the report's plumbing (never its recall).

The held-out controls (tests/fixtures/corpus/held_out/commits.toml) measure the commit
judgement on what its authors did not write; benchmarks/held_out_commits.py reports that
figure. These tests keep the file usable as a measure (every case cited, a request that
can be sent, a truth that matches its kind, enough cases and languages) and check that
the report counts every case once and reaches the rules the way the gate does.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from tests.support.corpus_files import load_module, toml_cases

ROOT = Path(__file__).resolve().parents[2]
HELD_OUT = ROOT / "tests" / "fixtures" / "corpus" / "held_out" / "commits.toml"
REPORT = ROOT / "benchmarks" / "held_out_commits.py"

REQUIRED = frozenset({"id", "lang", "kind", "role", "label", "method", "url", "commit", "source"})
OPTIONAL = frozenset(
    {"aria_label", "fields", "json", "graphql", "body", "content_type", "headers", "note"}
)
KINDS = frozenset(
    {
        *("final", "open", "next", "pause", "offer", "resume", "keep", "change"),
        *("downgrade", "card", "sign_out", "consent", "dismiss", "other"),
    }
)
METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "NONE"})


def cases() -> list[dict[str, Any]]:
    """Every held-out case, read once per call."""
    return toml_cases(HELD_OUT)


def report() -> ModuleType:
    """benchmarks/held_out_commits.py, loaded as a module (benchmarks is not a package)."""
    return load_module(REPORT, "held_out_commits")


def test_every_case_has_the_fields_of_a_control_and_its_request() -> None:
    """Required keys, nothing unknown, a known kind, method and role, an https address."""
    for case in cases():
        assert REQUIRED <= set(case) <= REQUIRED | OPTIONAL, case
        assert case["kind"] in KINDS, case
        assert case["method"] in METHODS, case
        assert case["role"] in {"button", "link"}, case
        assert urlsplit(case["url"]).scheme == "https", case
        assert isinstance(case["commit"], bool), case
        assert case["source"].strip(), case


def test_only_a_final_step_is_a_commit() -> None:
    """The truth agrees with the kind: final steps commit, every other kind does not."""
    for case in cases():
        assert case["commit"] == (case["kind"] == "final"), case


def test_a_body_is_given_one_way_only() -> None:
    """A case carries form fields, JSON, GraphQL or a raw body, never two of them."""
    for case in cases():
        bodies = [key for key in ("json", "graphql", "body") if key in case]
        assert len(bodies) <= 1, case
        if bodies:
            assert not case.get("fields"), case


def test_ids_are_unique() -> None:
    """An id names one case."""
    counts = Counter(case["id"] for case in cases())
    assert [name for name, count in counts.items() if count > 1] == []


def test_the_split_is_large_and_balanced_enough() -> None:
    """250 cases or more, 10 languages or more, and between 35% and 55% commits."""
    found = cases()
    commits = sum(case["commit"] for case in found)
    assert len(found) >= 250
    assert len({case["lang"] for case in found}) >= 10
    assert 0.35 <= commits / len(found) <= 0.55


def test_the_report_counts_every_case_once() -> None:
    """Per language, per source and per kind, the counts add up to the file's."""
    module = report()
    found = cases()
    figures = module.measure(found)
    commits = sum(case["commit"] for case in found)
    for rows in (figures.languages, figures.sources, figures.kinds):
        assert sum(row.commits for row in rows) == commits
        assert sum(row.non_commits for row in rows) == len(found) - commits
    assert figures.total.commits == commits


def test_the_report_reaches_the_commit_rule_through_the_request() -> None:
    """A POST to /api/subscription/cancel (the commit docstring's own example) is asked,
    whatever its button says; the same address opened by a plain link is not."""
    module = report()
    post = {
        "role": "button",
        "label": "Continue",
        "method": "POST",
        "url": "https://shop.example/api/subscription/cancel",
        "fields": {"token": "x"},
    }
    link = {**post, "role": "link", "method": "GET", "fields": {}}
    assert module.judge(post).asked
    assert not module.judge(link).asked


def test_a_control_that_sends_nothing_is_judged_by_its_words_alone() -> None:
    """No request: only a rule naming the control's words can ask; "Back" names none."""
    module = report()
    back = {"role": "button", "label": "Back", "method": "NONE", "url": "https://shop.example/"}
    assert not module.judge(back).asked
