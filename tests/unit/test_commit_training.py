"""The commit judgement on its training controls (tests/fixtures/corpus/commits.toml).

The training file holds real cancellation-flow controls and the requests they send, from
public projects outside the held-out split; the rules are written against it, and the
held-out split (benchmarks/held_out_commits.py) measures whether they generalise. These
tests keep the file a fair training set (cited, the same shape as the held-out file, no
held-out project in it) and hold the rules to what they reach on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.corpus_files import load_module, toml_cases

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ROOT / "tests" / "fixtures" / "corpus" / "commits.toml"
REPORT = ROOT / "benchmarks" / "held_out_commits.py"
SHAPE = ROOT / "tests" / "unit" / "test_held_out_commits_shape.py"

#: The held-out split's source projects: none of them may teach the rules.
HELD_OUT_PROJECTS = (
    *("liberapay", "whmcs", "listmonk", "fxa", "tryghost", "ec-cube", "paid-memberships-pro"),
    *("upcase", "gitfund", "opencollective", "discourse-subscriptions"),
    *("woocommerce-subscriptions", "dj-stripe", "s2member"),
)
#: Kinds whose questions the commit judgement alone decides. Pausing, resuming and
#: subscribing are asked by the built-in checkpoints on purpose (they move money), so a
#: question there is not the commit judgement's noise.
COMMIT_ONLY_KINDS = frozenset(
    {"open", "next", "keep", "card", "change", "sign_out", "consent", "dismiss", "downgrade"}
)


def cases() -> list[dict[str, Any]]:
    """Every training case."""
    return toml_cases(TRAINING)


def test_the_training_cases_have_the_held_out_shape() -> None:
    """The same keys, kinds, methods and roles as the held-out file, a truth that matches the
    kind, unique ids, and a cited source for each."""
    shape = load_module(SHAPE, "held_out_shape")
    ids = [case["id"] for case in cases()]
    assert len(ids) == len(set(ids))
    for case in cases():
        assert shape.REQUIRED <= set(case) <= shape.REQUIRED | shape.OPTIONAL, case
        assert case["kind"] in shape.KINDS and case["method"] in shape.METHODS, case
        assert case["role"] in {"button", "link"}, case
        assert case["commit"] == (case["kind"] == "final"), case
        assert "/" in case["source"].split()[0], case


def test_no_held_out_project_teaches_the_rules() -> None:
    """No case comes from a project of the held-out split."""
    for case in cases():
        source = case["source"].lower()
        assert not [name for name in HELD_OUT_PROJECTS if name in source], case


def test_the_training_set_is_varied_enough() -> None:
    """90 cases or more, in 15 languages or more, from 15 projects or more."""
    found = cases()
    assert len(found) >= 90
    assert len({case["lang"] for case in found}) >= 15
    assert len({case["source"].split()[0].split("@")[0] for case in found}) >= 15


def test_the_rules_ask_before_the_training_commits_and_not_at_its_other_requests() -> None:
    """Every commit that sends a request is asked (those sent over a WebSocket are judged
    by their words alone: at least 5 of them are asked), and no request of a kind
    the commit judgement alone decides (opening, next, keep, card, change, sign-out,
    consent, dismiss) is."""
    report = load_module(REPORT, "held_out_commits_for_training")
    sent = [case for case in cases() if case["method"] != report.NO_REQUEST]
    missed = [case["id"] for case in sent if case["commit"] and not report.judge(case).asked]
    assert missed == []
    noisy = [
        case["id"]
        for case in sent
        if case["kind"] in COMMIT_ONLY_KINDS and report.judge(case).asked
    ]
    assert noisy == []
    by_words = [case for case in cases() if case["method"] == report.NO_REQUEST and case["commit"]]
    asked = sum(report.judge(case).asked for case in by_words)
    assert asked >= 5, (asked, len(by_words))
