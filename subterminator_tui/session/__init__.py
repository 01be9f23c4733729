"""The core session layer: what every front end calls to set up and run a cancellation.

A :class:`RunRequest` is checked (:func:`check_request`) before anything starts;
:func:`prepared_run` opens the journal and the service's browser (and its practice
site); :meth:`PreparedRun.run` builds the pilot, the guard and the loop and drives it.
:class:`CancelSession` packages the three for a front end that only supplies a gate
and a reporter. Nothing here imports a front end.

- ``request``       what a person asks for, and the checks before anything starts
- ``places``        where a profile and a practice site may be (serve checks with it too)
- ``pilot``         the pilot a request asks for: playbook, AI, or both
- ``browser``       the guarded browser for one service (its practice site first)
- ``cancel_run``    a cancellation run from request to result (``CancelSession``)
- ``check``         a later look at an account page: still cancelled?
- ``record``        a verified run's journal turns become the service's playbook
- ``saved_sign_in`` one service's sign-in in a file the person owns
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
