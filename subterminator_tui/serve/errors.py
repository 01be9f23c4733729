"""What a tool call can fail with, besides the browser's own errors; each says what to do next."""

from __future__ import annotations

from subterminator_tui import exit_codes
from subterminator_tui.errors import SubTerminatorError


class ServeError(SubTerminatorError):
    """A tool call the server refuses before anything reaches the browser."""


class ServeInputError(ServeError):
    """A bad argument: an invalid name, an unknown service, a domain outside the service's."""


class SessionNotFoundError(ServeError):
    """No such session for this principal (another principal's sessions are not visible)."""


class SessionBusyError(ServeError):
    """The session already has a call in flight, or a call waiting for approval."""


class SessionLimitError(ServeError):
    """The machine or the principal holds as many sessions as allowed."""


class ApprovalNotFoundError(ServeError):
    """No such approval for this principal."""


class ServeConfigurationError(SubTerminatorError):
    """The server cannot start as asked: an unsafe bind, a bad tokens file, a missing terminal."""

    exit_code = exit_codes.CONFIGURATION
