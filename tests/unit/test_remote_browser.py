"""Remote browsers: the settings that name one, Playwright MCP's options, the standalone filter."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from subterminator_tui.browser.egress import EgressPolicy, EgressProxy
from subterminator_tui.browser.remote import RemoteBrowser
from subterminator_tui.cli.egress import parse_listen
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.serve.sessions.page_changes import PageChanges
from subterminator_tui.settings import load_settings
from tests.support.launch_plans import make_plan

CDP = "http://10.0.3.7:9222"
EGRESS = "http://127.0.0.1:3128"


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"browser_backend": "cdp"}, "needs browser_endpoint"),
        ({"browser_backend": "cdp", "browser_endpoint": "ftp://x:1"}, "needs browser_endpoint"),
        ({"browser_backend": "endpoint", "browser_endpoint": CDP}, "a ws/wss URL"),
        ({"browser_backend": "cdp", "browser_endpoint": CDP}, "needs remote_egress"),
        (
            {"browser_backend": "cdp", "browser_endpoint": CDP, "remote_egress": "127.0.0.1"},
            "needs remote_egress",
        ),
        ({"browser_endpoint": CDP}, "only apply to a remote browser"),
        ({"remote_egress": EGRESS}, "only apply to a remote browser"),
        ({"browser_backend": "ssh"}, "browser_backend: Input should be"),
    ],
)
def test_incomplete_remote_settings_are_refused_naming_the_key(
    settings: dict[str, str], named: str
) -> None:
    """Each half-configured remote browser is a ConfigurationError that says what is missing."""
    with pytest.raises(ConfigurationError, match=named):
        load_settings(**settings)


def test_remote_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """SUBTERMINATOR_BROWSER_BACKEND and friends set a remote browser."""
    monkeypatch.setenv("SUBTERMINATOR_BROWSER_BACKEND", "endpoint")
    monkeypatch.setenv("SUBTERMINATOR_BROWSER_ENDPOINT", "ws://10.0.3.7:3000/pw")
    monkeypatch.setenv("SUBTERMINATOR_REMOTE_EGRESS", EGRESS)
    settings = load_settings()
    assert (settings.browser_backend, settings.remote_egress) == ("endpoint", EGRESS)


@pytest.mark.parametrize(
    ("backend", "option"), [("cdp", "--cdp-endpoint"), ("endpoint", "--endpoint")]
)
def test_a_remote_plan_connects_isolated_and_starts_nothing_here(
    tmp_path: Path, backend: str, option: str
) -> None:
    """Remote: the endpoint option and --isolated; no profile, executable, headless or sandbox."""
    remote = RemoteBrowser(backend, CDP, EGRESS)  # type: ignore[arg-type]
    plan = dataclasses.replace(
        make_plan(tmp_path, no_sandbox=True), browser=None, remote=remote, proxy_server=EGRESS
    )
    arguments = plan.arguments()
    assert arguments[arguments.index(option) + 1] == CDP
    assert "--isolated" in arguments
    for local_only in ("--user-data-dir", "--executable-path", "--headless", "--no-sandbox"):
        assert local_only not in arguments
    # The filter beside the remote browser is the context's proxy too.
    assert arguments[arguments.index("--proxy-server") + 1] == EGRESS
    assert CDP in plan.browser_description


def test_listen_addresses_are_parsed_or_refused() -> None:
    """HOST:PORT and [v6]:PORT parse; anything else is a clear error."""
    assert parse_listen("127.0.0.1:3128") == ("127.0.0.1", 3128)
    assert parse_listen("[::1]:0") == ("::1", 0)
    for bad in ("3128", "host:", "host:99999", ":80"):
        with pytest.raises(ConfigurationError, match="HOST:PORT"):
            parse_listen(bad)


async def test_the_standalone_filter_refuses_a_loop_through_itself() -> None:
    """On a chosen address, a request back at the proxy's own port is refused (403)."""
    proxy = EgressProxy(EgressPolicy.for_domains(["127.0.0.1"]), listen=("127.0.0.1", 0))
    await proxy.start()
    try:
        port = int(proxy.url.rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        status = await reader.readline()
        writer.close()
        assert b" 403 " in status
        assert "points back at the proxy" in proxy.counters.blocked[0].reason
    finally:
        await proxy.close()


async def test_only_what_reaches_the_proxy_is_a_loop_through_it() -> None:
    """The proxy's own address on its port, that address as IPv4-mapped IPv6 and the
    unspecified address (the kernel connects it to this machine) are loops; another
    loopback address on the same port is another socket, judged by the policy. Run 48
    refused a practice sign-in provider on 127.0.0.2 whose port matched the proxy's."""
    policy = EgressPolicy.for_domains(["127.0.0.1", "127.0.0.2", "0.0.0.0"])
    proxy = EgressProxy(policy, listen=("127.0.0.1", 0))
    await proxy.start()
    try:
        port = int(proxy.url.rsplit(":", 1)[1])

        async def status_of(host: str) -> bytes:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET http://{host}:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            await writer.drain()
            status = await reader.readline()
            writer.close()
            return status

        for host in ("127.0.0.1", "[::ffff:127.0.0.1]", "0.0.0.0"):
            assert b" 403 " in await status_of(host), host
        loops = [entry.reason for entry in proxy.counters.blocked]
        assert loops == ["the request points back at the proxy itself"] * 3
        # Another loopback address on the port: the policy's to judge (it names 127.0.0.2
        # on port 80 only, and refuses), never refused as a loop.
        await status_of("127.0.0.2")
        (judged,) = proxy.counters.blocked[3:]
        assert judged.host == "127.0.0.2" and "points back at the proxy" not in judged.reason
    finally:
        await proxy.close()


async def test_page_changes_wake_a_watcher_and_time_out_without_one() -> None:
    """A bump wakes whoever waits on the old version (even one not yet waiting); without one
    the wait ends unchanged."""
    changes = PageChanges()
    waiting = asyncio.ensure_future(changes.wait_after(0, 30.0))
    changes.bump()
    assert await waiting == 1
    assert await changes.wait_after(1, 0.01) == 1
