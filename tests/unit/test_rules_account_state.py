"""The plan's state on an account page, for ``subterminator check``: each with a near miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.journal.schema import SCHEMA_VERSION
from subterminator_tui.journal.store import Journal
from subterminator_tui.rules.account_state import read_account_state
from subterminator_tui.rules.loader import load_services
from subterminator_tui.rules.models import ServiceConfig


@pytest.fixture(scope="module")
def service() -> ServiceConfig:
    """The practice portal, with its own success rule and the generic ones."""
    return load_services(user_file=None).get("portal-remembered")


def page(body: str, url: str = "http://127.0.0.1:8000/account") -> NormalizedSnapshot:
    """A page from aria-snapshot lines."""
    return NormalizedSnapshot(
        url=url, title="Account", content=body, elements=tuple(parse_elements(body))
    )


@pytest.mark.parametrize(
    ("body", "state"),
    [
        (
            "- paragraph: Your membership has been cancelled. Access ends on 31 December.",
            "cancelled",
        ),
        ("- paragraph: Your membership renewed on 1 January 2027.", "renewed"),
        ("- paragraph: Payment received: $9.99 on 1 January 2027.", "renewed"),
        ("- paragraph: Ihr Abo wurde automatisch verlängert.", "renewed"),
        ("- paragraph: Votre abonnement a été renouvelé le 1er janvier.", "renewed"),
        ("- paragraph: Tu suscripción se ha renovado.", "renewed"),
        ("- paragraph: Your plan renews on 1 January 2027.", "active"),
        ("- paragraph: Next billing date: 1 January 2027.", "active"),
        ('- paragraph: Premium\n- button "Cancel membership" [ref=e2]', "active"),
        ("- paragraph: Prochain prélèvement le 3 mars.", "active"),
        ("- paragraph: Welcome back.", "unknown"),
    ],
)
def test_the_page_says_the_plans_state(service: ServiceConfig, body: str, state: str) -> None:
    """Cancelled, renewed, active or unknown, in four languages."""
    assert read_account_state(service, page(body)).state == state


@pytest.mark.parametrize(
    "body",
    [
        "- paragraph: If you do nothing, your plan renews on 1 May.",
        "- paragraph: Wenn Sie nicht kündigen, wird Ihr Abo verlängert.",
        "- paragraph: Renewal reminders are sent by e-mail.",
    ],
)
def test_near_misses_say_nothing_about_this_account(service: ServiceConfig, body: str) -> None:
    """Conditions and general copy are no reading."""
    assert read_account_state(service, page(body)).state == "unknown"


def test_a_sign_in_page_is_unknown_and_says_how_to_sign_in(service: ServiceConfig) -> None:
    """Signed out: unknown, never "active" or "cancelled"."""
    reading = read_account_state(
        service, page('- heading "Sign in" [level=1]', url="http://127.0.0.1:8000/login")
    )
    assert reading.state == "unknown" and "inspect portal-remembered" in reading.why


def test_checks_are_kept_beside_the_run_they_re_read(tmp_path: Path) -> None:
    """Journal version 6: a check row names its service, run, state and why."""
    assert SCHEMA_VERSION >= 6
    with Journal(tmp_path / "journal.sqlite3") as journal:
        run_id = journal.start_run("portal", None, "playbook")
        journal.record_check("portal", run_id, "renewed", "http://x/account", "renewed on")
        (check,) = journal.checks("portal")
    assert (check.service, check.run_id, check.state, check.why) == (
        "portal",
        run_id,
        "renewed",
        "renewed on",
    )
