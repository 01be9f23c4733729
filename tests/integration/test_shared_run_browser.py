"""A browser lent to a worker's runs in turn carries nothing from one run into the next.

Tests share one browser across guarded runs (tests/support/shared_browser.py) to keep
``make test`` short; that is sound only if the second run starts as on a fresh browser.
The first run leaves a cookie, local storage, a second tab and a visited page behind;
the second run, on the same Chromium, sees none of it, and its egress filter follows
its own practice site only. Without the reset, the same leftovers do reach the second run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.interception import SendEverything
from subterminator_tui.browser.typed_values import IgnoreTypedValues
from subterminator_tui.reach.reachability import Reachability
from subterminator_tui.session import RunRequest, prepared_run
from tests.conftest import browser_parts_missing, in_module_loop
from tests.support.polling import until
from tests.support.shared_browser import (
    SharedBrowser,
    is_blank,
    local_storage_at,
    session_storage_in_tab,
    tab_count,
)
from tests.support.trap_runs import ApprovingPerson, run_trap

pytestmark = [pytest.mark.browser, in_module_loop]

COOKIE = "left-by-the-first-run"


@dataclass(frozen=True)
class FirstRun:
    """What the first run left behind, and where."""

    node_pid: int | None
    origin: str


def demoflix_request(tmp_path: Path, name: str) -> RunRequest:
    """A practice run with the playbook (no model needed: these runs are never driven)."""
    return RunRequest("demoflix", pilot="playbook", headless=True, profile_dir=str(tmp_path / name))


async def leave_state_behind(shared: SharedBrowser, tmp_path: Path) -> FirstRun:
    """A first run that leaves a cookie, local storage, a second tab and a page open."""
    async with prepared_run(demoflix_request(tmp_path, "first"), start_browser=shared) as run:
        gateway = run.browser.gateway
        parts = urlsplit(run.browser.start_url)
        origin = f"{parts.scheme}://{parts.netloc}"
        await gateway.add_storage_state(
            {
                "cookies": [
                    {
                        "name": COOKIE,
                        "value": "1",
                        "domain": parts.hostname,
                        "path": "/",
                        "expires": -1,
                        "httpOnly": False,
                        "secure": False,
                        "sameSite": "Lax",
                    }
                ],
                "origins": [{"origin": origin, "localStorage": [{"name": COOKIE, "value": "1"}]}],
            }
        )
        await gateway.call("browser_navigate", {"url": run.browser.start_url})
        await gateway.call("browser_tabs", {"action": "new"})
        await until(lambda: tab_count(gateway) == 2, what="the first run's second tab")
        state = await gateway.storage_state()
        assert COOKIE in [cookie["name"] for cookie in state["cookies"]]
        return FirstRun(gateway.node_pid, origin)


async def test_a_second_run_on_the_shared_browser_sees_nothing_of_the_first(
    tmp_path: Path,
) -> None:
    """Same Chromium, yet no cookie, no storage, one blank tab, a fresh gateway memory and
    watch, and an egress filter that refuses the first run's site."""
    if missing := browser_parts_missing():
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path / "shared")
    try:
        first = await leave_state_behind(shared, tmp_path)
        assert shared.gateway is not None
        # Read by origin: Playwright's own read of the storage in the second run visits
        # only the origins it remembers, and the reset has it forget them.
        assert await local_storage_at(shared.gateway, first.origin, forget=True) == []
        async with prepared_run(
            demoflix_request(tmp_path, "second"), start_browser=shared
        ) as second:
            gateway, egress = second.browser.gateway, second.browser.egress
            assert gateway.node_pid == first.node_pid, "the browser was not shared"
            assert shared.starts == 1
            state = await gateway.storage_state()
            assert state == {"cookies": [], "origins": []}, state
            assert tab_count(gateway) == 1
            assert gateway.last_snapshot is None
            assert (await gateway.snapshot()).url == "about:blank"
            assert isinstance(gateway.requests.policy, SendEverything)
            assert isinstance(gateway.typing.listener, IgnoreTypedValues)
            assert egress is not None and egress.counters.allowed_total == 0
            reach = second.browser.reach
            assert isinstance(reach, Reachability)
            assert egress.policy.reach is reach
            if urlsplit(second.browser.start_url).port != urlsplit(first.origin).port:
                assert egress.policy.document_refusal(
                    "127.0.0.1", urlsplit(first.origin).port or 80
                ), egress.policy
    finally:
        await shared.aclose()


async def test_without_the_reset_the_first_runs_state_reaches_the_second(
    tmp_path: Path,
) -> None:
    """The proof the check above can fail: skip the reset, and the cookie and tab stay."""
    if missing := browser_parts_missing():
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path / "shared", resets=False)
    try:
        first = await leave_state_behind(shared, tmp_path)
        assert shared.gateway is not None
        assert await local_storage_at(shared.gateway, first.origin, forget=False) == [[COOKIE, "1"]]
        async with prepared_run(
            demoflix_request(tmp_path, "second"), start_browser=shared
        ) as second:
            gateway = second.browser.gateway
            assert gateway.node_pid == first.node_pid
            state = await gateway.storage_state()
            assert COOKIE in [cookie["name"] for cookie in state["cookies"]]
            assert first.origin in [origin["origin"] for origin in state["origins"]]
            await until(lambda: tab_count(gateway) == 2, what="the first run's second tab")
    finally:
        await shared.aclose()


#: An origin the first run stored something for, though no page of it is open at the end.
ELSEWHERE = "http://127.0.0.1:8089"


