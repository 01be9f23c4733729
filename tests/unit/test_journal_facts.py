"""The journal as the source of truth: schema versions, step facts, interrupted runs, errors."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from subterminator_tui.errors import JournalError, JournalWriteError
from subterminator_tui.journal.schema import SCHEMA_VERSION
from subterminator_tui.journal.store import Journal

VERSION_1 = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, service TEXT NOT NULL, model TEXT, pilot TEXT NOT NULL,
  started_at REAL NOT NULL, ended_at REAL, success INTEGER, verified INTEGER, reason TEXT,
  turns INTEGER, final_url TEXT, error TEXT, message TEXT, model_calls INTEGER,
  input_tokens INTEGER, output_tokens INTEGER);
CREATE TABLE turns (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  turn INTEGER NOT NULL, pilot TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,
  started_at REAL NOT NULL, ended_at REAL, outcome TEXT, error TEXT, url TEXT, title TEXT,
  snapshot TEXT, latency REAL, input_tokens INTEGER, output_tokens INTEGER);
INSERT INTO runs (service, pilot, started_at) VALUES ('demoflix', 'playbook', 1.0);
INSERT INTO turns (run_id, turn, pilot, tool, arguments, started_at)
  VALUES (1, 1, 'playbook', 'browser_click', '{}', 1.0);
"""


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """Where the journal lives."""
    return tmp_path / "journal.sqlite3"


def test_a_version_1_file_is_migrated_in_place(path: Path) -> None:
    """A journal written before versions existed keeps its rows and gains the step facts."""
    with sqlite3.connect(path) as old:
        old.executescript(VERSION_1)
    with Journal(path) as journal:
        (run,) = journal.recent_runs()
        assert (run.service, run.turns) == ("demoflix", 1)
        step = journal.record_question(run.id, 1, "why", "Click", "http://x/")
        assert [s.id for s in journal.steps(run.id)] == [step]
        # Version 3's facts are unknown for old rows, not made up.
        assert (run.start_url, run.verified_by) == (None, None)
        (turn,) = journal.turns(run.id)
        assert (turn.target_role, turn.target_name) == (None, None)
    with sqlite3.connect(path) as again:
        assert again.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_newer_journal_is_refused_by_name(path: Path) -> None:
    """A file from a newer SubTerminator is not guessed at: a clear error naming it."""
    with sqlite3.connect(path) as newer:
        newer.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    with pytest.raises(JournalError, match="newer SubTerminator"):
        Journal(path)


@pytest.mark.parametrize(
    ("decisions", "state"),
    [
        ((), "asked"),
        (("reject",), "rejected"),
        (("guidance",), "guided"),
        (("approve",), "approved_not_dispatched"),
        (("approve", "dispatch"), "dispatched_outcome_unknown"),
        (("approve", "dispatch", "unknown"), "dispatched_outcome_unknown"),
        (("approve", "dispatch", "done"), "done"),
    ],
)
def test_each_fact_moves_the_step_to_its_state(
    path: Path, decisions: tuple[str, ...], state: str
) -> None:
    """asked, rejected, approved-not-dispatched, dispatched-outcome-unknown, done."""
    with Journal(path) as journal:
        run = journal.start_run("demoflix", None, "playbook")
        step = journal.record_question(run, 3, "Finishing is irreversible", "Click", "http://x/")
        for fact in decisions:
            if fact in ("approve", "reject", "guidance"):
                journal.record_decision(step, fact)
            elif fact == "dispatch":
                journal.record_dispatch(step)
            else:
                journal.record_step_outcome(step, fact)
        (row,) = journal.steps(run)
    assert row.state == state


def test_a_killed_runs_process_makes_it_interrupted(path: Path) -> None:
    """A run started by a process that was then SIGKILLed reads as interrupted, with its turns."""
    script = (
        "import sys, time; from pathlib import Path\n"
        "from subterminator_tui.journal.store import Journal\n"
        "j = Journal(Path(sys.argv[1])); run = j.start_run('demoflix', None, 'playbook')\n"
        "j.record_intent(run, 1, 'playbook', 'browser_click', {})\n"
        "print(run, flush=True); time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    run_id = int(child.stdout.readline())
    with Journal(path) as journal:
        assert journal.interrupted_runs("demoflix") == [], "a live run is not interrupted"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        (interrupted,) = journal.interrupted_runs("demoflix")
        assert (interrupted.id, interrupted.turns) == (run_id, 1)
        journal.close_interrupted(run_id, by_run=99)
        assert journal.interrupted_runs("demoflix") == []
        closed = journal.run(run_id)
        assert closed is not None and closed.reason == "interrupted"


def test_this_process_own_unfinished_run_is_not_interrupted(path: Path) -> None:
    """A run of the living process is running, not interrupted."""
    with Journal(path) as journal:
        journal.start_run("demoflix", None, "playbook")
        assert journal.interrupted_runs("demoflix") == []


def test_a_corrupt_journal_is_a_clear_error(path: Path) -> None:
    """Garbage in the file: JournalError naming the file and saying to move it aside."""
    path.write_bytes(b"this is not a database" * 200)
    with pytest.raises(JournalError, match="Move it aside") as caught:
        Journal(path)
    assert str(path) in str(caught.value)


def test_a_journal_under_a_file_is_a_clear_error(tmp_path: Path) -> None:
    """A path whose folder is a regular file cannot be created: JournalError, not a traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with pytest.raises(JournalError, match="folder"):
        Journal(blocker / "journal.sqlite3")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files anyway")
def test_a_read_only_journal_is_a_clear_error(path: Path) -> None:
    """A journal the person cannot write: JournalError naming the file."""
    Journal(path).close()
    path.chmod(0o400)
    with pytest.raises(JournalError):
        Journal(path).start_run("demoflix", None, "playbook")


def test_a_full_disk_is_a_write_error_not_a_traceback(path: Path) -> None:
    """No room left (the page limit stands in for a full disk): JournalWriteError, with advice."""
    with Journal(path) as journal:
        run = journal.start_run("demoflix", None, "playbook")
        pages = journal._db.execute("PRAGMA page_count").fetchone()
        assert pages is not None
        journal._db.execute(f"PRAGMA max_page_count={pages[0]}")
        with pytest.raises(JournalWriteError, match="disk space"):
            for turn in range(200):
                journal.record_intent(run, turn, "playbook", "browser_type", {"text": "x" * 4000})
