"""Serve a practice site's router over HTTP from a daemon thread, for a browser and tests alike."""

from __future__ import annotations

import json
import threading
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Generic, Self, TypeVar
from urllib.parse import parse_qs, urlsplit

from subterminator_tui.practice import websocket
from subterminator_tui.practice.http import Request, Response, Router, SocketRouter

# Forms on these sites carry a few short fields; anything larger is not a browser using them.
_MAX_FORM_BYTES = 64 * 1024

StateT = TypeVar("StateT")


class _HTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that carries the router its handlers serve."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], router: Router, session_cookie: str) -> None:
        super().__init__(address, _Handler)
        self.router = router
        self.session_cookie = session_cookie


class _Handler(BaseHTTPRequestHandler):
    """Translate between http.server and a :class:`Router`."""

    server_version = "PracticeSite/1.0"
    # A stalled client must not pin a worker thread (or stop()) forever.
    timeout = 10

    def do_GET(self) -> None:
        """Serve a page, or accept a WebSocket the router wants."""
        if self.headers.get("Upgrade", "").lower() == "websocket" and self._open_socket():
            return
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
        if (self.headers.get("Content-Type") or "").startswith("application/json"):
            self._dispatch(form={}, json_body=_json_object(raw))
            return
        self._dispatch(form=parse_qs(raw, keep_blank_values=True))

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet: the site runs inside a terminal UI and inside test output."""

    def _request(self, form: dict[str, list[str]], json_body: dict[str, Any]) -> Request:
        assert isinstance(self.server, _HTTPServer)  # only ever constructed by _HTTPServer
        url = urlsplit(self.path)
        return Request(
            method=self.command,
            path=url.path,
            query=parse_qs(url.query, keep_blank_values=True),
            form=form,
            session_token=self._session_token(self.server.session_cookie),
            json_body=json_body,
        )

    def _dispatch(
        self, form: dict[str, list[str]], json_body: dict[str, Any] | None = None
    ) -> None:
        assert isinstance(self.server, _HTTPServer)
        self._write(self.server.router.handle(self._request(form, json_body or {})))

    def _open_socket(self) -> bool:
        """Hand a WebSocket to the router's listener; False when it wants none."""
        assert isinstance(self.server, _HTTPServer)
        router = self.server.router
        key = self.headers.get("Sec-WebSocket-Key", "")
        if not key or not isinstance(router, SocketRouter):
            return False
        listener = router.open_socket(self._request({}, {}))
        if listener is None:
            return False
        # A WebSocket handshake is HTTP/1.1 by definition (the pages themselves stay 1.0).
        self.protocol_version = "HTTP/1.1"
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", websocket.accept_key(key))
        self.end_headers()
        self.wfile.flush()
        while (messages := websocket.read_text_frames(self.rfile, self.wfile)) is not None:
            for message in messages:
                answer = listener(message)
                if answer is not None:
                    self.wfile.write(websocket.text_frame(answer))
            self.wfile.flush()
        self.close_connection = True
        return True

    def _session_token(self, name: str) -> str | None:
        cookie = SimpleCookie()
        try:
            cookie.load(self.headers.get("Cookie") or "")
        except CookieError:
            return None
        morsel = cookie.get(name)
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


def _json_object(raw: str) -> dict[str, Any]:
    """A JSON body's object; empty for anything else (a list, a number, bad JSON)."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


class PracticeServer(Generic[StateT]):
    """A practice site on ``host:port`` (a free port by default), with its live server state.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`. ``state`` is the
    same object the request threads mutate, so tests read what really happened.
    """

    #: Names the serving thread and the "not running" error.
    site_name = "practice site"

    def __init__(
        self,
        state: StateT,
        router: Router,
        *,
        session_cookie: str,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        """Serve ``router`` over ``state``; nothing listens until :meth:`start`."""
        self.state = state
        self._router = router
        self._session_cookie = session_cookie
        self._host = host
        self._port = port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._base_url: str | None = None
        self._lifecycle = threading.Lock()

    @property
    def base_url(self) -> str:
        """``http://HOST:PORT`` of the running server; RuntimeError before :meth:`start`."""
        if self._base_url is None:
            raise RuntimeError(f"{type(self).__name__} is not running; call start() first")
        return self._base_url

    @property
    def running(self) -> bool:
        """Whether the server is accepting requests."""
        return self._httpd is not None

    def start(self) -> str:
        """Start serving (a no-op if already running) and return the base URL."""
        with self._lifecycle:
            if self._httpd is None:
                httpd = _HTTPServer((self._host, self._port), self._router, self._session_cookie)
                host, port = httpd.server_address[:2]
                shown = host.decode() if isinstance(host, bytes) else host
                self._thread = threading.Thread(
                    target=httpd.serve_forever,
                    kwargs={"poll_interval": 0.1},
                    name=f"{self.site_name}-{port}",
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

    def __enter__(self) -> Self:
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