async def test_what_a_run_left_in_a_site_it_left_and_in_its_tab_is_gone(tmp_path: Path) -> None:
    """The reset reads the storage with the tab parked on the run's last site: a site the
    run stored something for and then left, and the session storage of the tab itself
    (read by no other page), are emptied too, on the same browser."""
    if missing := browser_parts_missing():
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path / "shared")
    try:
        async with prepared_run(demoflix_request(tmp_path, "first"), start_browser=shared) as run:
            gateway = run.browser.gateway
            parts = urlsplit(run.browser.start_url)
            origin = f"{parts.scheme}://{parts.netloc}"
            # Playwright adds it on a page of its own (its requests answered by Playwright).
            gateway.requests.judge_with(SendEverything())
            await gateway.add_storage_state(
                {
                    "cookies": [],
                    "origins": [
                        {"origin": ELSEWHERE, "localStorage": [{"name": COOKIE, "value": "1"}]}
                    ],
                }
            )
            await gateway.call("browser_navigate", {"url": run.browser.start_url})
            # Past the gateway's allowlist: the page itself stores it, as a site's script would.
            await gateway._dispatch(
                "browser_evaluate", {"function": f"() => sessionStorage.setItem('{COOKIE}', '1')"}
            )
            assert await local_storage_at(gateway, ELSEWHERE, forget=False) == [[COOKIE, "1"]]
        assert shared.gateway is not None and shared.starts == 1
        assert await session_storage_in_tab(shared.gateway, origin) == []
        assert await local_storage_at(shared.gateway, ELSEWHERE, forget=True) == []
        assert await is_blank(shared.gateway)
    finally:
        await shared.aclose()


async def test_without_the_reset_a_tabs_session_storage_stays(tmp_path: Path) -> None:
    """The proof the session storage check above can fail: a tab keeps its session storage
    for a site when it leaves it and comes back."""
    if missing := browser_parts_missing():
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path / "shared", resets=False)
    try:
        async with prepared_run(demoflix_request(tmp_path, "first"), start_browser=shared) as run:
            gateway = run.browser.gateway
            parts = urlsplit(run.browser.start_url)
            await gateway.call("browser_navigate", {"url": run.browser.start_url})
            # Past the gateway's allowlist: the page itself stores it, as a site's script would.
            await gateway._dispatch(
                "browser_evaluate", {"function": f"() => sessionStorage.setItem('{COOKIE}', '1')"}
            )
            await gateway.call("browser_navigate", {"url": "about:blank"})
            gateway.requests.judge_with(SendEverything())
            left = await session_storage_in_tab(gateway, f"{parts.scheme}://{parts.netloc}")
            assert left == [[COOKIE, "1"]]
    finally:
        await shared.aclose()


async def test_runs_in_a_row_keep_the_one_browser(tmp_path: Path) -> None:
    """Three guarded runs, each on its own practice site and judging its own requests:
    every reset after them works, so they start one browser.

    Playwright reads the storage by visiting every origin it remembers, and it remembers
    every origin ever shown. Before the reset had it forget them, the last run's judge
    refused the earlier runs' sites, so every second reset failed and replaced the browser.
    """
    if missing := browser_parts_missing():
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path / "shared")
    try:
        for trap in ("trap-iframe", "trap-prompt", "trap-meta-refresh"):
            await run_trap(trap, ApprovingPerson(), tmp_path / trap, shared)
        assert shared.starts == 1
        assert shared.gateway is not None and await is_blank(shared.gateway)
    finally:
        await shared.aclose()


async def test_a_run_asking_for_another_browser_gets_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's browser serves every module's runs: a run whose settings ask for a
    browser started otherwise (here its own call timeout) is never lent the last one."""
    if missing := browser_parts_missing():
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path / "shared")

    async def lent(name: str) -> BrowserGateway:
        """The browser a run on the practice site's start page was lent."""
        async with prepared_run(demoflix_request(tmp_path, name), start_browser=shared) as run:
            gateway = run.browser.gateway
            await gateway.call("browser_navigate", {"url": run.browser.start_url})
        return gateway

    try:
        first = await lent("first")
        assert await lent("same") is first
        monkeypatch.setenv("SUBTERMINATOR_CALL_TIMEOUT", "47")
        other = await lent("other")
        assert other is not first
        assert other.process.call_timeout == 47
        assert shared.starts == 2
    finally:
        await shared.aclose()


async def test_a_reset_cut_short_replaces_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run cancelled where it stood (an app closed at its checkpoint) can be cancelled
    again while the browser is reset: the half-reset browser, its last run's judge still
    holding requests, is replaced, never lent to the next run.

    Lent, it held the next run's first page: the app's next run never reached its
    checkpoint (tests/tui/test_app_pilot.py, the guidance after the model's words).
    """
    if missing := browser_parts_missing():
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path / "shared")

    async def cut_short() -> bool:
        raise asyncio.CancelledError

    try:
        monkeypatch.setattr(shared, "_reset", cut_short)
        with pytest.raises(asyncio.CancelledError):
            async with prepared_run(demoflix_request(tmp_path, "first"), start_browser=shared):
                pass
        monkeypatch.undo()
        assert shared.gateway is not None and shared.gateway.alive
        first = shared.gateway.node_pid
        async with prepared_run(demoflix_request(tmp_path, "second"), start_browser=shared) as run:
            assert run.browser.gateway.node_pid != first
        assert shared.starts == 2
    finally:
        await shared.aclose()
