"""The journal: every run, turn and irreversible step in one SQLite database.

A turn's row is written before dispatch (the intent: tool and arguments) and
completed after (outcome, page, latency, tokens), so a crash mid-action
leaves a record of what was about to happen. An irreversible step's facts (the
question, the person's decision, the dispatch, the outcome) are each written,
durably, when they happen. What a person types never reaches this file:
hand-offs are not turns, guidance is recorded as a decision only, and every
snapshot is scrubbed before it gets here.

The database is opened with apsw, which bundles a current SQLite: the system's
3.40 is inside the range of SQLite's WAL-reset bug (3.7.0-3.51.2), whose conditions
(two connections to one WAL database, as a run and ``runs`` have) arise here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from subterminator_tui.errors import JournalError, JournalWriteError
from subterminator_tui.journal.processes import process_started, still_running
from subterminator_tui.journal.rows import (
    CheckRow,
    RunRow,
    StepEvidenceRow,
    StepRow,
    StepState,
    TurnRow,
    run_row,
)

__all__ = ["CheckRow", "Journal", "RunRow", "StepEvidenceRow", "StepRow", "StepState", "TurnRow"]
from subterminator_tui.journal.schema import migrate
from subterminator_tui.results import TaskResult

if TYPE_CHECKING:
    from subterminator_tui.journal.request_log import RequestRow

#: A run's columns; a run that never finished counts its turns from the turn rows.
_RUN_COLUMNS = (
    "id, service, model, pilot, started_at, ended_at, success, verified, reason, "
    "COALESCE(turns, (SELECT COUNT(DISTINCT t.turn) FROM turns t WHERE t.run_id = runs.id)), "
    "final_url, error, message, input_tokens, output_tokens, start_url, verified_by, ending, "
    "cache_read_tokens, cache_write_tokens, cost"
)
#: Milliseconds a writer waits for another process's lock before it counts as a failure.
_BUSY_MS = 5_000


class Journal:
    """One connection to the journal database (WAL, synchronous=FULL, a current SQLite).

    Opening problems are JournalError (exit 2) naming the file and what to do; a
    failed write during a run is JournalWriteError, after which nothing more is sent
    to the browser.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise JournalError(
                f"Cannot create the journal's folder {path.parent}: {error.strerror or error}. "
                "Point SUBTERMINATOR_JOURNAL at a file in a folder you can write."
            ) from None
        if path.is_dir():
            raise JournalError(f"The journal path {path} is a folder; name a file instead.")
        try:
            self._db = apsw.Connection(str(path))
            self._db.set_busy_timeout(_BUSY_MS)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            migrate(self._db, str(path))
        except (apsw.NotADBError, apsw.CorruptError) as error:
            raise JournalError(
                f"The journal {path} is damaged or not a SubTerminator journal ({error}). Move "
                "it aside (e.g. mv it to journal.sqlite3.broken) and run again; a new one is made."
            ) from None
        except (apsw.ReadOnlyError, apsw.CantOpenError, apsw.PermissionsError) as error:
            raise JournalError(
                f"Cannot write the journal {path} ({error}). Make it and its folder writable, "
                "or point SUBTERMINATOR_JOURNAL at another file."
            ) from None
        except apsw.Error as error:
            raise JournalError(f"Cannot open the journal {path}: {error}.") from None

    @property
    def connection(self) -> apsw.Connection:
        """The open connection, for the journal's other tables (call_records.py)."""
        return self._db

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        try:
            yield
        except apsw.Error as error:
            raise JournalWriteError(
                f"The journal {self.path} could not record {what} ({error}); nothing more was "
                "sent to the browser. Free some disk space or fix the file's permissions."
            ) from None

    def _select(self, sql: str, values: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Rows as plain tuples (apsw's own row types are narrower than the columns)."""
        return [tuple(row) for row in self._db.execute(sql, values).fetchall()]

    def _insert(self, what: str, sql: str, values: tuple[Any, ...]) -> int:
        with self._writing(what):
            self._db.execute(sql, values)
            return int(self._db.last_insert_rowid())

    def _update(self, what: str, sql: str, values: tuple[Any, ...]) -> None:
        with self._writing(what):
            self._db.execute(sql, values)

    def start_run(
        self, service: str, model: str | None, pilot: str, *, start_url: str | None = None
    ) -> int:
        """A new run row, with the process running it; returns its id."""
        pid = os.getpid()
        return self._insert(
            "the start of the run",
            "INSERT INTO runs (service, model, pilot, started_at, pid, pid_started, start_url) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (service, model, pilot, time.time(), pid, process_started(pid), start_url),
        )

    def finish_run(self, run_id: int, result: TaskResult, *, model: str | None, pilot: str) -> None:
        """Record how the run ended."""
        self._update(
            "the end of the run",
            """UPDATE runs SET ended_at=?, success=?, verified=?, reason=?, turns=?, final_url=?,
               error=?, message=?, model_calls=?, input_tokens=?, output_tokens=?, model=?, pilot=?,
               verified_by=?, ending=?, cache_read_tokens=?, cache_write_tokens=?, cost=?
               WHERE id=?""",
            (
                time.time(),
                int(result.success),
                int(result.verified),
                result.reason,
                result.turns,
                result.final_url,
                result.error,
                result.message,
                result.model_calls,
                result.input_tokens,
                result.output_tokens,
                model,
                pilot,
                result.verified_by,
                json.dumps(dataclasses.asdict(result.ending)) if result.ending else None,
                result.cache_read_tokens,
                result.cache_write_tokens,
                result.cost,
                run_id,
            ),
        )

    def record_intent(
        self,
        run_id: int,
        turn: int,
        pilot: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        target: tuple[str, str] | None = None,
    ) -> int:
        """Before dispatch: what is about to happen, and the ``(role, name)`` of the element it
        acts on as the page shows it. Returns the turn row's id."""
        role, name = target if target is not None else (None, None)
        return self._insert(
            "the intended call",
            "INSERT INTO turns (run_id, turn, pilot, tool, arguments, started_at, target_role, "
            "target_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                turn,
                pilot,
                tool,
                json.dumps(arguments, sort_keys=True),
                time.time(),
                role,
                name,
            ),
        )

    def record_outcome(
        self,
        turn_id: int,
        *,
        outcome: str,
        error: str | None,
        url: str | None,
        title: str | None,
        snapshot: str | None,
        latency: float,
        input_tokens: int,
        output_tokens: int,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
    ) -> None:
        """After dispatch: what happened, and the tokens of the model call that proposed it."""
        self._update(
            "the call's outcome",
            """UPDATE turns SET ended_at=?, outcome=?, error=?, url=?, title=?, snapshot=?,
               latency=?, input_tokens=?, output_tokens=?, cache_read_tokens=?,
               cache_write_tokens=? WHERE id=?""",
            (
                time.time(),
                outcome,
                error,
                url,
                title,
                snapshot,
                latency,
                input_tokens,
                output_tokens,
                cache_read_tokens,
                cache_write_tokens,
                turn_id,
            ),
        )

    # --- an irreversible step, fact by fact -----------------------------------------------

    def record_question(self, run_id: int, turn: int, why: str, action: str, url: str) -> int:
        """The person is about to be asked before an irreversible step; returns the step's id."""
        return self._insert(
            "the checkpoint question",
            "INSERT INTO steps (run_id, turn, asked_at, why, action, url) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, turn, time.time(), why, action, url),
        )

    def record_decision(self, step_id: int, verdict: str) -> None:
        """approve, reject or guidance: the decision only, never what the person typed."""
        self._update(
            "your decision",
            "UPDATE steps SET decision=?, decided_at=? WHERE id=?",
            (verdict, time.time(), step_id),
        )

    def record_dispatch(self, step_id: int) -> None:
        """The approved step is being sent to the browser, now (written first)."""
        self._update(
            "the dispatch", "UPDATE steps SET dispatched_at=? WHERE id=?", (time.time(), step_id)
        )

    def record_step_outcome(self, step_id: int, outcome: str) -> None:
        """done, failed or unknown: what became of the dispatched step."""
        self._update(
            "the step's outcome",
            "UPDATE steps SET outcome=?, finished_at=? WHERE id=?",
            (outcome, time.time(), step_id),
        )

    def requests(self, run_id: int) -> list[RequestRow]:
        """The run's request log: each state-changing or gated request, its verdict and the
        service's status (request_log.py)."""
        from subterminator_tui.journal.request_log import RequestLog  # it builds on Journal

        return RequestLog(self).requests(run_id)

    def record_step_before(self, step_id: int, approved_by: str, screenshot: str | None) -> None:
        """Who approved ``step_id`` and the screenshot they approved it on."""
        self._insert(
            "the step's approval evidence",
            "INSERT OR REPLACE INTO step_evidence (step_id, approved_by, before_screenshot) "
            "VALUES (?, ?, ?)",
            (step_id, approved_by, screenshot),
        )

    def record_step_after(self, step_id: int, screenshot: str | None, text: str | None) -> None:
        """The screenshot and the text a person saw after ``step_id`` went out (scrubbed)."""
        self._update(
            "the step's evidence after it",
            "UPDATE step_evidence SET after_screenshot=?, after_text=? WHERE step_id=?",
            (screenshot, text, step_id),
        )

    def step_evidence(self, run_id: int) -> dict[int, StepEvidenceRow]:
        """The evidence of a run's approved steps, by step id."""
        rows = self._select(
            "SELECT e.step_id, e.approved_by, e.before_screenshot, e.after_screenshot, "
            "e.after_text FROM step_evidence e JOIN steps s ON s.id = e.step_id "
            "WHERE s.run_id=? ORDER BY e.step_id",
            (run_id,),
        )
        return {row[0]: StepEvidenceRow(*row) for row in rows}

    def steps(self, run_id: int) -> list[StepRow]:
        """A run's irreversible steps in order, each with its state."""
        rows = self._select(
            "SELECT id, turn, why, action, url, decision, dispatched_at, outcome FROM steps "
            "WHERE run_id=? ORDER BY id",
            (run_id,),
        )
        return [StepRow(*row) for row in rows]

    def interrupted_runs(self, service: str) -> list[RunRow]:
        """Unfinished runs of ``service`` whose process is gone (killed, crashed), newest first."""
        rows = self._select(
            f"SELECT {_RUN_COLUMNS}, pid, pid_started FROM runs "
            "WHERE service=? AND ended_at IS NULL ORDER BY id DESC",
            (service,),
        )
        return [run_row(row[:-2]) for row in rows if not still_running(row[-2], row[-1])]

    def close_interrupted(self, run_id: int, by_run: int) -> None:
        """Mark an interrupted run as ended: its history stays, a later run took over."""
        self._update(
            "the interrupted run's end",
            "UPDATE runs SET ended_at=?, reason='interrupted', success=0, verified=0, "
            "message=? WHERE id=? AND ended_at IS NULL",
            (time.time(), f"The process stopped mid-run; run {by_run} took over.", run_id),
        )

    def recent_runs(self, limit: int = 20) -> list[RunRow]:
        """The newest runs first."""
        rows = self._select(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT ?", (limit,))
        return [run_row(row) for row in rows]

    def run(self, run_id: int) -> RunRow | None:
        """One run, or None."""
        rows = self._select(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id=?", (run_id,))
        return run_row(rows[0]) if rows else None

    def record_check(
        self, service: str, run_id: int | None, state: str, url: str | None, why: str
    ) -> int:
        """Keep one look at ``service``'s account page beside the run it re-reads."""
        return self._insert(
            "the check of the account page",
            "INSERT INTO checks (service, run_id, checked_at, state, url, why) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (service, run_id, time.time(), state, url, why),
        )

    def checks(self, service: str) -> list[CheckRow]:
        """Every check of ``service``, oldest first."""
        rows = self._select(
            "SELECT id, service, run_id, checked_at, state, url, why FROM checks "
            "WHERE service=? ORDER BY id",
            (service,),
        )
        return [CheckRow(*row) for row in rows]

    def last_finished_run(self, service: str) -> RunRow | None:
        """The newest run of ``service`` that ended (however it ended), or None."""
        rows = self._select(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE service=? AND ended_at IS NOT NULL "
            "ORDER BY id DESC LIMIT 1",
            (service,),
        )
        return run_row(rows[0]) if rows else None

    def turns(self, run_id: int) -> list[TurnRow]:
        """A run's turns in order."""
        # A served call's page is kept once, in its call record (schema version 5).
        rows = self._select(
            """SELECT turn, pilot, tool, arguments, outcome, error, url, title,
               COALESCE(snapshot, (SELECT c.snapshot FROM call_records c
                                   WHERE c.turn_id = turns.id ORDER BY c.id LIMIT 1)),
               latency, input_tokens, output_tokens, target_role, target_name,
               cache_read_tokens, cache_write_tokens
               FROM turns WHERE run_id=? ORDER BY turn, id""",
            (run_id,),
        )
        return [
            TurnRow(
                turn=row[0],
                pilot=row[1],
                tool=row[2],
                arguments=json.loads(row[3]),
                outcome=row[4],
                error=row[5],
                url=row[6],
                title=row[7],
                snapshot=row[8],
                latency=row[9],
                input_tokens=row[10],
                output_tokens=row[11],
                target_role=row[12],
                target_name=row[13],
                cache_read_tokens=row[14],
                cache_write_tokens=row[15],
            )
            for row in rows
        ]
