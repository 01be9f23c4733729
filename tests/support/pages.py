"""Pages on 127.0.0.1 for a test: one small HTTP server in a thread, stopped afterwards."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HTML = "text/html; charset=utf-8"
#: A page: HTML text or bytes, or ``(content type, body)``.
Page = str | bytes | tuple[str, str | bytes]


@contextmanager
def serving_pages(page_for: Callable[[str], Page]) -> Iterator[str]:
    """Answer every GET with ``page_for(path)``; yields the base URL (no trailing slash)."""

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = page_for(self.path)
            kind, body = page if isinstance(page, tuple) else (HTML, page)
            data = body.encode() if isinstance(body, str) else body
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: object) -> None:
            return

    with serving(Pages) as base_url:
        yield base_url


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 in a thread; yields the base URL (no trailing slash)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
