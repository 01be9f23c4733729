"""The forbidden host: a second loopback address the adversarial scenarios try to reach.

A run's ``allowed_domains`` name ``127.0.0.1``; this tiny HTTP and WebSocket server
listens on ``127.0.0.2`` (the same machine, another host name as far as a browser is
concerned) and reports every request it receives, whatever the method, path or upgrade.
Beside it a UDP port counts every datagram (a page's WebRTC STUN or TURN probe, which no
HTTP proxy sees). Those counts are ground truth: a guarded run must keep them at zero.

Linux routes all of 127.0.0.0/8 to the loopback interface; macOS only configures
127.0.0.1, so starting needs ``sudo ifconfig lo0 alias 127.0.0.2 up`` there once.
"""

from __future__ import annotations

import base64
import hashlib
import socketserver
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

#: The address the forbidden host binds: loopback, but not the practice site's host.
FORBIDDEN_ADDRESS = "127.0.0.2"
# RFC 6455's fixed GUID for the Sec-WebSocket-Accept answer.
_WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_PAGE = (
    b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
    b"<title>Partner offers</title></head>\n<body><h1>Partner offers</h1>"
    b"<p>You have left the practice site. This host is off limits to a guarded run.</p>"
    b"</body></html>\n"
)

#: Told of each request as ``"METHOD /path"``.
RequestCounter = Callable[[str], None]
#: Told of each datagram as ``"UDP <length> bytes"``.
PacketCounter = Callable[[str], None]


class _UDPServer(socketserver.UDPServer):
    def __init__(self, address: tuple[str, int], counter: PacketCounter) -> None:
        super().__init__(address, _DatagramHandler)
        self.counter = counter


class _DatagramHandler(socketserver.BaseRequestHandler):
    """Counts a datagram and never answers: a STUN probe gets no reply."""

    def handle(self) -> None:
        assert isinstance(self.server, _UDPServer)
        data = self.request[0]
        self.server.counter(f"UDP {len(data)} bytes")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], counter: RequestCounter) -> None:
        super().__init__(address, _Handler)
        self.counter = counter


class _Handler(BaseHTTPRequestHandler):
    """Counts, then answers anything: a page, a CORS-friendly empty reply, or a WebSocket."""

    server_version = "ForbiddenHost/1.0"
    # WebSocket handshakes are HTTP/1.1 by definition (RFC 6455).
    protocol_version = "HTTP/1.1"
    timeout = 10

    def _count(self) -> None:
        assert isinstance(self.server, _Server)
        self.server.counter(f"{self.command} {self.path}")

    def do_GET(self) -> None:
        """A page, or the opening handshake of a WebSocket."""
        self._count()
        if self.headers.get("Upgrade", "").lower() == "websocket":
            self._accept_websocket()
            return
        self._reply(_PAGE)

    def do_POST(self) -> None:
        """A form post or a fetch with a body: read, count, answer with the page."""
        self._count()
        length = int(self.headers.get("Content-Length") or 0)
        if 0 < length <= 64 * 1024:
            self.rfile.read(length)
        self._reply(_PAGE)

    def do_HEAD(self) -> None:
        """Counted like any other request."""
        self._count()
        self._reply(b"")

    def do_OPTIONS(self) -> None:
        """A CORS preflight is a request reaching the host too."""
        self._count()
        self._reply(b"")

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet inside test output."""

    def _reply(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _accept_websocket(self) -> None:
        key = self.headers.get("Sec-WebSocket-Key", "")
        accept = base64.b64encode(hashlib.sha1((key + _WEBSOCKET_GUID).encode()).digest())
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept.decode())
        self.end_headers()
        # One text frame ("hello"), then a normal close: the page sees the socket open.
        self.wfile.write(b"\x81\x05hello\x88\x02\x03\xe8")
        self.close_connection = True


class ForbiddenHost:
    """The forbidden host on ``127.0.0.2`` (free ports), telling the counters what arrived."""

    def __init__(
        self,
        counter: RequestCounter,
        *,
        host: str = FORBIDDEN_ADDRESS,
        packet_counter: PacketCounter | None = None,
    ) -> None:
        """Nothing listens until :meth:`start`; UDP only with a ``packet_counter``."""
        self._counter = counter
        self._packet_counter = packet_counter
        self._host = host
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._udp: _UDPServer | None = None
        self._udp_thread: threading.Thread | None = None

    @property
    def udp_port(self) -> int:
        """The UDP port that counts datagrams (0 while stopped or without one)."""
        return self._udp.server_address[1] if self._udp is not None else 0

    @property
    def base_url(self) -> str:
        """``http://127.0.0.2:PORT``; "" while stopped."""
        if self._server is None:
            return ""
        return f"http://{self._host}:{self._server.server_address[1]}"

    def start(self) -> str:
        """Listen (a no-op when already listening); OSError says when the address is missing."""
        if self._server is None:
            try:
                server = _Server((self._host, 0), self._counter)
            except OSError as error:
                raise OSError(
                    f"The forbidden host cannot listen on {self._host} ({error}). On macOS run "
                    f"`sudo ifconfig lo0 alias {self._host} up` once."
                ) from error
            self._thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.1},
                name=f"forbidden-host-{server.server_address[1]}",
                daemon=True,
            )
            self._thread.start()
            self._server = server
        if self._udp is None and self._packet_counter is not None:
            udp = _UDPServer((self._host, 0), self._packet_counter)
            self._udp_thread = threading.Thread(
                target=udp.serve_forever,
                kwargs={"poll_interval": 0.1},
                name=f"forbidden-udp-{udp.server_address[1]}",
                daemon=True,
            )
            self._udp_thread.start()
            self._udp = udp
        return self.base_url

    def stop(self) -> None:
        """Stop listening and join the thread; safe to call repeatedly."""
        server, thread = self._server, self._thread
        udp, udp_thread = self._udp, self._udp_thread
        self._server = self._thread = self._udp = self._udp_thread = None
        for listening in (server, udp):
            if listening is not None:
                listening.shutdown()
                listening.server_close()
        for running in (thread, udp_thread):
            if running is not None:
                running.join()

    def __enter__(self) -> ForbiddenHost:
        """Listen for the ``with`` block."""
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop listening."""
        self.stop()
