"""Who decides whether, and when, a gateway whose server died may restart it.

Without a gate (``cancel``) a gateway restarts once, at once: a run has one person
watching and a second crash ends it. A long-lived server (``serve``) gives each
session's gateway a gate that applies the session's restart policy (backoff, a
limit per time window; serve/restarts.py), the same one its health watch uses.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol


class RestartGate(Protocol):
    """Lets a restart happen: ``async with gate.restarting(why):`` runs it, counted.

    Entering may wait (a backoff) or raise BrowserUnavailableError (no restart now).
    """

    def restarting(self, why: str) -> AbstractAsyncContextManager[None]:
        """The context the restart runs in."""
        ...
