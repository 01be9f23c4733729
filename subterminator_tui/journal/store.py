"""The journal: every run and every turn in one SQLite database.

A turn's row is written before dispatch (the intent: tool and arguments) and
completed after (outcome, page, latency, tokens), so a crash mid-action
leaves a record of what was about to happen. What a person types during a
hand-off never reaches this file: hand-offs are not turns, and every
snapshot is scrubbed before it gets here.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subterminator_tui.orchestrator.result import TaskResult

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    model TEXT,
    pilot TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    success INTEGER,
    verified INTEGER,
    reason TEXT,
    turns INTEGER,
    final_url TEXT,
    error TEXT,
    message TEXT,
    model_calls INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER
);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    turn INTEGER NOT NULL,
    pilot TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    outcome TEXT,
    error TEXT,
    url TEXT,
    title TEXT,
    snapshot TEXT,
    latency REAL,
    input_tokens INTEGER,
    output_tokens INTEGER
);
CREATE INDEX IF NOT EXISTS turns_by_run ON turns(run_id, turn);
"""


@dataclass(frozen=True)
class RunRow:
    """One run as the journal recorded it."""

    id: int
    service: str
    model: str | None
    pilot: str
    started_at: float
    ended_at: float | None
    success: bool | None
    verified: bool | None
    reason: str | None
    turns: int | None
    final_url: str | None
    error: str | None
    message: str | None
    input_tokens: int | None
    output_tokens: int | None


@dataclass(frozen=True)
class TurnRow:
    """One turn as the journal recorded it."""

    turn: int
    pilot: str
    tool: str
    arguments: dict[str, Any]
    outcome: str | None
    error: str | None
    url: str | None
    title: str | None
    snapshot: str | None
    latency: float | None
    input_tokens: int | None
    output_tokens: int | None


class Journal:
    """One connection to the journal database (WAL, synchronous=FULL)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start_run(self, service: str, model: str | None, pilot: str) -> int:
        """A new run row; returns its id."""
        cursor = self._db.execute(
            "INSERT INTO runs (service, model, pilot, started_at) VALUES (?, ?, ?, ?)",
            (service, model, pilot, time.time()),
        )
        return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, result: TaskResult, *, model: str | None, pilot: str) -> None:
        """Record how the run ended."""
        self._db.execute(
            """UPDATE runs SET ended_at=?, success=?, verified=?, reason=?, turns=?, final_url=?,
               error=?, message=?, model_calls=?, input_tokens=?, output_tokens=?, model=?, pilot=?
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
                run_id,
            ),
        )

    def record_intent(
        self, run_id: int, turn: int, pilot: str, tool: str, arguments: dict[str, Any]
    ) -> int:
        """Before dispatch: what is about to happen. Returns the turn row's id."""
        cursor = self._db.execute(
            "INSERT INTO turns (run_id, turn, pilot, tool, arguments, started_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, turn, pilot, tool, json.dumps(arguments, sort_keys=True), time.time()),
        )
        return int(cursor.lastrowid or 0)

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
    ) -> None:
        """After dispatch: what happened."""
        self._db.execute(
            """UPDATE turns SET ended_at=?, outcome=?, error=?, url=?, title=?, snapshot=?,
               latency=?, input_tokens=?, output_tokens=? WHERE id=?""",
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
                turn_id,
            ),
        )

    def recent_runs(self, limit: int = 20) -> list[RunRow]:
        """The newest runs first."""
        rows = self._db.execute(
            """SELECT id, service, model, pilot, started_at, ended_at, success, verified, reason,
               turns, final_url, error, message, input_tokens, output_tokens
               FROM runs ORDER BY id DESC LIMIT ?""",
            (limit,),
        ).fetchall()
        return [_run_row(row) for row in rows]

    def run(self, run_id: int) -> RunRow | None:
        """One run, or None."""
        row = self._db.execute(
            """SELECT id, service, model, pilot, started_at, ended_at, success, verified, reason,
               turns, final_url, error, message, input_tokens, output_tokens
               FROM runs WHERE id=?""",
            (run_id,),
        ).fetchone()
        return _run_row(row) if row else None

    def turns(self, run_id: int) -> list[TurnRow]:
        """A run's turns in order."""
        rows = self._db.execute(
            """SELECT turn, pilot, tool, arguments, outcome, error, url, title, snapshot, latency,
               input_tokens, output_tokens FROM turns WHERE run_id=? ORDER BY turn, id""",
            (run_id,),
        ).fetchall()
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
            )
            for row in rows
        ]


def _run_row(row: tuple[Any, ...]) -> RunRow:
    return RunRow(
        id=row[0],
        service=row[1],
        model=row[2],
        pilot=row[3],
        started_at=row[4],
        ended_at=row[5],
        success=None if row[6] is None else bool(row[6]),
        verified=None if row[7] is None else bool(row[7]),
        reason=row[8],
        turns=row[9],
        final_url=row[10],
        error=row[11],
        message=row[12],
        input_tokens=row[13],
        output_tokens=row[14],
    )
