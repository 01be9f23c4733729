"""Call records without a browser: the journal's tables, the read cursors, console parsing."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.journal.call_log import CallLogStore, ConsoleMessage, LoggedCall
from subterminator_tui.journal.schema import SCHEMA_VERSION
from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.errors import ServeInputError
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.oversight.call_log import SessionCallLog, redacted_arguments
from subterminator_tui.serve.oversight.call_log_reader import (
    CallLogReader,
    CallNotFoundError,
    line_diff,
)
from subterminator_tui.serve.oversight.console_log import at_least, parse_console

PAGE_ONE = '- heading "Account"\n- button "Cancel membership" [ref=e3]\n- link "Help"'
PAGE_TWO = '- heading "Account"\n- button "Continue" [ref=e5]\n- link "Help"'

#: browser_console_messages as Playwright MCP 0.0.83 prints it (level debug).
CONSOLE = """### Result
Total messages: 5 (Errors: 2, Warnings: 1)

[DEBUG] tracing on @ http://127.0.0.1:8000/app.js:3
[LOG] page ready @ http://127.0.0.1:8000/:12
[WARNING] slow image @ http://127.0.0.1:8000/:13
[ERROR] card @ declined @ http://127.0.0.1:8000/pay.js:40
Error: boom
    at render (http://127.0.0.1:8000/app.js:7:11)
    at http://127.0.0.1:8000/app.js:9:1"""


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    """A fresh journal file."""
    with Journal(tmp_path / "journal.sqlite3") as opened:
        yield opened


def record(
    ref_id: str, content: str, *, principal: str = "alice", session: str = "s"
) -> LoggedCall:
    """A record of a snapshot call showing ``content``."""
    return LoggedCall(
        ref_id, principal, session, "browser_snapshot", {}, "ok", content, content,
        "http://127.0.0.1/", None, 0.01, 1.0,
    )  # fmt: skip


def store_with(journal: Journal, *records: LoggedCall) -> CallLogStore:
    """The journal's call records holding ``records`` (under one run)."""
    store = CallLogStore(journal)
    run = journal.start_run("demoflix", None, "mcp:alice")
    for each in records:
        store.add(each, run)
    return store


def test_the_cursor_rules_first_full_then_empty_then_the_diff_then_reset(journal: Journal) -> None:
    """First read full; the same ref again empty; a later ref its changed lines; reset full."""
    reader = CallLogReader(store_with(journal, record("r1", PAGE_ONE), record("r2", PAGE_TWO)))
    first = reader.content("alice", "r1")
    assert (first.mode, first.content) == ("full", PAGE_ONE)
    again = reader.content("alice", "r1")
    assert (again.mode, again.content) == ("unchanged", "")
    later = reader.content("alice", "r2")
    assert later.mode == "diff" and later.since_ref_id == "r1"
    assert '-- button "Cancel membership" [ref=e3]' in later.content
    assert '+- button "Continue" [ref=e5]' in later.content
    assert "Help" not in later.content, "unchanged lines are not repeated"
    assert reader.content("alice", "r2").content == ""
    reset = reader.content("alice", "r2", reset_cursor=True)
    assert (reset.mode, reset.content) == ("full", PAGE_TWO)


def test_search_for_reads_matching_lines_and_leaves_the_cursor(journal: Journal) -> None:
    """A search is a lookup: numbered matching lines, any case; the next read is still a diff."""
    reader = CallLogReader(store_with(journal, record("r1", PAGE_ONE), record("r2", PAGE_TWO)))
    reader.content("alice", "r1")
    found = reader.content("alice", "r2", search_for="CONTINUE")
    assert (found.mode, found.content) == ("search", '2: - button "Continue" [ref=e5]')
    assert reader.content("alice", "r2", search_for="nowhere").content == ""
    assert reader.content("alice", "r2").mode == "diff", "the search did not move the cursor"


def test_cursors_are_per_caller_and_per_session(journal: Journal) -> None:
    """Bob's reads do not move Alice's cursor; another session starts full; refs stay private."""
    store = store_with(
        journal,
        record("a1", PAGE_ONE),
        record("a2", PAGE_TWO),
        record("x1", PAGE_TWO, session="other"),
        record("b1", PAGE_ONE, principal="bob"),
    )
    reader = CallLogReader(store)
    reader.content("alice", "a1")
    assert reader.content("bob", "b1").mode == "full"
    assert reader.content("alice", "x1").mode == "full", "another session has its own cursor"
    assert reader.content("alice", "a2").mode == "diff"
    with pytest.raises(CallNotFoundError, match="No call record 'b1' of yours"):
        reader.content("alice", "b1")
    with pytest.raises(CallNotFoundError):
        reader.console("bob", "a1")


def test_cursors_survive_reopening_the_journal(tmp_path: Path) -> None:
    """A restarted server (a new connection to the same file) continues from the last read."""
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        reader = CallLogReader(store_with(journal, record("r1", PAGE_ONE), record("r2", PAGE_TWO)))
        reader.content("alice", "r1")
    with Journal(path) as journal:
        reader = CallLogReader(CallLogStore(journal))
        assert reader.content("alice", "r1").content == ""
        assert reader.content("alice", "r2").mode == "diff"


def test_a_diff_is_only_changed_lines() -> None:
    """Hunks of -/+ lines, no file headers, no context."""
    assert line_diff("a\nb\nc", "a\nB\nc") == "@@ -2 +2 @@\n-b\n+B"
    assert line_diff("same", "same") == ""


def test_console_entries_get_levels_and_locations() -> None:
    """Each console type folds into a level; the location comes from ' @ url:line' or the stack."""
    messages = parse_console(CONSOLE)
    assert [m.level for m in messages] == ["debug", "info", "warn", "error", "error"]
    assert messages[1] == ConsoleMessage("info", "page ready", "http://127.0.0.1:8000/", 12)
    # Only the last ' @ ' separates the location: the message may hold one.
    assert messages[3].message == "card @ declined"
    assert (messages[4].url, messages[4].line, messages[4].column) == (
        "http://127.0.0.1:8000/app.js",
        7,
        11,
    )
    assert messages[4].message.startswith("Error: boom\n    at render")
    assert messages[1].text() == "[INFO] page ready @ http://127.0.0.1:8000/:12"
    assert parse_console("") == () and parse_console("Total messages: 0 (Errors: 0)\n\n") == ()
    assert at_least("warn") == ("warn", "error") and at_least("") == (
        "debug",
        "info",
        "warn",
        "error",
    )


def test_console_content_filters_by_level(journal: Journal) -> None:
    """level is the least severe level returned; an unknown level is a clear error."""
    store = CallLogStore(journal)
    run = journal.start_run("demoflix", None, "mcp:alice")
    store.add(record("r1", PAGE_ONE), run, parse_console(CONSOLE))
    reader = CallLogReader(store)
    assert len(reader.console("alice", "r1").splitlines()) == 7  # the stack spans three lines
    errors = reader.console("alice", "r1", "error")
    assert errors.startswith("[ERROR] card @ declined @ http://127.0.0.1:8000/pay.js:40")
    assert "[WARN]" not in errors and "Error: boom" in errors
    assert reader.console("alice", "r1", "warn").count("[WARN]") == 1
    with pytest.raises(ServeInputError, match="Unknown console level 'fatal'"):
        reader.console("alice", "r1", "fatal")


def test_typed_text_never_reaches_a_record(journal: Journal) -> None:
    """The argument is replaced by its length and the value is scrubbed from every text."""
    store = CallLogStore(journal)
    run = journal.start_run("demoflix", None, "mcp:alice")
    recorder = SessionCallLog(store, SessionKey.of("alice", "s"), run)
    secret = "hunter2-secret"
    ref = recorder.record(
        "browser_type",
        {"target": "e3", "text": secret, "submit": False},
        Answer("error", f"could not type {secret}"),
        result_text=f"### Ran Playwright code\nawait page.fill('{secret}');",
        console_text=f"Total messages: 1\n\n[LOG] typed {secret} @ http://x/:1",
        latency=0.2,
    )
    kept = store.get("alice", ref)
    assert kept is not None
    assert kept.arguments == {
        "target": "e3",
        "text": "[14 characters typed, not recorded]",
        "submit": False,
    }
    assert secret not in f"{kept.result}{kept.error}{store.console(ref)}"
    assert redacted_arguments({"url": "/x"}) == {"url": "/x"}


def test_an_old_journal_gains_the_record_tables(tmp_path: Path) -> None:
    """A version-1 file is migrated through 2 to 3; its rows stay and records can be added."""
    path = tmp_path / "journal.sqlite3"
    with sqlite3.connect(path) as old:
        old.executescript(
            "CREATE TABLE runs (id INTEGER PRIMARY KEY, service TEXT NOT NULL, model TEXT, "
            "pilot TEXT NOT NULL, started_at REAL NOT NULL, ended_at REAL, success INTEGER, "
            "verified INTEGER, reason TEXT, turns INTEGER, final_url TEXT, error TEXT, "
            "message TEXT, model_calls INTEGER, input_tokens INTEGER, output_tokens INTEGER);"
            "CREATE TABLE turns (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, turn INTEGER "
            "NOT NULL, pilot TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL, "
            "started_at REAL NOT NULL, ended_at REAL, outcome TEXT, error TEXT, url TEXT, "
            "title TEXT, snapshot TEXT, latency REAL, input_tokens INTEGER, output_tokens INTEGER);"
            "INSERT INTO runs (service, pilot, started_at) VALUES ('demoflix', 'playbook', 1.0);"
        )
    with Journal(path) as journal:
        assert [r.service for r in journal.recent_runs()] == ["demoflix"]
        reader = CallLogReader(store_with(journal, record("r1", PAGE_ONE)))
        assert reader.content("alice", "r1").content == PAGE_ONE
    with sqlite3.connect(path) as again:
        assert again.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_served_calls_page_is_stored_once_and_its_turn_reads_it(journal: Journal) -> None:
    """The turn keeps url and title, the record the page; ``turns`` shows the record's page."""
    store = CallLogStore(journal)
    run = journal.start_run("demoflix", None, "mcp:alice")
    recorder = SessionCallLog(store, SessionKey.of("alice", "s"), run)
    row = journal.record_intent(run, 1, "mcp:alice", "browser_snapshot", {})
    journal.record_outcome(
        row, outcome="ok", error=None, url="http://127.0.0.1/", title="Account", snapshot=None,
        latency=0.1, input_tokens=0, output_tokens=0,
    )  # fmt: skip
    page = NormalizedSnapshot(url="http://127.0.0.1/", title="Account", content=PAGE_ONE)
    recorder.record(
        "browser_snapshot", {}, Answer("ok", "", page), result_text="### Page",
        console_text="", latency=0.1, turn_id=row,
    )  # fmt: skip
    (turn,) = journal.turns(run)
    assert (turn.url, turn.title, turn.snapshot) == ("http://127.0.0.1/", "Account", PAGE_ONE)
    stored = journal.connection.execute(
        "SELECT (SELECT COUNT(*) FROM turns WHERE snapshot IS NOT NULL), "
        "(SELECT COUNT(*) FROM call_records WHERE snapshot = ?)",
        (PAGE_ONE,),
    ).fetchone()
    assert tuple(stored or ()) == (0, 1), "the page is in the journal once"


def test_a_version_4_journal_keeps_its_pages_and_links_new_records(tmp_path: Path) -> None:
    """Version 4 to 5 in place: old turns keep their own copy (no link to guess), new records
    name their turn."""
    path = tmp_path / "journal.sqlite3"
    with Journal(path) as journal:
        run = journal.start_run("demoflix", None, "mcp:alice")
        row = journal.record_intent(run, 1, "mcp:alice", "browser_snapshot", {})
        journal.record_outcome(
            row, outcome="ok", error=None, url="http://127.0.0.1/", title="Old",
            snapshot=PAGE_ONE, latency=0.1, input_tokens=0, output_tokens=0,
        )  # fmt: skip
    with sqlite3.connect(path) as old:
        # Back to version 4 as it was: call_records without the turn link, no step evidence.
        old.executescript(
            "DROP INDEX call_records_by_turn; ALTER TABLE call_records DROP COLUMN turn_id;"
            # Later versions' additions go too: the file is then a version-4 journal.
            "DROP TABLE step_evidence; DROP TABLE checks; ALTER TABLE runs DROP COLUMN ending;"
            "ALTER TABLE turns DROP COLUMN cache_read_tokens;"
            "ALTER TABLE turns DROP COLUMN cache_write_tokens;"
            "ALTER TABLE runs DROP COLUMN cache_read_tokens;"
            "ALTER TABLE runs DROP COLUMN cache_write_tokens;"
            "ALTER TABLE runs DROP COLUMN cost;"
            "PRAGMA user_version=4;"
        )
    with Journal(path) as journal:
        (turn,) = journal.turns(run)
        assert turn.snapshot == PAGE_ONE
        store = CallLogStore(journal)
        store.add(record("r2", PAGE_TWO), run, turn_id=row)
        linked = journal.connection.execute(
            "SELECT turn_id FROM call_records WHERE ref_id='r2'"
        ).fetchone()
        assert linked is not None and linked[0] == row
    with sqlite3.connect(path) as again:
        assert again.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_killed_servers_sessions_are_closed_and_a_live_ones_are_not(journal: Journal) -> None:
    """Open serve runs of a dead process are ended as interrupted; this process's stay open."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    dead_pid = int(gone.stdout)
    mine = journal.start_run("demoflix", None, "mcp:alice")
    killed = journal.start_run("demoflix", None, "mcp:alice")
    cli_run = journal.start_run("demoflix", None, "playbook")
    journal.connection.execute(
        "UPDATE runs SET pid=? WHERE id IN (?, ?)", (dead_pid, killed, cli_run)
    )
    store = store_with(journal, record("r1", PAGE_ONE))
    assert store.close_dead_serve_runs() == [killed]
    ended = journal.run(killed)
    assert ended is not None and ended.reason == "interrupted" and ended.ended_at is not None
    alive = journal.run(mine)
    assert alive is not None and alive.ended_at is None
    # Only serve's runs: a CLI run is the CLI's to take over (close_interrupted).
    cli = journal.run(cli_run)
    assert cli is not None and cli.ended_at is None
    assert CallLogReader(store).content("alice", "r1").content == PAGE_ONE, "history stays"
