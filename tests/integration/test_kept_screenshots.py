"""A picture is never kept of a page that shows what the person typed.

Pixels cannot be scrubbed. After a hand-off, a page that shows the code back
("Your code: 735 194") would put it into the screenshot shown at the next question
and kept as a receipt's evidence; the picture is withheld instead. Pages that show
nothing typed keep theirs, and before any hand-off no extra read is made.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.guarded.secrets import SecretScrubber, kept_screenshot
from tests.conftest import in_module_loop
from tests.support.pages import serving_pages

pytestmark = pytest.mark.browser

CODE = "735194"
PAGES = {
    "/verified": "<title>Verified</title><p>Thanks! Your code 735 194 was accepted.</p>",
    "/account": "<title>Account</title><p>Premium plan</p><button>Cancel membership</button>",
}


@pytest.fixture
def site() -> Iterator[str]:
    """The pages' base URL."""
    with serving_pages(lambda path: PAGES.get(path, "<title>Not found</title>")) as url:
        yield url


def is_picture(path: str | None) -> bool:
    """Whether ``path`` names an image file on disk."""
    return path is not None and Path(path).is_file()


def pictures(gateway: BrowserGateway) -> set[Path]:
    """Every image under the browser's run folder."""
    return {path for path in gateway.plan.run_dir.rglob("*") if path.suffix == ".png"}


@in_module_loop
async def test_a_page_showing_the_typed_code_keeps_no_picture(
    shared_gateway: BrowserGateway, site: str
) -> None:
    """The code, shown grouped, withholds the picture; no image file is left behind."""
    scrubber = SecretScrubber()
    scrubber.remember(CODE)
    page = (await shared_gateway.call("browser_navigate", {"url": f"{site}/verified"})).snapshot
    assert "735 194" in page.content, "the page shows the code back"
    before = pictures(shared_gateway)
    assert await kept_screenshot(shared_gateway, scrubber) is None
    assert pictures(shared_gateway) == before


@in_module_loop
async def test_other_pages_keep_their_picture(shared_gateway: BrowserGateway, site: str) -> None:
    """With a code remembered, a page that does not show it keeps its picture; so does
    every page before anything was typed (the attack above, unprotected, keeps one too)."""
    remembered = SecretScrubber()
    remembered.remember(CODE)
    await shared_gateway.call("browser_navigate", {"url": f"{site}/account"})
    kept = await kept_screenshot(shared_gateway, remembered)
    assert is_picture(kept)
    await shared_gateway.call("browser_navigate", {"url": f"{site}/verified"})
    unprotected = await kept_screenshot(shared_gateway, SecretScrubber())
    assert is_picture(unprotected)
