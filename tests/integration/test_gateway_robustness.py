"""Pages that misbehave under an action: a navigation a key starts, a file chooser a click opens.

A real Playwright MCP and Chromium against a small page server on 127.0.0.1.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from tests.conftest import in_module_loop
from tests.support.pages import serving_pages

pytestmark = pytest.mark.browser

_START = (
    "<!doctype html><html><head><title>Start</title></head><body>"
    '<form action="/slow"><input name="q" aria-label="Search" autofocus></form>'
    '<input type="file" id="file" style="display:none">'
    "<button onclick=\"document.getElementById('file').click()\">Attach a document</button>"
    "</body></html>"
)
_SLOW = "<!doctype html><html><head><title>Results</title></head><body><h1>Results</h1></body>"


def _page_for(path: str) -> str:
    if path.startswith("/slow"):
        # A page that takes its time: the key press answers before it has a title.
        time.sleep(1.5)
        return _SLOW
    return _START


@pytest.fixture
def site() -> Iterator[str]:
    """The page server's base URL."""
    with serving_pages(_page_for) as url:
        yield url


@in_module_loop
async def test_a_key_that_starts_a_navigation_waits_for_the_new_page(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """Enter in a search field loads a slow page: the answer is the new page, not an error."""
    await shared_gateway.call("browser_navigate", {"url": f"{site}/"})
    result = await shared_gateway.call("browser_press_key", {"key": "Enter"})
    assert result.snapshot.title == "Results"
    assert result.snapshot.url.startswith(f"{site}/slow")


@in_module_loop
async def test_a_file_chooser_is_closed_and_explained(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """A click that opens a file chooser: closed at once, the page says why, no upload tool."""
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/"})).snapshot
    result = await shared_gateway.call(
        "browser_click", {"target": page.ref_of("button", "Attach a document")}
    )
    assert "never uploads files" in result.snapshot.notes.get("Note", "")
    assert "File chooser" not in result.snapshot.notes.get("Modal state", "")
    after = await shared_gateway.snapshot()
    assert after.title == "Start"
