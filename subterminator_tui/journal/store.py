"""The journal: every run, turn and irreversible step in one SQLite database.

A turn's row is written before dispatch (the intent: tool and arguments) and
completed after (outcome, page, latency, tokens), so a crash mid-action
leaves a record of what was about to happen. An irreversible step's facts (the
question, the person's decision, the dispatch, the outcome) are each written,
durably, when they happen. What a person types never reaches this file:
hand-offs are not turns, guidance is recorded as a decision only, and every
snapshot is scrubbed before it gets here.

The class is built in layers: the connection (connection.py), an irreversible step's
facts (steps.py), and here the runs, turns and checks.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from typing import TYPE_CHECKING, Any

from subterminator_tui.journal.processes import process_started, still_running
from subterminator_tui.journal.rows import (
    CheckRow,
    EventKind,
    EventRow,
    RunRow,
    StepEvidenceRow,
    StepRow,
    StepState,
    TurnRow,
    run_row,
)
from subterminator_tui.journal.steps import StepRecords
from subterminator_tui.results import TaskResult

if TYPE_CHECKING:
    from subterminator_tui.journal.request_log import RequestRow

__all__ = [
    "CheckRow",
    "EventRow",
    "Journal",
    "RunRow",
    "StepEvidenceRow",
    "StepRow",
    "StepState",
    "TurnRow",
]

#: A run's columns; a run that never finished counts its turns from the turn rows.
_RUN_COLUMNS = (
    "id, service, model, pilot, started_at, ended_at, success, verified, reason, "
    "COALESCE(turns, (SELECT COUNT(DISTINCT t.turn) FROM turns t WHERE t.run_id = runs.id)), "
    "final_url, error, message, input_tokens, output_tokens, start_url, verified_by, ending, "
    "cache_read_tokens, cache_write_tokens, cost"
)


class Journal(StepRecords):
    """The journal: one connection to its database (WAL, synchronous=FULL, a current SQLite).

    Opening problems are JournalError (exit 2) naming the file and what to do; a
    failed write during a run is JournalWriteError, after which nothing more is sent
    to the browser.
    """

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

    def requests(self, run_id: int) -> list[RequestRow]:
        """The run's request log: each state-changing or gated request, its verdict and the
        service's status (request_log.py)."""
        from subterminator_tui.journal.request_log import RequestLog  # it builds on Journal

        return RequestLog(self).requests(run_id)

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

    def record_event(self, run_id: int, kind: EventKind, detail: str) -> int:
        """Keep one event of ``run_id`` (a guard miss), written when it is known."""
        return self._insert(
            "the run's event",
            "INSERT INTO run_events (run_id, at, kind, detail) VALUES (?, ?, ?, ?)",
            (run_id, time.time(), kind, detail),
        )

    def events(self, run_id: int) -> list[EventRow]:
        """A run's events, oldest first."""
        rows = self._select(
            "SELECT id, run_id, at, kind, detail FROM run_events WHERE run_id=? ORDER BY id",
            (run_id,),
        )
        return [EventRow(*row) for row in rows]

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
