"""The small HTTP handler a test's own site builds on: quiet, with one way to answer."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler


class SiteHandler(BaseHTTPRequestHandler):
    """A test site's handler: ``send`` a page or ``see_other`` a redirect; logs nothing."""

    def send(self, status: int, body: bytes, kind: str = "text/html") -> None:
        """Answer ``status`` with ``body`` as ``kind`` (UTF-8)."""
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def see_other(self, location: str) -> None:
        """Answer a form post the way sites do: 303 to ``location``."""
        self.send_response(303)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args: object) -> None:
        """Quiet: the test reads the site's state, not its log."""
        return
