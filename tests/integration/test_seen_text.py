"""Success text nobody can see is no evidence: hostile confirmation pages in a real browser.

Each page prints a success sentence where the accessibility tree (what the rules read
until now) finds it but no person does: an off-screen screen-reader-only element, a
clipped one, the title alone, CSS ``::after`` content, an address written by
``pushState``. For each, the test shows the attack works on the tree (``verify_completion``
says verified) and fails on evidence (the rule does not hold on the text the browser
shows). A plainly visible confirmation still verifies, so the judgement is not blind.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.rules import ServiceConfig, generic_service, load_services, verify_completion
from subterminator_tui.rules.evidence import holds_on_seen
from subterminator_tui.settings import load_settings
from tests.conftest import browser_parts_missing
from tests.support.pages import serving_pages

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

ENDS = "Your membership ends on December 22, 2026."
_SR_ONLY = (
    "position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:nowrap;border:0"
)


def _page(body: str, title: str = "Account", head: str = "") -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head>"
        f"<body><main><h1>Your account</h1><p>Premium plan</p>{body}</main></body></html>"
    )


#: Per attack: the page, and which rules it fools (the gauntlet's or cancel --url's generic).
PAGES: dict[str, tuple[str, str]] = {
    "sr-only": (_page(f'<p style="{_SR_ONLY}">{ENDS}</p>'), "gauntlet"),
    "off-screen": (_page(f'<p style="position:absolute;left:-10000px">{ENDS}</p>'), "gauntlet"),
    "zero-size": (
        _page(f'<div style="width:0;height:0;overflow:hidden"><p>{ENDS}</p></div>'),
        "gauntlet",
    ),
    "title-only": (
        _page("<p>Thanks for your feedback.</p>", title="Cancellation confirmed"),
        "generic",
    ),
    "css-after": (
        _page(
            '<h2 class="done"></h2>',
            title="Membership cancelled",
            head="<style>.done::after{content:'Cancellation confirmed'}</style>",
        ),
        "gauntlet",
    ),
    "transparent": (_page(f'<p style="opacity:0">{ENDS}</p>'), "gauntlet"),
}
VISIBLE = _page(f"<h2>Cancellation confirmed</h2><p>{ENDS}</p>", title="Membership cancelled")


def _page_for(path: str) -> str:
    return VISIBLE if path == "/visible" else PAGES[path.strip("/")][0]


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The hostile pages on 127.0.0.1."""
    with serving_pages(_page_for) as url:
        yield url


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BrowserGateway]:
    """One headless browser for every page."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    root = tmp_path_factory.mktemp("seen")
    plan = plan_launch(
        load_settings(), headless=True, profile_dir=root / "profile", runs_root=root / "runs"
    )
    async with BrowserGateway(plan) as gateway:
        yield gateway


def rules(kind: str, site: str) -> ServiceConfig:
    """The gauntlet's own rules, or the generic ones ``cancel --url`` uses."""
    if kind == "generic":
        return generic_service(site)
    return load_services(user_file=None, practice_scenarios=True).get("gauntlet")


@pytest.mark.parametrize("attack", sorted(PAGES))
async def test_hidden_success_text_fools_the_tree_but_not_the_evidence(
    attack: str, site: str, browser: BrowserGateway
) -> None:
    """The tree says verified (the attack works on it); the seen text holds no success rule."""
    page = (await browser.call("browser_navigate", {"url": f"{site}/{attack}"})).snapshot
    service = rules(PAGES[attack][1], site)
    assert verify_completion(service, page).verified, f"{attack} does not fool the tree"
    seen = await browser.seen_text()
    assert seen is not None and "Your account" in seen
    assert not any(holds_on_seen(rule, page, seen) for rule in service.success), seen


async def test_a_visible_confirmation_is_seen(site: str, browser: BrowserGateway) -> None:
    """The same sentence in plain sight holds on the seen text, under both sets of rules."""
    page = (await browser.call("browser_navigate", {"url": f"{site}/visible"})).snapshot
    seen = await browser.seen_text()
    assert seen is not None and ENDS in seen
    for kind in ("gauntlet", "generic"):
        service = rules(kind, site)
        assert any(holds_on_seen(rule, page, seen) for rule in service.success), kind
