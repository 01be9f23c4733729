"""The request log as evidence: how the service answered the request an approved step sent.

Page text can say anything; the service's answer to the step's own request cannot.
The verifier asks here, and a receipt lists the same rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from subterminator_tui.journal.request_log import RequestLog, RequestRow
from subterminator_tui.rules.evidence import RequestAnswer


def step_requests(log: RequestLog, run_id: int, step_id: int) -> list[RequestRow]:
    """The requests ``step_id`` sent to the service that change state (gated ones, predicted
    or released, and any other state-changing one sent while it was in flight), in order."""
    return [
        row
        for row in log.requests(run_id)
        if row.step_id == step_id
        and row.kind in ("gated", "state_changing")
        and row.reached_service
    ]


class LoggedAnswers:
    """:class:`~subterminator_tui.rules.evidence.RequestEvidence` over a run's request log."""

    def __init__(
        self,
        log: RequestLog,
        run_id: Callable[[], int | None],
        watching: Callable[[], bool] = lambda: True,
    ) -> None:
        self.log = log
        #: Read when asked: a run has its id only once it has started.
        self.run_id = run_id
        #: Whether the browser's requests are watched now (a remote browser's are not):
        #: a step that logged nothing sent nothing only where every request is seen.
        self.watching = watching

    def reached_service(self, step_id: int | None) -> bool | None:
        """Whether ``step_id`` sent the service anything that changes state (None: unknown)."""
        run = self.run_id()
        if step_id is None or run is None or not self.watching():
            return None
        return bool(step_requests(self.log, run, step_id))

    def unasked(self) -> list[RequestAnswer]:
        """The requests that changed state at the service with nobody asked (no approved
        step in flight, no question about them) and that it answered, in order."""
        run = self.run_id()
        if run is None:
            return []
        return [
            RequestAnswer(row.method, f"{row.host}{row.path}", row.status, _when(row.sent_at))
            for row in self.log.requests(run)
            if row.verdict == "sent" and row.step_id is None and row.status is not None
        ]

    def answer_for(self, step_id: int | None) -> RequestAnswer | None:
        """The service's answer to the step's request; an error answer wins over a success.

        None when the step sent no logged request, or none was answered yet.
        """
        run = self.run_id()
        if step_id is None or run is None:
            return None
        answered = [row for row in step_requests(self.log, run, step_id) if row.status is not None]
        if not answered:
            return None
        failed = [row for row in answered if row.status is not None and row.status >= 400]
        row = failed[0] if failed else answered[-1]
        return RequestAnswer(row.method, row.path, row.status or 0, _when(row.sent_at))


def _when(timestamp: float) -> str:
    """A request's time as the receipt prints it (UTC, to the second)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))
