"""The egress filter with the real Playwright MCP and Chromium: pages that try to leave, and fail.

The allowed site runs on 127.0.0.1 (as the practice sites do); the forbidden
host is 127.0.0.2, a second loopback address the service does not name. Its
own connection count is the ground truth: it must stay 0 whatever the page does.

The tests share one hardened browser and one filter, which follows each test's policy as a
filter started for it would (its connections ended, its counts at zero) and refuses
everything between tests; the browser is left on one blank tab. Starting a browser per
test was most of the module's CPU (30 -> 19 CPU s). The unhardened browser and the
service's own browser are started by their tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import ipaddress
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from subterminator_tui.browser.egress import EgressPolicy, EgressProxy, egress_filter
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.errors import MCPToolError
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.rules import load_services
from subterminator_tui.session.browser import open_service_browser
from subterminator_tui.settings import load_settings
from tests.conftest import in_module_loop, module_gateway, wait_until_no_profile_processes
from tests.integration.egress_sites import AdversarialSite, CountingServer, adversarial_pages
from tests.support.polling import until
from tests.support.shared_browser import one_blank_tab, tab_count
from tests.support.sign_ins import sign_in

# The tests share one browser and filter (tests/conftest.py's module loop, where they live).
pytestmark = [pytest.mark.browser, in_module_loop]

FORBIDDEN = "127.0.0.2"
# Plays a public CDN: reachable for images, but not a place the top-level page may go.
ELSEWHERE = "127.0.0.3"
# Top-level pages are refused by their Fetch Metadata before the address is even looked at.
TOP_LEVEL = "top-level page outside allowed_domains"
NOT_NAMED = "127.0.0.2 is a loopback address, which allowed_domains does not name"
# Long enough for a slow machine; an event, not this timeout, ends a passing wait.
WAIT = 20.0


@pytest.fixture
def forbidden() -> Iterator[CountingServer]:
    """The host no page may reach, on 127.0.0.2."""
    with CountingServer(FORBIDDEN) as server:
        yield server


@pytest.fixture
def elsewhere() -> Iterator[CountingServer]:
    """A host outside allowed_domains that may serve subresources, on 127.0.0.3."""
    with CountingServer(ELSEWHERE) as server:
        yield server


@pytest.fixture
def site(forbidden: CountingServer, elsewhere: CountingServer) -> Iterator[AdversarialSite]:
    """The allowed site on 127.0.0.1, its pages aimed at the forbidden host."""
    with AdversarialSite(adversarial_pages(forbidden.base_url, elsewhere.base_url)) as server:
        yield server


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def module_filter() -> AsyncIterator[EgressProxy]:
    """One egress filter for the module's browser; each test has it follow its own policy."""
    async with egress_filter(EgressPolicy.for_domains([])) as proxy:
        yield proxy


