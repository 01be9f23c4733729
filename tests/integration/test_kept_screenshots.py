"""A picture is never kept of a page that shows what the person typed.

Pixels cannot be scrubbed. After a hand-off, a page that shows the code back
("Your code: 735 194") would put it into the screenshot shown at the next question
and kept as a receipt's evidence; the picture is withheld instead. Pages that show
nothing typed keep theirs, and before any hand-off no extra read is made.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.orchestrator.secrets import SecretScrubber, kept_screenshot

pytestmark = pytest.mark.browser

CODE = "735194"
PAGES = {
    "/verified": "<title>Verified</title><p>Thanks! Your code 735 194 was accepted.</p>",
    "/account": "<title>Account</title><p>Premium plan</p><button>Cancel membership</button>",
}


class _Pages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = PAGES.get(self.path, "<title>Not found</title>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    """The pages' base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def is_picture(path: str | None) -> bool:
    """Whether ``path`` names an image file on disk."""
    return path is not None and Path(path).is_file()


def pictures(gateway: BrowserGateway) -> set[Path]:
    """Every image under the browser's run folder."""
    return {path for path in gateway.plan.run_dir.rglob("*") if path.suffix == ".png"}


async def test_a_page_showing_the_typed_code_keeps_no_picture(
    gateway: BrowserGateway, site: str
) -> None:
    """The code, shown grouped, withholds the picture; no image file is left behind."""
    scrubber = SecretScrubber()
    scrubber.remember(CODE)
    page = (await gateway.call("browser_navigate", {"url": f"{site}/verified"})).snapshot
    assert "735 194" in page.content, "the page shows the code back"
    before = pictures(gateway)
    assert await kept_screenshot(gateway, scrubber) is None
    assert pictures(gateway) == before


async def test_other_pages_keep_their_picture(gateway: BrowserGateway, site: str) -> None:
    """With a code remembered, a page that does not show it keeps its picture; so does
    every page before anything was typed (the attack above, unprotected, keeps one too)."""
    remembered = SecretScrubber()
    remembered.remember(CODE)
    await gateway.call("browser_navigate", {"url": f"{site}/account"})
    kept = await kept_screenshot(gateway, remembered)
    assert is_picture(kept)
    await gateway.call("browser_navigate", {"url": f"{site}/verified"})
    unprotected = await kept_screenshot(gateway, SecretScrubber())
    assert is_picture(unprotected)
