"""Native dialogs and title-less pages through the gateway (real Playwright MCP and Chromium).

Alerts are acknowledged and reported, never a format error; a confirm() waits for an
answer through the dialog tool and nothing else may pass it; a page that loops alerts
stops the call; JSON and plain-text pages (no <title>) are pages; labels are inert.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from subterminator_tui.browser.dialogs import DialogLoopError
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.errors import MCPToolError
from tests.conftest import in_module_loop
from tests.support.pages import serving_pages

pytestmark = pytest.mark.browser

_HTML = "text/html; charset=utf-8"
PAGES: dict[str, tuple[str, str]] = {
    "/saved": (
        _HTML,
        "<title>Preferences</title><button onclick=\"alert('Your preferences were saved.');"
        "alert('One more step to go.');document.title='Step two'\">Save</button>",
    ),
    "/confirm": (
        _HTML,
        '<title>Confirm</title><button onclick="document.title = '
        "confirm('Really cancel?') ? 'Cancelled' : 'Kept'\">Cancel plan</button>",
    ),
    "/loop": (
        _HTML,
        "<title>Loop</title><button onclick=\"for(;;){alert('again')}\">Start</button>",
    ),
    "/welcome": (_HTML, "<title>Welcome</title><script>alert('Welcome!')</script><p>Hi</p>"),
    "/json": ("application/json", '{"plan": "premium", "renews": true}'),
    "/text": ("text/plain; charset=utf-8", "Your plan is active."),
    "/escapes": (
        _HTML,
        "<title>FAQ\u001b]0;owned\u0007</title>"
        '<button aria-label="Read FAQ&#x1b;[2J&#x1b;[H&#x1b;[32mSAFE">x</button>',
    ),
}


@pytest.fixture
def site() -> Iterator[str]:
    """The page server's base URL."""
    with serving_pages(lambda path: PAGES.get(path, (_HTML, "<title>Not found</title>"))) as url:
        yield url


@in_module_loop
async def test_two_alerts_in_a_row_are_acknowledged_and_reported(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """Two informational alerts after a click: both acknowledged, the page comes back."""
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/saved"})).snapshot
    result = await shared_gateway.call("browser_click", {"target": page.ref_of("button", "Save")})
    assert result.snapshot.title == "Step two"
    dialogs = result.snapshot.notes.get("Dialogs", "")
    assert "Your preferences were saved." in dialogs and "One more step to go." in dialogs
    assert "Modal state" not in result.snapshot.notes


@in_module_loop
async def test_a_confirm_waits_for_the_dialog_tool_and_nothing_passes_it(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """A confirm() is a choice: other calls are refused saying so, the dialog tool answers."""
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/confirm"})).snapshot
    clicked = await shared_gateway.call(
        "browser_click", {"target": page.ref_of("button", "Cancel plan")}
    )
    assert "Really cancel?" in clicked.snapshot.notes.get("Modal state", "")
    for name, arguments in (
        ("browser_navigate", {"url": f"{site}/text"}),
        ("browser_press_key", {"key": "Escape"}),
    ):
        with pytest.raises(MCPToolError, match=r"confirm dialog .*Really cancel"):
            await shared_gateway.call(name, arguments)
    answered = await shared_gateway.call("browser_handle_dialog", {"accept": False})
    assert answered.snapshot.title == "Kept"
    moved = await shared_gateway.call("browser_navigate", {"url": f"{site}/text"})
    assert moved.snapshot.url == f"{site}/text"


async def test_a_page_looping_alerts_stops_the_call(gateway: BrowserGateway, site: str) -> None:
    """alert() in an endless loop: the call ends saying so instead of spinning."""
    page = (await gateway.call("browser_navigate", {"url": f"{site}/loop"})).snapshot
    with pytest.raises(DialogLoopError, match="dialogs in a row"):
        await gateway.call("browser_click", {"target": page.ref_of("button", "Start")})


@in_module_loop
async def test_an_alert_while_loading_is_acknowledged_quickly(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """An alert during load is acknowledged: the navigation answers (a call that waited out
    its timeout would raise instead) with the loaded page."""
    result = await shared_gateway.call("browser_navigate", {"url": f"{site}/welcome"})
    assert result.snapshot.title == "Welcome"
    assert "Welcome!" in result.snapshot.notes.get("Dialogs", "")


@in_module_loop
async def test_pages_without_a_title_are_pages(shared_gateway: BrowserGateway, site: str) -> None:
    """JSON and plain text have no <title>; every later call, navigate away included, works."""
    for path, words in (("/json", "premium"), ("/text", "Your plan is active.")):
        result = await shared_gateway.call("browser_navigate", {"url": f"{site}{path}"})
        assert result.snapshot.title == ""
        assert words in result.snapshot.content
        assert (await shared_gateway.snapshot()).url == f"{site}{path}"
    away = await shared_gateway.call("browser_navigate", {"url": f"{site}/confirm"})
    assert away.snapshot.title == "Confirm"


@in_module_loop
async def test_escape_sequences_in_labels_and_titles_are_removed(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """An aria-label or title holding escape sequences reads as plain text."""
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/escapes"})).snapshot
    for text in (page.title, page.content, *(e.label for e in page.elements)):
        assert "\x1b" not in text and "\x07" not in text
    assert page.find("button", "Read FAQSAFE")
