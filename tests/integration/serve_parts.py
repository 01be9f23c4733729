"""Shared parts of the serve tests: a registry on a private home, a local site, a walk."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from subterminator_tui.browser.processes import ProcessInfo, process_table
from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.settings import load_settings
from tests.support.polling import last_polled


@asynccontextmanager
async def serve_registry(
    tmp_path: Path, practice_url: str | None, services: tuple[Path, ...] = (), **limits: float
) -> AsyncIterator[SessionRegistry]:
    """A registry like the server's, with a private profile root and journal; no browser left."""
    config = ServeConfig(
        settings=load_settings(journal=tmp_path / "journal.sqlite3"),
        profile_root=tmp_path / "profiles",
        runs_root=tmp_path / "runs",
        practice_url=practice_url,
        practice=True,
        services=services,
        **limits,  # type: ignore[arg-type]
    )
    with Journal(tmp_path / "journal.sqlite3") as journal:
        registry = SessionRegistry(config, journal, ApprovalDesk())
        try:
            yield registry
        finally:
            await registry.close_all()
    assert wait_until_none_under(tmp_path / "profiles") == []


def processes_under(root: Path) -> list[ProcessInfo]:
    """Live processes (Node, Chromium) whose command line names a folder under ``root``."""
    return [proc for proc in process_table() if proc.alive and str(root) + "/" in proc.cmdline]


#: The demoflix flow up to the irreversible step: (role, name) clicked in order.
WALK_TO_FINISH = (
    ("button", "Cancel membership"),
    ("radio", "Too expensive"),
    ("button", "Continue"),
    ("button", "Continue to cancel"),
)


def wait_until_none_under(root: Path, timeout: float = 10.0) -> list[ProcessInfo]:
    """Processes still under ``root`` after up to ``timeout`` seconds (empty is good).

    Polling, because nothing signals the exit of processes another program started.
    """
    return last_polled(lambda: processes_under(root), lambda left: not left, timeout)


@contextmanager
def local_service(
    tmp_path: Path, handler: type[BaseHTTPRequestHandler], rules: str = ""
) -> Iterator[Path]:
    """A site ``handler`` serves on this computer, and a services file for it: service
    ``local``, its origin only, starting at /account, plus ``rules``; stopped after."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_port}"
    services = tmp_path / "services.toml"
    services.write_text(
        f'[services.local]\nname = "Local"\nstart_url = "{origin}/account"\n'
        f'allowed_domains = ["{origin}"]\ngoal = "Cancel."\n' + rules,
        encoding="utf-8",
    )
    try:
        yield services
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
