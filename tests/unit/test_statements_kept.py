"""What find --keep and the home keep: one row per subscription, nothing of the statement."""

from __future__ import annotations

import datetime
import json
import stat
from pathlib import Path

import pytest

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.journal.rows import CheckRow, RunRow
from subterminator_tui.rules.loader import load_services
from subterminator_tui.statements.finding import find_subscriptions
from subterminator_tui.statements.kept import keep, kept_file, load_kept
from subterminator_tui.statements.overview import home_rows, run_status

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
#: When the runs below ended and the check was made, as the home shows the day.
ENDED = datetime.datetime.fromtimestamp(1_780_000_100.0).date().isoformat()
CHECKED = datetime.datetime.fromtimestamp(1_780_100_000.0).date().isoformat()


def _report(name: str = "checking.ofx"):  # type: ignore[no-untyped-def]
    return find_subscriptions([FIXTURES / name], load_services(user_file=None).all())


def test_kept_rows_hold_no_statement_text(tmp_path: Path) -> None:
    """Not another row of the statement, and not even a subscription's own descriptor."""
    path = tmp_path / "subscriptions.json"
    keep(_report(), path)
    text = path.read_text(encoding="utf-8")
    for line in ("CORNER GROCERY", "BLUE BOTTLE", "ACME CORP", "866-579-7172", "AMZN MKTP"):
        assert line not in text.upper()
    assert len(json.loads(text)["subscriptions"]) == 14


def test_the_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    """0600, like a saved sign-in: it says what the person pays for."""
    path = tmp_path / "subscriptions.json"
    keep(_report(), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_newer_export_of_the_same_file_replaces_its_rows(tmp_path: Path) -> None:
    """Keeping checking.ofx twice leaves one set of its rows; another file adds its own."""
    path = tmp_path / "subscriptions.json"
    keep(_report(), path)
    keep(_report(), path)
    assert len(load_kept(path)) == 14
    keep(_report("card.csv"), path)
    assert len(load_kept(path)) == 28


def test_it_lives_beside_the_journal(isolated_home: Path) -> None:
    """In the platform's state directory, where the journal is."""
    assert kept_file().parent == isolated_home / "xdg_state_home" / "subterminator"


def test_a_damaged_file_names_itself(tmp_path: Path) -> None:
    """A file that is not the list says where it is and what to do."""
    path = tmp_path / "subscriptions.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=str(path)):
        load_kept(path)


def _run(run_id: int, service: str, reason: str | None, **more: object) -> RunRow:
    fields: dict[str, object] = {
        "id": run_id,
        "service": service,
        "model": None,
        "pilot": "playbook",
        "started_at": 1_780_000_000.0,
        "ended_at": 1_780_000_100.0,
        "success": reason == "completed",
        "verified": reason == "completed",
        "reason": reason,
        "turns": 4,
        "final_url": None,
        "error": None,
        "message": None,
        "input_tokens": None,
        "output_tokens": None,
    }
    fields.update(more)
    return RunRow(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("run", "words"),
    [
        (_run(1, "netflix", "completed"), f"cancelled, verified {ENDED}"),
        (_run(2, "netflix", "sent_not_verified"), "sent, not verified"),
        (
            _run(3, "calm", "billed_elsewhere", ending={"biller": "Apple"}),
            "billed elsewhere (Apple)",
        ),
        (_run(4, "noom", "offline_only"), "cancels offline: letter ready"),
        (_run(5, "zoom", None), "run not finished"),
    ],
)
def test_a_runs_ending_in_a_few_words(run: RunRow, words: str) -> None:
    """Each ending as the home shows it."""
    assert run_status(run) == words


def test_the_home_joins_statements_runs_and_checks(tmp_path: Path) -> None:
    """Netflix from the statement with its run and a later check; Noom from its run alone."""
    path = tmp_path / "subscriptions.json"
    keep(_report(), path)
    runs = [_run(7, "netflix", "completed"), _run(8, "noom", "offline_only")]
    checks = {"netflix": CheckRow(1, "netflix", 7, 1_780_100_000.0, "renewed", None, "Renews on")}
    rows = {row.name: row for row in home_rows(load_kept(path), runs, checks)}
    netflix = rows["Netflix"]
    assert netflix.status == f"cancelled, verified {ENDED}; checked {CHECKED}: renewed"
    assert netflix.run_id == 7 and netflix.cost == "17.99 USD/mo"
    assert rows["noom"].status == "cancels offline: letter ready" and rows["noom"].cost == ""
    assert rows["Zoom"].status == "stopped?"
    assert rows["Apple subscription (via Apple)"].how_to_cancel == "at Apple"
