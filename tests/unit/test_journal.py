"""The journal: a real SQLite file, durable settings, intent before outcome, runs newest first."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.journal.store import Journal
from subterminator_tui.results import TaskResult

CLICK = {"target": "f4e12", "element": "button 'Finish cancellation'"}


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """Where the journal file goes (its directory does not exist yet)."""
    return tmp_path / "state" / "journal.sqlite3"


@pytest.fixture
def journal(path: Path) -> Iterator[Journal]:
    """An open journal on a fresh file."""
    with Journal(path) as opened:
        yield opened


def read_only(path: Path) -> contextlib.closing[sqlite3.Connection]:
    """A second connection, as another process would open the file; closed after use."""
    return contextlib.closing(sqlite3.connect(path))


def outcome_of(turn_id: int, path: Path) -> tuple[str | None, str | None]:
    """(tool, outcome) of a turn row, read through a second connection."""
    with read_only(path) as other:
        row = other.execute("SELECT tool, outcome FROM turns WHERE id=?", (turn_id,)).fetchone()
    assert row is not None, f"no turn row {turn_id}"
    return row[0], row[1]


def record_ok(journal: Journal, turn_id: int) -> None:
    """Complete a turn with an ok outcome."""
    journal.record_outcome(
        turn_id,
        outcome="ok",
        error=None,
        url="http://127.0.0.1:8000/cancel/done",
        title="Membership cancelled - Demoflix",
        snapshot='- heading "Cancellation confirmed"',
        latency=0.5,
        input_tokens=120,
        output_tokens=8,
    )


def test_the_file_and_its_directory_are_created(journal: Journal, path: Path) -> None:
    """Opening a journal creates the database file where it was asked."""
    assert path.is_file()
    assert journal.path == path


def test_the_journal_uses_write_ahead_logging(journal: Journal, path: Path) -> None:
    """journal_mode=WAL is persistent: a second connection sees it."""
    with read_only(path) as other:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_the_journal_connection_syncs_fully(journal: Journal) -> None:
    """synchronous=FULL (2) on the journal's own connection: a turn survives a power cut."""
    assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_the_intent_is_on_disk_before_the_outcome(journal: Journal, path: Path) -> None:
    """Right after record_intent another connection sees the turn with no outcome yet."""
    run_id = journal.start_run("demoflix", None, "playbook")
    turn_id = journal.record_intent(run_id, 1, "playbook", "browser_click", CLICK)
    assert outcome_of(turn_id, path) == ("browser_click", None)
    (turn,) = journal.turns(run_id)
    assert turn.outcome is None


def test_the_outcome_completes_the_same_row(journal: Journal, path: Path) -> None:
    """record_outcome fills in the intent's row: outcome, page, latency and tokens."""
    run_id = journal.start_run("demoflix", None, "playbook")
    turn_id = journal.record_intent(run_id, 1, "playbook", "browser_click", CLICK)
    record_ok(journal, turn_id)
    assert outcome_of(turn_id, path) == ("browser_click", "ok")
    (turn,) = journal.turns(run_id)
    assert turn.url == "http://127.0.0.1:8000/cancel/done"
    assert turn.title == "Membership cancelled - Demoflix"
    assert turn.snapshot == '- heading "Cancellation confirmed"'
    assert (turn.latency, turn.input_tokens, turn.output_tokens) == (0.5, 120, 8)


def test_recent_runs_lists_the_newest_first(journal: Journal) -> None:
    """Three runs come back last-started first, limited as asked."""
    ids = [journal.start_run(service, None, "playbook") for service in ("a", "b", "c")]
    assert [run.id for run in journal.recent_runs()] == ids[::-1]
    assert [run.service for run in journal.recent_runs(limit=2)] == ["c", "b"]


def test_an_unfinished_run_has_no_outcome(journal: Journal) -> None:
    """A started run has no end, reason or success until finish_run."""
    run_id = journal.start_run("demoflix", "claude-x", "ai")
    run = journal.run(run_id)
    assert run is not None
    assert (run.service, run.model, run.pilot) == ("demoflix", "claude-x", "ai")
    assert (run.ended_at, run.reason, run.success, run.verified) == (None, None, None, None)


def test_finish_run_stores_the_task_result(journal: Journal) -> None:
    """Every TaskResult field the journal keeps comes back, and the pilot/model are updated."""
    run_id = journal.start_run("demoflix", None, "playbook")
    result = TaskResult(
        success=True,
        verified=True,
        reason="completed",
        turns=6,
        final_url="http://127.0.0.1:8000/cancel/done",
        error=None,
        message="Verified: the cancellation confirmation page.",
        model_calls=3,
        input_tokens=900,
        output_tokens=40,
        run_id=run_id,
    )
    journal.finish_run(run_id, result, model="claude-x", pilot="ai")
    run = journal.run(run_id)
    assert run is not None
    assert run.ended_at is not None and run.ended_at >= run.started_at
    assert (run.success, run.verified, run.reason, run.turns) == (True, True, "completed", 6)
    assert run.final_url == "http://127.0.0.1:8000/cancel/done"
    assert run.message == "Verified: the cancellation confirmation page."
    assert run.error is None
    assert (run.input_tokens, run.output_tokens) == (900, 40)
    assert (run.model, run.pilot) == ("claude-x", "ai")


def test_a_failed_run_keeps_its_error(journal: Journal) -> None:
    """A connection error's message is stored with success and verified false."""
    run_id = journal.start_run("demoflix", "claude-x", "ai")
    result = TaskResult(success=False, verified=False, reason="llm_error", turns=2, error="503")
    journal.finish_run(run_id, result, model="claude-x", pilot="ai")
    run = journal.run(run_id)
    assert run is not None
    assert (run.success, run.verified, run.reason, run.error) == (False, False, "llm_error", "503")


def test_turns_come_back_in_order_with_arguments_decoded(journal: Journal) -> None:
    """Turns of one run, in turn order, arguments as dicts; other runs' turns are left out."""
    run_id = journal.start_run("demoflix", None, "playbook")
    other = journal.start_run("netflix", None, "playbook")
    journal.record_intent(run_id, 1, "playbook", "browser_click", {"target": "e14"})
    journal.record_intent(other, 1, "playbook", "browser_navigate", {"url": "https://x"})
    journal.record_intent(run_id, 2, "ai", "browser_type", {"target": "e3", "text": "hi"})
    journal.record_intent(run_id, 3, "ai", "complete_task", {"status": "success", "reason": "ok"})
    turns = journal.turns(run_id)
    assert [(t.turn, t.pilot, t.tool) for t in turns] == [
        (1, "playbook", "browser_click"),
        (2, "ai", "browser_type"),
        (3, "ai", "complete_task"),
    ]
    assert turns[1].arguments == {"target": "e3", "text": "hi"}
    assert turns[2].arguments == {"status": "success", "reason": "ok"}


def test_an_unknown_run_is_none(journal: Journal) -> None:
    """Looking up a run that was never started gives None."""
    assert journal.run(42) is None


def test_the_journal_survives_reopening(path: Path) -> None:
    """Runs written by one Journal are read back by the next one on the same file."""
    with Journal(path) as first:
        run_id = first.start_run("demoflix", None, "playbook")
        first.record_intent(run_id, 1, "playbook", "browser_click", CLICK)
    with Journal(path) as second:
        assert [run.id for run in second.recent_runs()] == [run_id]
        assert second.turns(run_id)[0].arguments == CLICK
