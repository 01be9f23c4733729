"""The core session layer: what every front end calls to set up and run a cancellation.

A :class:`RunRequest` is checked (:func:`check_request`) before anything starts;
:func:`prepared_run` opens the journal and the service's browser (and its practice
site); :meth:`PreparedRun.run` builds the pilot, the guard and the loop and drives it.
:class:`CancelSession` packages the three for a front end that only supplies a gate
and a reporter. Nothing here imports a front end.
"""

from subterminator_tui.session.browser import ServiceBrowser, open_service_browser
from subterminator_tui.session.cancel_run import (
    CancelSession,
    PreparedRun,
    RunSession,
    prepared_run,
)
from subterminator_tui.session.pilot import ENABLE_AI_HINT, build_pilot
from subterminator_tui.session.request import CheckedRequest, RunRequest, check_request

__all__ = [
    "ENABLE_AI_HINT",
    "CancelSession",
    "CheckedRequest",
    "PreparedRun",
    "RunRequest",
    "RunSession",
    "ServiceBrowser",
    "build_pilot",
    "check_request",
    "open_service_browser",
    "prepared_run",
]
