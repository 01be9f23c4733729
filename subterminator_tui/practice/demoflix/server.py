"""Serve Demoflix over HTTP from a daemon thread, for a real browser and for tests alike."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

from subterminator_tui.practice.demoflix.app import SESSION_COOKIE, DemoflixApp, Request, Response
from subterminator_tui.practice.demoflix.state import DemoflixState, parse_variants

# Forms on this site carry a few short fields; anything larger is not a browser using it.
_MAX_FORM_BYTES = 64 * 1024


class _HTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that carries the app its handlers serve."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], app: DemoflixApp) -> None:
        super().__init__(address, _Handler)
        self.app = app


class _Handler(BaseHTTPRequestHandler):
    """Translate between http.server and :class:`DemoflixApp`."""

    server_version = "Demoflix/1.0"
    # A stalled client must not pin a worker thread (or stop()) forever.
    timeout = 10

    def do_GET(self) -> None:
        """Serve a page."""
        self._dispatch(form={})

    def do_POST(self) -> None:
        """Apply a form submission."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= _MAX_FORM_BYTES:
            self.send_error(413 if length > 0 else 400)
            return
        raw = self.rfile.read(length).decode("utf-8", errors="replace")
        self._dispatch(form=parse_qs(raw, keep_blank_values=True))

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet: the site runs inside a terminal UI and inside test output."""

    def _dispatch(self, form: dict[str, list[str]]) -> None:
        url = urlsplit(self.path)
        request = Request(
            method=self.command,
            path=url.path,
            query=parse_qs(url.query, keep_blank_values=True),
            form=form,
            session_token=self._session_token(),
        )
        assert isinstance(self.server, _HTTPServer)  # only ever constructed by _HTTPServer
        self._write(self.server.app.handle(request))

    def _session_token(self) -> str | None:
        cookie = SimpleCookie()
        try:
            cookie.load(self.headers.get("Cookie") or "")
        except CookieError:
            return None
        morsel = cookie.get(SESSION_COOKIE)
        return morsel.value if morsel is not None else None

    def _write(self, response: Response) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(response.body)))
        if response.location is not None:
            self.send_header("Location", response.location)
        if response.set_cookie is not None:
            self.send_header("Set-Cookie", response.set_cookie)
        self.end_headers()
        if response.body:
            self.wfile.write(response.body)


class DemoflixServer:
    """The practice site on ``host:port`` (a free port by default), with live server state.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`. ``state`` is the
    same object the request threads mutate, so tests read what really happened.
    """

    def __init__(
        self,
        variants: Iterable[str] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        today: datetime.date | None = None,
    ) -> None:
        """Validate ``variants`` now (ValueError lists the valid ones); nothing listens yet."""
        self.state = DemoflixState(
            variants=parse_variants(variants), today=today or datetime.date.today()
        )
        self._host = host
        self._port = port
        self._app = DemoflixApp(self.state)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._base_url: str | None = None
        self._lifecycle = threading.Lock()

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` of the running server; RuntimeError before :meth:`start`."""
        if self._base_url is None:
            raise RuntimeError("DemoflixServer is not running; call start() first")
        return self._base_url

    @property
    def running(self) -> bool:
        """Whether the server is accepting requests."""
        return self._httpd is not None

    def start(self) -> str:
        """Start serving (a no-op if already running) and return the base URL."""
        with self._lifecycle:
            if self._httpd is None:
                httpd = _HTTPServer((self._host, self._port), self._app)
                host, port = httpd.server_address[:2]
                shown = host.decode() if isinstance(host, bytes) else host
                self._thread = threading.Thread(
                    target=httpd.serve_forever,
                    kwargs={"poll_interval": 0.1},
                    name=f"demoflix-{port}",
                    daemon=True,
                )
                self._thread.start()
                self._httpd = httpd
                self._base_url = f"http://{shown}:{port}"
        return self.base_url

    def stop(self) -> None:
        """Stop serving, release the port and join the thread; safe to call repeatedly."""
        with self._lifecycle:
            httpd, thread = self._httpd, self._thread
            self._httpd = self._thread = None
            self._base_url = None
            if httpd is None:
                return
            httpd.shutdown()
            httpd.server_close()
            if thread is not None:
                thread.join()

    def __enter__(self) -> DemoflixServer:
        """Start the server for the ``with`` block."""
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop the server, whatever happened in the block."""
        self.stop()
