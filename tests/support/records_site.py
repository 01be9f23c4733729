"""A small site on loopback for the call-record tests: console messages of every level, a slow page.

Served as a service of its own (a services.toml written beside the test), so the
sessions reach it through the ordinary guard and egress filter.
"""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType

from mcp.client.stdio import StdioServerParameters

from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.health.policy import HealthPolicy
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.settings import load_settings
from tests.support.serve_clients import serve_over_stdio

_ONE = """<!doctype html><html><head><title>Console lab</title></head><body>
<h1>Page one</h1>
<p>Alpha line</p>
<label>Note <input name="note"></label>
<a href="/two">Two</a> <a href="/slow">Slow</a>
<script>
console.debug("debug detail");
console.log("plain log");
console.info("info note");
console.warn("careful now");
console.error("bad thing");
setTimeout(() => { throw new Error("uncaught boom"); }, 0);
</script></body></html>"""

_TWO = """<!doctype html><html><head><title>Console lab</title></head><body>
<h1>Page two</h1>
<p>Alpha line</p>
<button>Continue</button>
<a href="/">One</a>
</body></html>"""

SLOW_SECONDS = 6.0


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close: none may outlive the test.
    daemon_threads = False

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        #: Set when the browser asks for the slow page: a click on its link is in flight.
        self.slow_requested = threading.Event()
        #: Set on close: a slow answer still pending ends at once.
        self.closing = threading.Event()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        if self.path.startswith("/slow"):
            self.server.slow_requested.set()
            self.server.closing.wait(SLOW_SECONDS)
            body = _TWO.replace("Page two", "Slow page")
        elif self.path.startswith("/two"):
            body = _TWO
        else:
            body = _ONE
        data = body.encode()
        # The browser may be gone (killed by the test) before its answer is written.
        with contextlib.suppress(OSError):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return


class RecordsSite:
    """The site on 127.0.0.1 (a free port), with a services file naming it ``consolelab``."""

    def __init__(self, folder: Path) -> None:
        self._server = _Server()
        self.slow_requested = self._server.slow_requested
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self.services_file = folder / "records-services.toml"
        self.services_file.write_text(
            "[services.consolelab]\n"
            'name = "Console lab"\n'
            f'start_url = "{self.url}"\n'
            f'allowed_domains = ["{self.url.rstrip("/")}"]\n'
            'goal = "Read the pages."\n',
            encoding="utf-8",
        )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> RecordsSite:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.closing.set()
        self._server.shutdown()
        self._server.server_close()


def serve_params(tmp_path: Path, records_site: RecordsSite) -> StdioServerParameters:
    """The server as a desktop client starts it, on this test's home, journal and records_site."""
    return serve_over_stdio(tmp_path, "none", "--services", str(records_site.services_file))


def in_process_config(
    tmp_path: Path, records_site: RecordsSite, policy: HealthPolicy
) -> ServeConfig:
    """An in-process server's config on ``site``: profiles under ``tmp_path``/profiles."""
    return ServeConfig(
        settings=load_settings(journal=tmp_path / "journal.sqlite3"),
        profile_root=tmp_path / "profiles",
        runs_root=tmp_path / "runs",
        services=(records_site.services_file,),
        health=policy,
    )


def node_of(session: BrowserSession) -> int:
    """The pid of the session's Playwright MCP (Node)."""
    gateway = session.lazy.gateway
    assert gateway is not None and gateway.node_pid is not None
    return gateway.node_pid
