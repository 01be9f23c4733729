"""The request log: every request that changed, or could change, something at the service.

The browser's own requests are the evidence of what a run did: a form that was
submitted, a ``fetch`` POST, a navigation to a gated URL. Each one the request
gate saw as state-changing or gated is written here before it is sent, with the
gate's verdict, the checkpoint step that asked about it (if one did) and,
afterwards, the service's HTTP status. Field names are kept, values never (they
may be what a person typed). Verification and receipts read it through
:meth:`RequestLog.requests` (also ``Journal.requests``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Literal

from subterminator_tui.journal.store import Journal

#: ``gated``: names an irreversible or money-moving step; ``state_changing``: any other
#: method than GET/HEAD/OPTIONS.
RequestKind = Literal["gated", "state_changing"]
#: ``sent``: went out; ``approved``: held, then released by a person; ``predicted``: the
#: call a person had approved sent it; ``failed``: held and refused (or unanswered), or
#: refused outright; never sent.
RequestVerdict = Literal["sent", "approved", "predicted", "failed"]


@dataclass(frozen=True)
class RequestRow:
    """One logged request, as the service received it (or would have)."""

    id: int
    turn: int
    sent_at: float
    kind: RequestKind
    method: str
    host: str
    #: The path only: queries may carry what a person typed.
    path: str
    resource_type: str
    #: The decoded names of the body's fields (form fields, JSON keys), never their values.
    fields: tuple[str, ...]
    verdict: RequestVerdict
    #: The checkpoint step that asked about it, when one did.
    step_id: int | None
    #: The service's HTTP status; None before it answered, or when nothing was sent.
    status: int | None

    @property
    def reached_service(self) -> bool:
        """Whether the request left the browser (failed ones never did)."""
        return self.verdict != "failed"


class RequestLog:
    """The request table of one journal."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def add(
        self,
        run_id: int,
        turn: int,
        *,
        kind: RequestKind,
        method: str,
        host: str,
        path: str,
        resource_type: str,
        fields: tuple[str, ...],
        verdict: RequestVerdict,
        step_id: int | None = None,
    ) -> int:
        """Write a request before it is sent (or as it is failed); its row id."""
        with self.journal._writing("a request to the service"):
            self.journal.connection.execute(
                "INSERT INTO requests (run_id, turn, sent_at, kind, method, host, path, "
                "resource_type, fields, verdict, step_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    turn,
                    time.time(),
                    kind,
                    method,
                    host,
                    path,
                    resource_type,
                    json.dumps(list(fields)),
                    verdict,
                    step_id,
                ),
            )
            return int(self.journal.connection.last_insert_rowid())

    def answered(self, row: int, status: int | None) -> None:
        """The service's answer to request ``row`` (None: the network failed it)."""
        with self.journal._writing("the service's answer to a request"):
            self.journal.connection.execute(
                "UPDATE requests SET status=?, answered_at=? WHERE id=?",
                (status, time.time(), row),
            )

    def requests(self, run_id: int) -> list[RequestRow]:
        """Every logged request of ``run_id``, in the order they were seen."""
        rows = self.journal.connection.execute(
            "SELECT id, turn, sent_at, kind, method, host, path, resource_type, fields, verdict, "
            "step_id, status FROM requests WHERE run_id=? ORDER BY id",
            (run_id,),
        ).fetchall()
        return [
            RequestRow(
                id=int(row[0]),  # type: ignore[arg-type]
                turn=int(row[1]),  # type: ignore[arg-type]
                sent_at=float(row[2]),  # type: ignore[arg-type]
                kind=str(row[3]),  # type: ignore[arg-type]
                method=str(row[4]),
                host=str(row[5]),
                path=str(row[6]),
                resource_type=str(row[7]),
                fields=tuple(json.loads(str(row[8]))),
                verdict=str(row[9]),  # type: ignore[arg-type]
                step_id=int(row[10]) if row[10] is not None else None,
                status=int(row[11]) if row[11] is not None else None,
            )
            for row in rows
        ]
