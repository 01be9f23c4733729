"""The error taxonomy: every message tells the user what to do next."""

from __future__ import annotations

import math

from subterminator_tui import exit_codes


class SubTerminatorError(Exception):
    """Base for every error SubTerminator raises on purpose."""

    #: The process exit code this error maps to (documented in the README).
    exit_code = exit_codes.FAILURE


class ConfigurationError(SubTerminatorError):
    """Something the user must install, set or fix before a run can start."""

    exit_code = exit_codes.CONFIGURATION


class ServiceConfigError(ConfigurationError):
    """A ``services.toml`` file is invalid; the message names the file, service and key."""


class ServiceNotFoundError(ConfigurationError):
    """The requested service is not defined in any loaded ``services.toml``."""

    def __init__(self, name: str, available: list[str], practice: list[str] | None = None) -> None:
        self.name = name
        self.available = sorted(available)
        self.practice = sorted(practice or [])
        message = f"Unknown service '{name}'. Services: {', '.join(self.available) or '(none)'}."
        if self.practice:
            message += f" Practice services: {', '.join(self.practice)}."
        super().__init__(message)


class JournalError(ConfigurationError):
    """The journal cannot be opened or read: the message names the file and what to do."""


class JournalWriteError(SubTerminatorError):
    """A journal write failed mid-run (disk full, I/O error): nothing more is dispatched."""

    exit_code = exit_codes.CONFIGURATION


class MCPConnectionError(SubTerminatorError):
    """The Playwright MCP server could not be started, reached or kept alive."""

    exit_code = exit_codes.CONNECTION
    #: Whether a call in flight may have reached the browser. False when the server was
    #: found stopped before the call left: an approved step then never counts as sent.
    may_have_run: bool = True


class BrowserUnavailableError(MCPConnectionError):
    """The browser stopped and may not be restarted now: a restart is under way, or too many
    happened lately (serve's ``degraded``). Nothing is retried for the caller.

    ``facts()`` is the same as data a program can act on: the state, the whole seconds
    until a call may work again (``retry_after``) and the session.
    """

    def __init__(
        self, message: str, *, state: str, retry_after: float, session: str | None = None
    ) -> None:
        super().__init__(message)
        self.state = state
        self.retry_after = retry_after
        self.session = session

    def facts(self) -> dict[str, str | int | None]:
        """``{"error": state, "retry_after": whole seconds (rounded up), "session": name}``."""
        return {
            "error": self.state,
            "retry_after": math.ceil(self.retry_after),
            "session": self.session,
        }


class ProfileInUseError(MCPConnectionError):
    """Another live browser holds the persistent profile directory."""

    def __init__(self, profile_dir: str, holder: str) -> None:
        self.profile_dir = profile_dir
        self.holder = holder
        super().__init__(
            f"The browser profile {profile_dir} is in use by {holder}. "
            "Close that browser (or pass --profile-dir with another directory) and try again."
        )


class MCPToolError(SubTerminatorError):
    """A browser tool call was refused or failed; the loop reports it to the model.

    ``snapshot`` carries the fresh page taken after the failure, when there is
    one, so a stale ref is answered with the page as it is now.
    """

    def __init__(self, message: str, snapshot: object | None = None) -> None:
        super().__init__(message)
        self.snapshot = snapshot


class CallNotSentError(MCPToolError):
    """The browser was found stopped before the call went out and was restarted instead:
    the call did not run (an approved step stays unsent, and is asked again if tried)."""


class OutcomeUnknownError(MCPToolError):
    """A call was sent and no answer came (the server hung or died): it may have run.

    The loop never asks the pilot to repeat such a call when it was irreversible;
    it looks at the page instead.
    """


class SnapshotValidationError(SubTerminatorError):
    """Playwright MCP output lacked a required snapshot field (url or content)."""

    exit_code = exit_codes.CONNECTION

    def __init__(self, missing: list[str], raw_output: str) -> None:
        self.missing = missing
        self.raw_output = raw_output
        excerpt = raw_output[:400] + ("..." if len(raw_output) > 400 else "")
        super().__init__(
            f"Playwright MCP output has no {', '.join(missing)}; "
            f"the pinned @playwright/mcp may have changed its format. Output began: {excerpt!r}"
        )


class LLMError(SubTerminatorError):
    """The model API failed after retries or timed out."""

    exit_code = exit_codes.CONNECTION
