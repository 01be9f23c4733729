"""Serve mode's call records: one row per served call, its console messages, read cursors.

A record is written once, when the call has its answer, and never changed: the
redacted arguments, the status, Playwright's whole result text, the page as text,
the console messages, the error and the latency. Read cursors (which ref each
caller last read, per session) live here too, so diffs survive a server restart.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import apsw

from subterminator_tui.errors import JournalWriteError
from subterminator_tui.journal.processes import still_running
from subterminator_tui.journal.store import Journal

#: Console levels from the least to the most severe.
CONSOLE_LEVELS = ("debug", "info", "warn", "error")


@dataclass(frozen=True)
class ConsoleMessage:
    """One console message, its level normalised, with where it came from (when known)."""

    level: str
    message: str
    url: str | None = None
    line: int | None = None
    column: int | None = None

    def text(self) -> str:
        """``[LEVEL] message @ url:line:column`` (the location only when known)."""
        where = ""
        if self.url:
            where = f" @ {self.url}"
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
        return f"[{self.level.upper()}] {self.message}{where}"


@dataclass(frozen=True)
class CallRecord:
    """One served call, as the journal keeps it."""

    ref_id: str
    principal: str
    session: str
    tool: str
    arguments: dict[str, Any]
    status: str
    result: str | None
    snapshot: str | None
    url: str | None
    error: str | None
    latency: float
    created_at: float

    @property
    def content(self) -> str:
        """What get_content reads: the page as text, else Playwright's result, else the error."""
        return self.snapshot or self.result or self.error or ""


_RECORD_COLUMNS = (
    "ref_id, principal, session, tool, arguments, status, result, snapshot, url, error, "
    "latency, created_at"
)


class CallRecordStore:
    """The call-record tables of one journal."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self._db = journal.connection

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        try:
            with self._db:
                yield
        except apsw.Error as error:
            raise JournalWriteError(
                f"The journal {self.journal.path} could not record {what} ({error}). Free some "
                "disk space or fix the file's permissions."
            ) from None

    def add(
        self,
        record: CallRecord,
        run_id: int,
        console: tuple[ConsoleMessage, ...] = (),
        *,
        turn_id: int | None = None,
    ) -> None:
        """Write ``record`` and its console messages in one transaction.

        ``turn_id`` is the journal turn this call is: the turn keeps no page of its own
        then, and reads this record's (``Journal.turns``).
        """
        with self._writing("the call record"):
            self._db.execute(
                f"INSERT INTO call_records (run_id, turn_id, {_RECORD_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    turn_id,
                    record.ref_id,
                    record.principal,
                    record.session,
                    record.tool,
                    json.dumps(record.arguments, sort_keys=True),
                    record.status,
                    record.result,
                    record.snapshot,
                    record.url,
                    record.error,
                    record.latency,
                    record.created_at,
                ),
            )
            row_id = self._db.last_insert_rowid()
            self._db.executemany(
                "INSERT INTO console_messages (record_id, level, message, url, line, "
                "column_number) VALUES (?, ?, ?, ?, ?, ?)",
                [(row_id, m.level, m.message, m.url, m.line, m.column) for m in console],
            )

    def get(self, principal: str, ref_id: str) -> CallRecord | None:
        """``principal``'s record ``ref_id``; None when there is none (or it is another's)."""
        row = self._db.execute(
            f"SELECT {_RECORD_COLUMNS} FROM call_records WHERE ref_id=? AND principal=?",
            (ref_id, principal),
        ).fetchone()
        if row is None:
            return None
        values = list(row)
        values[4] = json.loads(str(values[4]))
        return CallRecord(*values)

    def console(self, ref_id: str) -> list[ConsoleMessage]:
        """The console messages recorded with ``ref_id``, in order."""
        rows = self._db.execute(
            "SELECT m.level, m.message, m.url, m.line, m.column_number FROM console_messages m "
            "JOIN call_records r ON r.id = m.record_id WHERE r.ref_id=? ORDER BY m.id",
            (ref_id,),
        ).fetchall()
        return [ConsoleMessage(*row) for row in rows]  # type: ignore[arg-type]

    def cursor(self, principal: str, session: str) -> str | None:
        """The ref ``principal`` last read in ``session``, or None before its first read."""
        row = self._db.execute(
            "SELECT ref_id FROM read_cursors WHERE principal=? AND session=?",
            (principal, session),
        ).fetchone()
        return str(row[0]) if row else None

    def move_cursor(self, principal: str, session: str, ref_id: str) -> None:
        """Remember that ``principal`` has now read ``ref_id`` in ``session``."""
        with self._writing("the read cursor"):
            self._db.execute(
                "INSERT INTO read_cursors (principal, session, ref_id, read_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (principal, session) DO UPDATE SET "
                "ref_id=excluded.ref_id, read_at=excluded.read_at",
                (principal, session, ref_id, time.time()),
            )

    def close_dead_serve_runs(self) -> list[int]:
        """End the served sessions' runs whose server was killed; their history stays.

        A served session's run carries its server's pid; a run still open whose process
        is gone (SIGKILL, a crash) is marked closed, so nothing reads it as live.
        """
        rows = self._db.execute(
            "SELECT id, pid, pid_started FROM runs WHERE ended_at IS NULL AND pilot LIKE 'mcp:%'"
        ).fetchall()
        dead = [int(r[0]) for r in rows if not still_running(r[1], r[2])]  # type: ignore[arg-type]
        with self._writing("the end of a killed server's sessions"):
            for run_id in dead:
                self._db.execute(
                    "UPDATE runs SET ended_at=?, reason='interrupted', success=0, verified=0, "
                    "message='The server stopped without closing this session (killed or "
                    "crashed); it is closed.' WHERE id=? AND ended_at IS NULL",
                    (time.time(), run_id),
                )
        return dead