@pytest_asyncio.fixture(loop_scope="module")
async def egress(
    module_filter: EgressProxy,
    site: AdversarialSite,
    elsewhere: CountingServer,
    demoflix: DemoflixServer,
) -> AsyncIterator[EgressProxy]:
    """The filter, judging for a service allowing the site's and the practice site's origins
    (127.0.0.3 plays a public CDN) as a filter started for this test would: its open
    connections end, its counts start over. After the test it refuses everything, its
    connections ended."""
    policy = EgressPolicy.for_domains([site.base_url, demoflix.base_url])
    cdn = (ipaddress.ip_address(ELSEWHERE), int(elsewhere.authority.rsplit(":", 1)[1]))
    await module_filter.follow(
        dataclasses.replace(policy, reachable_private=policy.reachable_private | {cdn})
    )
    yield module_filter
    await module_filter.follow(EgressPolicy.for_domains([]))


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def module_guarded(
    module_filter: EgressProxy, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[BrowserGateway]:
    """One hardened browser behind the module's filter: what these tests judge is the
    filter's answer to each request, not a fresh profile (the tests about those start
    their own). No process outlives the module."""
    root = tmp_path_factory.mktemp("egress-browser")
    async with module_gateway(root, proxy_server=module_filter.url) as started:
        yield started


@pytest_asyncio.fixture(loop_scope="module")
async def guarded(module_guarded: BrowserGateway, egress: EgressProxy) -> BrowserGateway:
    """The module's browser behind this test's filter, on one blank tab (a popup the last
    test opened is closed, a dialog it left is dismissed)."""
    # A page the last test left still arriving can interrupt the first try.
    for _ in range(3):
        if await one_blank_tab(module_guarded):
            break
    assert (await module_guarded.snapshot()).url == "about:blank"
    assert tab_count(module_guarded) == 1
    return module_guarded


async def assert_never_reached(
    guarded: BrowserGateway, egress: EgressProxy, site: AdversarialSite, forbidden: CountingServer
) -> str:
    """Wait for the proxy's refusal, load one more allowed page, and check the ground truth."""
    async with asyncio.timeout(WAIT):
        blocked = await egress.counters.wait_for_block(FORBIDDEN)
    # A later page load: anything the browser would still send has had its turn.
    await guarded.call("browser_navigate", {"url": f"{site.base_url}/ok"})
    assert forbidden.connections == 0
    return blocked[0].reason


async def open_page(guarded: BrowserGateway, site: AdversarialSite, path: str) -> None:
    """Navigate to ``path``; a navigation the proxy refused may surface as a tool error."""
    with contextlib.suppress(MCPToolError):
        await guarded.call("browser_navigate", {"url": site.base_url + path})


async def shows_text(guarded: BrowserGateway, text: str) -> bool:
    """Whether ``text`` comes onto the page within Playwright MCP's wait (five seconds)."""
    try:
        await guarded.call("browser_wait_for", {"text": text})
    except MCPToolError:
        return False
    return True


async def click(guarded: BrowserGateway, role: str, name: str) -> None:
    """Click the element of ``role`` and ``name`` on the current page."""
    page = await guarded.snapshot()
    await guarded.call("browser_click", {"target": page.ref_of(role, name)})


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/meta-refresh", TOP_LEVEL),
        ("/script-location", TOP_LEVEL),
        ("/iframe", NOT_NAMED),
        ("/fetch", NOT_NAMED),
        ("/img", NOT_NAMED),
    ],
)
async def test_a_page_cannot_reach_a_forbidden_loopback_address_by_itself(
    guarded: BrowserGateway,
    egress: EgressProxy,
    site: AdversarialSite,
    forbidden: CountingServer,
    path: str,
    why: str,
) -> None:
    """Meta refresh, location=, iframe, fetch, <img> to 127.0.0.2: 0 requests arrive."""
    await open_page(guarded, site, path)
    assert why in await assert_never_reached(guarded, egress, site, forbidden)


async def test_a_websocket_never_leaves_the_hardened_browser(
    guarded: BrowserGateway, egress: EgressProxy, site: AdversarialSite, forbidden: CountingServer
) -> None:
    """The socket-refusing rule fails the handshake in the browser: the proxy sees nothing."""
    await open_page(guarded, site, "/websocket")
    # Up to WAIT, not Playwright MCP's five seconds: a machine running the whole suite once
    # took longer than that to start the page's script (the socket's failure).
    await until(lambda: shows_text(guarded, "Socket failed"), within=WAIT, what="the failure")
    await guarded.call("browser_navigate", {"url": f"{site.base_url}/ok"})
    assert forbidden.connections == 0
    # Refused before the proxy: neither let through nor refused there.
    assert FORBIDDEN not in egress.counters.blocked_hosts()
    assert egress.counters.allowed[FORBIDDEN] == 0


async def test_the_proxy_refuses_a_websocket_a_browser_lets_out(
    launch_plan: LaunchPlan, egress: EgressProxy, site: AdversarialSite, forbidden: CountingServer
) -> None:
    """The second layer alone (a browser without the socket rule): the proxy refuses it."""
    plan = dataclasses.replace(launch_plan, proxy_server=egress.url, hardened=False)
    async with BrowserGateway(plan) as unhardened:
        await open_page(unhardened, site, "/websocket")
        assert NOT_NAMED in await assert_never_reached(unhardened, egress, site, forbidden)
    assert wait_until_no_profile_processes(launch_plan.profile_dir) == []


@pytest.mark.parametrize("via", ["/302", "/redirect"])
async def test_redirects_to_a_forbidden_address_are_refused_with_a_page(
    guarded: BrowserGateway,
    egress: EgressProxy,
    site: AdversarialSite,
    forbidden: CountingServer,
    via: str,
) -> None:
    """A 302 and an open redirect on the allowed host land on the proxy's refusal page."""
    landed = await guarded.call(
        "browser_navigate", {"url": f"{site.base_url}{via}?to={forbidden.base_url}/x"}
    )
    assert "SubTerminator blocked a request to 127.0.0.2" in landed.snapshot.content
    assert TOP_LEVEL in await assert_never_reached(guarded, egress, site, forbidden)


