"""One browser lent to a worker's runs in turn, reset between them.

Starting Chromium and Playwright MCP is most of a short guarded run's CPU. The product
starts a fresh browser and egress filter for every run (``fresh_browser``); a test whose run
needs no fresh one passes :class:`SharedBrowser` as ``prepared_run``'s ``start_browser``
instead (``shared_runs``: one a worker, whatever module it runs). Between two runs the
filter follows the new run's policy (``EgressProxy.follow``) and the browser is reset and
checked: one tab on about:blank, no cookies, no storage for any origin, no session storage
in the tab for the site it ended on, no saved sign-in beside the profile, the gateway's
memory of the last page gone; then Playwright forgets the origins it showed (its reset of a
context for reuse). A reset that cannot be shown to have worked stops the browser, so the
next run gets a fresh one.

Playwright reads an origin's storage in place when a page shows it, and otherwise opens
a page of its own and visits the origin: a renderer started and stopped, about 0.27 CPU
seconds. The reset read the storage three times from a blank tab (to find the origins,
to check them, to forget them), about 1.1 CPU s a reset over some 160 resets a run; it
now clears the origins the last run's frames showed, reads once with the tab parked on
the site the run ended on, and forgets in that same call; its calls are sent as they are,
and the URL after leaving the last page is read from the navigation's own answer: three
looks at a page a reset became one (0.92 CPU s a reset on the guarded traps, now 0.71,
against about 1.05 for a fresh browser and egress filter).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.answers import text_of
from subterminator_tui.browser.egress import EgressPolicy, EgressProxy, egress_filter
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.interception import SendEverything
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.browser.mcp_process import ServerStopped
from subterminator_tui.browser.sign_in import SIGN_IN_FILE, parse_saved_state
from subterminator_tui.browser.snapshot import normalize_snapshot
from subterminator_tui.browser.typed_values import IgnoreTypedValues
from subterminator_tui.errors import MCPConnectionError, MCPToolError, SnapshotValidationError
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.settings import Settings
from tests.support.isolation import isolate
from tests.support.polling import until

#: How many times closing tabs and leaving the page is tried before the browser is replaced.
_RESET_TRIES = 3


#: What a failed reset raises: the browser is then replaced by a fresh one.
_NOT_RESET = (MCPToolError, MCPConnectionError, ServerStopped, SnapshotValidationError)


class SharedBrowser:
    """A :class:`~subterminator_tui.session.browser.BrowserStarter` that lends one browser.

    Used from one event loop (the module's); :meth:`aclose` stops it. ``resets`` off
    leaves the last run's state in place: only the test proving the reset matters uses it.
    """

    def __init__(self, root: Path, *, resets: bool = True) -> None:
        self.root = root
        self.resets = resets
        self.gateway: BrowserGateway | None = None
        self.egress: EgressProxy | None = None
        #: How many browsers were started (1 when every reset worked).
        self.starts = 0
        self._stack: AsyncExitStack | None = None
        self._unfinished_reset = False
        #: What the running browser was started with (``_launch_wishes``).
        self._wishes: tuple[object, ...] | None = None

    @asynccontextmanager
    async def __call__(
        self,
        reach: Reachability,
        settings: Settings,
        *,
        headless: bool | None,
        profile_dir: Path | None,
        runs_root: Path | None,
    ) -> AsyncIterator[tuple[BrowserGateway, EgressProxy | None]]:
        """The shared browser, its filter following ``reach``; reset once the run is over.

        ``profile_dir`` and ``runs_root`` are the run's wishes for a fresh browser: the
        shared one keeps its own under ``root``.
        """
        if settings.browser_backend != "local":
            raise RuntimeError("a shared browser is a local one")
        policy = EgressPolicy.for_reach(reach)
        wishes = _launch_wishes(settings, headless)
        stale = self.gateway is None or self.egress is None or not self.gateway.alive
        if stale or self._unfinished_reset or wishes != self._wishes:
            await self._start(policy, settings, headless)
            self._wishes = wishes
        else:
            await self.egress.follow(policy)
        assert self.gateway is not None and self.egress is not None
        try:
            yield self.gateway, self.egress
        finally:
            # A run cancelled where it stood (an app closed at its checkpoint) may be
            # cancelled again during the reset: a half-reset browser (the last run's judge
            # still holding its requests) is replaced, never lent.
            self._unfinished_reset = True
            if self.resets and not await self._reset():
                await self.aclose()
            self._unfinished_reset = False

    async def _start(self, policy: EgressPolicy, settings: Settings, headless: bool | None) -> None:
        await self.aclose()
        self.starts += 1
        stack = AsyncExitStack()
        self._stack = stack
        egress = await stack.enter_async_context(egress_filter(policy))
        # The browser's children keep the environment they start with: a home of its own,
        # not the first run's test's, which its fixtures take down after that test.
        with pytest.MonkeyPatch.context() as patch:
            isolate(self.root / "home", patch)
            plan = plan_launch(
                settings,
                headless=headless,
                profile_dir=self.root / f"profile-{self.starts}",
                runs_root=self.root / "runs",
                proxy_server=egress.url,
            )
            gateway = BrowserGateway(plan, call_timeout=settings.call_timeout)
            gateway.devtools_ports = egress.refused_ports
            await stack.enter_async_context(gateway)
        self.gateway, self.egress = gateway, egress

    async def aclose(self) -> None:
        """Stop the browser and its filter (the next run starts fresh ones)."""
        stack, self._stack = self._stack, None
        self.gateway = self.egress = None
        if stack is not None:
            await stack.aclose()

    async def _reset(self) -> bool:
        """Put the browser back as a fresh one starts; whether that is shown to have worked."""
        gateway = self.gateway
        if gateway is None or not gateway.alive:
            return False
        try:
            # Where the last run's pages were: the one it ended on is read in place below.
            shown = await _frame_origins(gateway)
            for _ in range(_RESET_TRIES):
                if await one_blank_tab(gateway):
                    break
            else:
                return False
            # Before the storage is read: Playwright reads it by opening a page of its own
            # on every origin it remembers, and the last run's judge refuses some of them
            # (an earlier run's site, a trap's forbidden host): every second reset failed
            # and replaced a browser that was blank. No page of the last run is left.
            gateway.requests.judge_with(SendEverything())
            gateway.typing.report_to(IgnoreTypedValues())
            await _forget_storage(gateway, shown)
        except _NOT_RESET:
            return False
        (gateway.plan.profile_dir / SIGN_IN_FILE).unlink(missing_ok=True)
        try:
            blank = await _holds_nothing(gateway, shown)
        except _NOT_RESET:
            return False
        gateway.last_snapshot = None
        gateway.restarts = 0
        gateway.console.forget()
        return blank


def _launch_wishes(settings: Settings, headless: bool | None) -> tuple[object, ...]:
    """What a run's settings ask of the browser it is lent: a run asking for another (its
    own call timeout, a headed browser) gets a fresh one, as it would unshared."""
    return (
        headless,
        settings.headless,
        settings.node,
        settings.browser,
        settings.settle_ms,
        settings.call_timeout,
    )


async def _frame_origins(gateway: BrowserGateway) -> list[str]:
    """The web origins of every page and frame open now, the first tab's top frame first
    (the tab the reset keeps: where the run ended)."""
    origins: list[str] = []
    for session in gateway.devtools.frames():
        tree = await gateway.devtools.ask(
            session, lambda send, to: send.Page.getFrameTree(session_id=to)
        )
        frames = [tree["frameTree"]] if tree else []
        while frames:
            node = frames.pop(0)
            origin = str(node["frame"].get("securityOrigin", ""))
            if origin.startswith(("http://", "https://")) and origin not in origins:
                origins.append(origin)
            frames += node.get("childFrames", [])
    return origins


async def one_blank_tab(gateway: BrowserGateway) -> bool:
    """Close every tab but the first and leave its page; whether one blank tab is left.

    Sent as they are, like the rest of the reset: the gateway's own call would answer a
    refusal (no dialog open, the usual case) with a look at the page the run ended on.
    """
    # A dialog the last page left open blocks every other call.
    await gateway._dispatch("browser_handle_dialog", {"accept": False})
    for index in range(tab_count(gateway) - 1, 0, -1):
        await gateway._dispatch("browser_tabs", {"action": "close", "index": index})
    await gateway._dispatch("browser_tabs", {"action": "select", "index": 0})
    left = await gateway._dispatch("browser_navigate", {"url": "about:blank"})
    # The answer shows where the tab is: no second look at about:blank.
    if left.is_error or not await _tabs_come_to(gateway, 1):
        return False
    return normalize_snapshot(text_of(left), gateway.plan.run_dir).url == "about:blank"


async def _on_one_blank_tab(gateway: BrowserGateway) -> bool:
    """Whether the browser comes to one tab, and Playwright MCP shows it on about:blank."""
    return await _tabs_come_to(gateway, 1) and await _shown_url(gateway) == "about:blank"


async def _shown_url(gateway: BrowserGateway) -> str:
    """The URL Playwright MCP shows for the selected tab, from one look.

    Sent as it is (an error is an answer, and the URL decides): the gateway's own call
    takes a page with no title as still loading until a second look agrees, and
    about:blank has none.
    """
    answer = text_of(await gateway._dispatch("browser_snapshot", {}))
    return normalize_snapshot(answer, gateway.plan.run_dir).url


async def _tabs_come_to(gateway: BrowserGateway, count: int) -> bool:
    """Whether our DevTools session comes to see ``count`` tabs within a few seconds.

    It hears of a tab closed (by Playwright MCP, or a page Playwright opened for itself to
    read or clear the storage) a moment after the close was answered.
    """
    with contextlib.suppress(AssertionError):
        await until(lambda: tab_count(gateway) == count, within=5.0, what=f"{count} tabs")
    return tab_count(gateway) == count


async def _forget_storage(gateway: BrowserGateway, origins: list[str]) -> None:
    """Every cookie, and ``origins``' storage (local storage, caches, service workers,
    IndexedDB); :func:`_holds_nothing` checks it worked, for every origin Playwright
    remembers."""
    # Chromium clears an origin's data when a page asks, not the browser's own target.
    page = next(
        (session for session, kind in gateway.devtools.targets.items() if kind == "page"), None
    )
    for origin in origins if page is not None else ():
        await gateway.devtools.send(
            page,
            lambda send, to, origin=origin: send.Storage.clearDataForOrigin(
                {"origin": origin, "storageTypes": "all"}, to
            ),
        )
    await gateway.devtools.send(None, lambda send, to: send.Storage.clearCookies({}, to))


#: Playwright forgets the origins it remembers, and the HTTP cache, once they read blank;
#: ``forgotten`` names them, so the reset clears what that read does not show (service
#: workers, caches, file systems) for any origin the run left before its end.
#:
#: Its public way, ``setStorageState({cookies: [], origins: []})``, opens a page of its own
#: and visits every remembered origin to clear what the read had just shown empty: a
#: renderer started and stopped, most of a reset's CPU. This is that call's first line and
#: its last, on the context Playwright keeps behind the page (its in-process connection
#: maps a client object to it). A Playwright without them fails every reset, and
#: ``test_shared_run_browser.py`` says so (the runs no longer keep the one browser).
_FORGET_ORIGINS = (
    "const kept = page.context()._connection.toImpl(page.context());"
    " forgotten = [...kept._origins]; await kept.clearCache(); kept._origins.clear();"
)

#: Read on the one tab parked on the site the run ended on (an empty page Playwright
#: answers itself: no request leaves): Playwright reads that origin's storage in place and
#: opens a page of its own only for the other origins it remembers, where the read from
#: a blank tab opened one for every origin (a renderer started and stopped: most of a
#: reset's CPU). The tab's session storage for that site, which no other page reads, is
#: emptied there (the count after the clear shows the clear ran). When all of it reads
#: empty, Playwright forgets the origins in the same call (:data:`_FORGET_ORIGINS`), before
#: the tab leaves the site: one call and one way back to about:blank a reset, not two. The
#: answer ends with where the tab was left, from the page Playwright MCP shows (the tab it
#: runs the code on): no snapshot to read it from (0.05 CPU s a reset).
_READ_PARKED = """async (page) => {
  await page.route('**/*', (route) => route.fulfill({body: '<html></html>'}));
  let forgotten = null, state, session;
  try {
    if (PARK) await page.goto(PARK);
    state = await page.context().storageState({indexedDB: true});
    session = PARK ? await page.evaluate(() => {
      sessionStorage.clear(); return sessionStorage.length; }) : 0;
    const blank = !state.cookies.length && !state.origins.length && session === 0;
    if (blank) { FORGET }
  } finally {
    await page.unrouteAll({behavior: 'ignoreErrors'});
    await page.goto('about:blank');
  }
  return JSON.stringify({cookies: state.cookies, origins: state.origins, session, forgotten,
    url: page.url()});
}""".replace("FORGET", _FORGET_ORIGINS)


async def _holds_nothing(gateway: BrowserGateway, shown: list[str]) -> bool:
    """Whether no cookie and no storage is left for any origin Playwright remembers, read
    with the tab parked on the first of ``shown``, and the one tab is left on about:blank;
    if so, Playwright has forgotten those origins too (see :func:`_forget_origins`).

    An origin the run left before its end still holds what it stored: it is cleared as the
    others were, and everything read again once.
    """
    for _ in range(2):
        code = _READ_PARKED.replace("PARK", json.dumps(shown[0]) if shown else "null")
        result = await gateway._dispatch("browser_run_code_unsafe", {"code": code})
        state: Any = None if result.is_error else parse_saved_state(text_of(result))
        if not isinstance(state, dict) or state.get("session") != 0:
            return False
        if not state["cookies"] and not state["origins"]:
            forgotten = state.get("forgotten")
            if not isinstance(forgotten, list):
                return False
            # What the read does not show, for origins not cleared before it (the cookies
            # were, and read none).
            left_early = [origin for origin in forgotten if origin not in shown]
            if left_early:
                await _forget_storage(gateway, left_early)
            return state.get("url") == "about:blank" and await _tabs_come_to(gateway, 1)
        await _forget_storage(gateway, [origin["origin"] for origin in state["origins"]])
    return False


_RESET_FOR_REUSE = f"async (page) => {{ let forgotten; {_FORGET_ORIGINS} return 'reset'; }}"


async def _forget_origins(gateway: BrowserGateway) -> bool:
    """Have Playwright forget the origins the browser showed, once they are shown blank.

    Playwright reads the storage by visiting every origin it remembers, and remembers every
    origin ever shown: without this, each reset visits all earlier runs' sites again (a
    module of 57 runs took twice as long). The check before this one covered them.
    """
    result = await gateway._dispatch("browser_run_code_unsafe", {"code": _RESET_FOR_REUSE})
    return not result.is_error and await _tabs_come_to(gateway, 1)


async def local_storage_at(gateway: BrowserGateway, origin: str, *, forget: bool) -> Any:
    """The local storage items the browser holds for ``origin``, as ``[[name, value]]``.

    Read on a page of its own whose requests Playwright answers with an empty page: no
    request leaves, and no filter or judge is asked. ``forget`` has Playwright forget the
    origins again afterwards (the visit made it remember this one).
    """
    code = (
        "async (page) => { const probe = await page.context().newPage();"
        " await probe.route('**/*', (route) => route.fulfill({body: '<html></html>'}));"
        f" await probe.goto({json.dumps(origin)});"
        " const items = await probe.evaluate(() => Object.entries(localStorage));"
        " await probe.close(); return JSON.stringify(items); }"
    )
    tabs = tab_count(gateway)
    result = await gateway._dispatch("browser_run_code_unsafe", {"code": code})
    if result.is_error:
        raise MCPToolError(text_of(result))
    if not await _tabs_come_to(gateway, tabs):
        raise MCPToolError("the probe's page did not close")
    if forget and not await _forget_origins(gateway):
        raise MCPToolError("Playwright did not forget the origins")
    # The answer is JSON in the code's result, as a saved sign-in's is.
    return parse_saved_state(text_of(result))


async def session_storage_in_tab(gateway: BrowserGateway, origin: str) -> Any:
    """The session storage the selected tab holds for ``origin``, as ``[[name, value]]``.

    Read on the tab itself (session storage belongs to a tab), parked on an empty page
    Playwright answers (no request leaves), then left on about:blank again.
    """
    code = (
        "async (page) => { await page.route('**/*', (route) =>"
        " route.fulfill({body: '<html></html>'}));"
        f" try {{ await page.goto({json.dumps(origin)});"
        " return JSON.stringify(await page.evaluate(() => Object.entries(sessionStorage))); }"
        " finally { await page.unrouteAll({behavior: 'ignoreErrors'});"
        " await page.goto('about:blank'); } }"
    )
    result = await gateway._dispatch("browser_run_code_unsafe", {"code": code})
    if result.is_error:
        raise MCPToolError(text_of(result))
    return parse_saved_state(text_of(result))


async def select_opened_tab(gateway: BrowserGateway, index: int) -> None:
    """Select the tab a click opened, once Playwright MCP lists it.

    A click is answered once its page settles; on a busy machine Playwright MCP can hear of
    the pop-up after that, and selecting it at once fails ("Tab 1 not found")."""

    async def listed() -> bool:
        listing = text_of(await gateway._dispatch("browser_tabs", {"action": "list"}))
        return re.search(rf"^- {index}: ", listing, flags=re.MULTILINE) is not None

    await until(listed, within=10.0, what=f"tab {index} listed")
    await gateway.call("browser_tabs", {"action": "select", "index": index})


def tab_count(gateway: BrowserGateway) -> int:
    """The browser's tabs, as our DevTools session sees them."""
    return sum(1 for kind in gateway.devtools.targets.values() if kind == "page")


async def is_blank(gateway: BrowserGateway) -> bool:
    """Whether the browser holds no cookie and no origin's storage, with one blank tab."""
    state: Any = await gateway.storage_state()
    if state is None or state.get("cookies") or state.get("origins"):
        return False
    return await _on_one_blank_tab(gateway)
