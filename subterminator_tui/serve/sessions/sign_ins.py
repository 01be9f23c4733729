"""The operator's sign-in actions on a served session: save its sign-in to a file, load one.

Never an agent tool: nothing in ``tools`` reaches this module (an agent must not be able
to read cookies); only the operator console (``serve --tui``, keys ``s`` and ``l``) and
the command line (``serve --sign-in NAME=FILE``) do. Only the session's service's
domains go in or out (session/saved_sign_in.py's rules); files are written 0600.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from subterminator_tui.browser.sign_in import state_for_domains, write_private_json
from subterminator_tui.errors import ConfigurationError, MCPToolError
from subterminator_tui.serve.errors import (
    ServeConfigurationError,
    ServeInputError,
    SessionBusyError,
    SessionNotFoundError,
)
from subterminator_tui.serve.names import LOCAL_PRINCIPAL
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.session.saved_sign_in import read_sign_in_file


def preload_sign_ins(registry: SessionRegistry, sign_ins: Sequence[tuple[str, Path]]) -> None:
    """``serve --sign-in NAME=FILE``: each preopened session NAME starts from FILE's sign-in.

    Raises ServeConfigurationError for a name no ``--session`` opens, ConfigurationError
    naming a file that is not a sign-in for that session's service.
    """
    for name, path in sign_ins:
        try:
            session = registry.get(LOCAL_PRINCIPAL, name)
        except SessionNotFoundError:
            raise ServeConfigurationError(
                f"--sign-in names session {name!r}, which no --session NAME=SERVICE opens."
            ) from None
        session.lazy.sign_in = read_sign_in_file(path, session.service)


def _claim(session: BrowserSession, what: str) -> None:
    # The session's one slot: an agent's call never runs half under a sign-in change.
    if not session.claim_for(what):
        raise SessionBusyError(
            f"busy: session '{session.key}' is running a call or holds one for you; try "
            "again when it is idle."
        )


def _check_target(path: Path) -> None:
    if path.is_dir() or not path.parent.is_dir():
        raise ServeInputError(f"{path}: name a file in an existing folder.")


async def save_session_sign_in(session: BrowserSession, path: Path) -> int:
    """Write the session's sign-in (its service's cookies and storage) to ``path``; cookies saved.

    Raises ServeInputError when the browser is closed or the path is unusable,
    SessionBusyError while a call runs.
    """
    _check_target(path)
    gateway = session.lazy.gateway
    if gateway is None:
        raise ServeInputError(
            f"Session '{session.key}' has no open browser: its sign-in is in its profile; "
            "save it once the session has made a call."
        )
    _claim(session, "saving its sign-in")
    try:
        state = state_for_domains(await gateway.storage_state(), session.service.allowed_domains)
    finally:
        session.release()
    try:
        await asyncio.to_thread(write_private_json, path, state)
    except OSError as error:
        raise ServeInputError(f"{path}: cannot be written: {error}") from None
    return len(state["cookies"])


async def load_session_sign_in(session: BrowserSession, path: Path) -> int:
    """Add the sign-in saved in ``path`` to the session; cookies loaded.

    An open browser gets it now; a closed one when it starts. Raises ConfigurationError
    naming the file when it is not a sign-in for the session's service.
    """
    state = read_sign_in_file(path, session.service)
    gateway = session.lazy.gateway
    if gateway is None:
        session.lazy.sign_in = state
        return len(state["cookies"])
    _claim(session, "loading a sign-in")
    try:
        await gateway.add_storage_state(state)
        await gateway.keep_sign_in()
    except MCPToolError as error:
        raise ConfigurationError(f"{path}: the browser refused the sign-in: {error}") from None
    finally:
        session.release()
    return len(state["cookies"])
