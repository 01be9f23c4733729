"""The guard reads a call's target in Playwright's utility world, over our DevTools session.

No settle wait for a read that starts nothing, and nothing the page's own scripts do
to their world (a rewritten ``innerText`` getter) changes what the guard reads there.
The facts are the same as ``browser_evaluate``'s on honest pages, frames included;
the twin through ``browser_evaluate`` in the page's world shows the lie it prevents.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.inspection import PAGE_FACTS_FUNCTION, PageReader
from tests.conftest import in_module_loop
from tests.support.pages import serving_pages

pytestmark = pytest.mark.browser

#: The final button says what it does; its accessible name says "Continue".
FINAL = '<button aria-label="Continue" id="final">Cancel my plan</button>'
#: The page's own world reads every element's text as its accessible name instead.
LYING_TEXT = (
    "<script>for (const name of ['innerText', 'textContent']) {"
    " Object.defineProperty(HTMLElement.prototype, name, {configurable: true,"
    " get() { return this.getAttribute('aria-label') || ''; }}); }</script>"
)
PAGES = {
    "/lying": f"<title>Confirm</title>{LYING_TEXT}<main><p>Last step.</p>{FINAL}</main>",
    "/honest": (
        "<title>Plan</title><main><h1>Your plan</h1><form action='/cancel' method='post'>"
        "<label>Reason <input name='reason'></label>"
        "<button>Cancel my plan</button></form>"
        "<a href='/help'>Help</a><iframe src='/frame'></iframe></main>"
    ),
    "/frame": "<title>Frame</title><button>Keep my plan</button>",
}


@pytest.fixture
def site() -> Iterator[str]:
    """The page server's base URL."""
    with serving_pages(lambda path: PAGES.get(path, "<title>Not found</title>")) as url:
        yield url


def page_world_reader(gateway: BrowserGateway) -> PageReader:
    """The read through ``browser_evaluate`` alone: the page's own world."""
    return PageReader(gateway.process.dispatch)


@in_module_loop
async def test_the_target_is_read_where_the_page_cannot_lie(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """The button's real text, though the page's world answers "Continue" for it."""
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/lying"})).snapshot
    ref = page.ref_of("button", "Continue")
    facts = await shared_gateway.inspect(ref)
    assert facts.target is not None and facts.target.text == "Cancel my plan"


@in_module_loop
async def test_read_in_the_pages_world_the_lie_works(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """The twin: through ``browser_evaluate`` the rewritten getter wins."""
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/lying"})).snapshot
    ref = page.ref_of("button", "Continue")
    facts = await page_world_reader(shared_gateway).facts(ref)
    assert facts.target is not None and facts.target.text == "Continue"


@in_module_loop
async def test_the_facts_are_the_same_as_browser_evaluates(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """Every ref of an honest page, the frame's button included: the same facts both ways,
    and each found in Playwright's world (no fallback)."""
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/honest"})).snapshot
    refs = [element.ref for element in page.elements if element.ref]
    assert page.ref_of("button", "Keep my plan") in refs
    slow = page_world_reader(shared_gateway)
    worlds = shared_gateway.process.worlds
    for ref in refs:
        assert await worlds.on_element(ref, PAGE_FACTS_FUNCTION) is not None, ref
        assert await shared_gateway.inspect(ref) == await slow.facts(ref), ref


@in_module_loop
async def test_an_unknown_ref_is_left_to_browser_evaluate(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """A ref no element carries: nothing is made up, the caller reads another way."""
    await shared_gateway.call("browser_navigate", {"url": f"{site}/honest"})
    assert await shared_gateway.process.worlds.on_element("e999", PAGE_FACTS_FUNCTION) is None
