"""Loopback servers for the egress tests: pages that try to leave, and hosts that count visitors.

The counting server's own tally is the ground truth: if the browser reached
it by any route, the proxy's refusals do not matter.
"""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qs, urlsplit


class _CountingHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, 0), _CountingHandler)
        self.connections = 0
        self.paths: list[str] = []
        self.lock = threading.Lock()

    def verify_request(self, request: object, client_address: object) -> bool:
        # Counted at accept, before any HTTP: a WebSocket or a bare connect counts too.
        with self.lock:
            self.connections += 1
        return True


class _CountingHandler(BaseHTTPRequestHandler):
    server: _CountingHTTPServer
    timeout = 5

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.paths.append(self.path)
        body = b"<html><head><title>Reached</title></head><body>reached</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


class CountingServer:
    """An HTTP server on ``host`` (any free port) that counts every connection it accepts."""

    def __init__(self, host: str) -> None:
        # Free ports are per address: a server on 127.0.0.2 (or ::1) could get the number
        # the egress proxy then takes on 127.0.0.1, and a request to it would be refused
        # first as a loop through the proxy (seen twice in full runs). The same number is
        # held on 127.0.0.1 while the server lives, so nothing there can take it.
        self._held: socket.socket | None = None
        while True:
            self._server = _CountingHTTPServer(host)
            port = self._server.server_address[1]
            if host == "127.0.0.1":
                break
            self._held = _held_port(port)
            if self._held is not None:
                break
            self._server.server_close()
        self.authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.base_url = f"http://{self.authority}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def connections(self) -> int:
        """Connections accepted so far."""
        with self._server.lock:
            return self._server.connections

    @property
    def paths(self) -> list[str]:
        """Paths requested so far."""
        with self._server.lock:
            return list(self._server.paths)

    def close(self) -> None:
        """Let the port go without ever serving (a server not entered)."""
        self._server.server_close()
        self._let_go()

    def _let_go(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None

    def __enter__(self) -> CountingServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        self._let_go()


def _held_port(port: int) -> socket.socket | None:
    """A socket bound to 127.0.0.1:``port`` (without SO_REUSEADDR, so no other bind there
    succeeds), or None when the number is taken there already."""
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        held.bind(("127.0.0.1", port))
    except OSError:
        held.close()
        return None
    return held


def adversarial_pages(forbidden: str, elsewhere: str) -> dict[str, str]:
    """Pages on the allowed host, each trying one way to reach ``forbidden`` (a base URL)."""
    ws = forbidden.replace("http://", "ws://")
    return {
        "/ok": "<title>Allowed page</title><h1>Allowed page</h1>",
        "/meta-refresh": (
            f"<title>Meta</title><meta http-equiv='refresh' content='0;url={forbidden}/meta'>"
        ),
        "/form-post": (
            f"<title>Form</title><form method='post' action='{forbidden}/form'>"
            "<input name='q' value='x'><button>Send</button></form>"
        ),
        "/script-location": f"<title>Script</title><script>location = '{forbidden}/s';</script>",
        "/target-blank": f"<title>Blank</title><a href='{forbidden}/b' target='_blank'>Open</a>",
        "/window-open": (
            f"<title>Popup</title><button onclick=\"window.open('{forbidden}/popup')\">Pop</button>"
        ),
        "/iframe": f"<title>Frame</title><iframe src='{forbidden}/frame'></iframe>",
        "/fetch": f"<title>Fetch</title><script>fetch('{forbidden}/f').catch(() => 0);</script>",
        "/img": f"<title>Image</title><img src='{forbidden}/pixel.png' alt='pixel'>",
        # The page says when its socket failed, so a test can await that on the page.
        "/websocket": (
            f"<title>Socket</title><script>new WebSocket('{ws}/ws').onerror = () =>"
            " document.body.append('Socket failed');</script>"
        ),
        "/elsewhere": (
            f"<title>CDN</title><img src='{elsewhere}/cdn.png' alt='cdn'>"
            f"<a href='{elsewhere}/leave'>Leave</a>"
        ),
    }


class AdversarialSite:
    """The allowed site on 127.0.0.1: ``/302?to=`` and ``/redirect?to=`` redirect anywhere."""

    def __init__(self, pages: dict[str, str]) -> None:
        site = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 5

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                target = parse_qs(url.query).get("to", [""])[0]
                if url.path in ("/302", "/redirect") and target:
                    self.send_response(302)
                    self.send_header("Location", target)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                page = site.pages.get(url.path)
                body = (page or "<title>Not found</title>").encode()
                self.send_response(200 if page else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Quiet."""

        self.pages = pages
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> AdversarialSite:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