@pytest.mark.parametrize(
    ("path", "role", "name"),
    [
        ("/form-post", "button", "Send"),
        ("/target-blank", "link", "Open"),
        ("/window-open", "button", "Pop"),
    ],
)
async def test_clicks_that_leave_for_a_forbidden_address_are_refused(
    guarded: BrowserGateway,
    egress: EgressProxy,
    site: AdversarialSite,
    forbidden: CountingServer,
    path: str,
    role: str,
    name: str,
) -> None:
    """A form POST, a target=_blank link and window.open reach nothing on 127.0.0.2."""
    await open_page(guarded, site, path)
    await click(guarded, role, name)
    await assert_never_reached(guarded, egress, site, forbidden)


async def test_ipv6_loopback_is_refused_when_not_named(
    guarded: BrowserGateway, egress: EgressProxy, site: AdversarialSite
) -> None:
    """A fetch to [::1], which allowed_domains does not name, never arrives."""
    with CountingServer("::1") as v6:
        site.pages["/v6"] = f"<title>V6</title><script>fetch('{v6.base_url}/x')</script>"
        await open_page(guarded, site, "/v6")
        async with asyncio.timeout(WAIT):
            blocked = await egress.counters.wait_for_block("[::1]")
        await guarded.call("browser_navigate", {"url": f"{site.base_url}/ok"})
        assert v6.connections == 0
    assert "loopback" in blocked[0].reason


async def test_a_public_host_serves_subresources_but_not_the_top_level_page(
    guarded: BrowserGateway, egress: EgressProxy, site: AdversarialSite, elsewhere: CountingServer
) -> None:
    """An image from a host outside allowed_domains loads; following its link is refused."""
    await open_page(guarded, site, "/elsewhere")
    async with asyncio.timeout(WAIT):
        await egress.counters.wait_for_allowed(ELSEWHERE)
    await click(guarded, "link", "Leave")
    async with asyncio.timeout(WAIT):
        blocked = await egress.counters.wait_for_block(ELSEWHERE)
    assert "top-level page outside allowed_domains" in blocked[0].reason
    assert "/cdn.png" in elsewhere.paths
    assert "/leave" not in elsewhere.paths


async def test_the_allowed_site_works_end_to_end_through_the_proxy(
    guarded: BrowserGateway, egress: EgressProxy, demoflix: DemoflixServer
) -> None:
    """Signing in to the practice site on 127.0.0.1 works, its traffic going through the proxy."""
    await sign_in(guarded, demoflix)
    assert (await guarded.snapshot()).title == "Account - Demoflix"
    # Loopback is proxied too (Playwright's "<-loopback>"), or the proxy would have seen nothing.
    assert egress.counters.allowed["127.0.0.1"] >= 3
    assert "127.0.0.1" not in egress.counters.blocked_hosts()


async def test_service_browser_runs_every_service_behind_its_egress_filter(
    launch_plan: LaunchPlan, tmp_path: Path
) -> None:
    """open_service_browser starts the proxy from allowed_domains and the browser uses it."""
    service = load_services(user_file=None).get("demoflix")
    async with open_service_browser(
        service,
        load_settings(),
        headless=True,
        profile_dir=tmp_path / "service-profile",
        runs_root=tmp_path / "service-runs",
    ) as opened:
        assert opened.egress is not None
        assert opened.gateway.plan.proxy_server == opened.egress.url
        page = (await opened.gateway.call("browser_navigate", {"url": opened.start_url})).snapshot
        assert page.url.startswith("http://127.0.0.1:")
        assert opened.egress.counters.allowed["127.0.0.1"] >= 1
        # The practice site's address means its port only: another local server stays closed.
        site_origin = page.url.split("/", 3)[:3]
        assert opened.service.allowed_domains == ("/".join(site_origin),)
        with CountingServer("127.0.0.1") as other:
            await opened.gateway.call("browser_navigate", {"url": other.base_url + "/mcp"})
            assert other.connections == 0
    assert wait_until_no_profile_processes(tmp_path / "service-profile") == []
