"""The egress proxy over real loopback sockets, spoken to the way a browser speaks to its proxy."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator, Iterator

import pytest

from subterminator_tui.browser.egress import EgressPolicy, EgressProxy, egress_filter
from subterminator_tui.browser.egress.addresses import IPAddress
from subterminator_tui.browser.egress.proxy import resolve_host
from subterminator_tui.browser.egress.requests import MAX_HEAD_BYTES
from tests.integration.egress_sites import CountingServer

WAIT = 10.0


@pytest.fixture
def allowed_site() -> Iterator[CountingServer]:
    """A site on 127.0.0.1, the address the policy names."""
    with CountingServer("127.0.0.1") as server:
        yield server


@pytest.fixture
async def proxy(allowed_site: CountingServer) -> AsyncIterator[EgressProxy]:
    """A running proxy for ``allowed_domains = ["http://127.0.0.1:PORT"]`` (the allowed site)."""
    async with egress_filter(EgressPolicy.for_domains([allowed_site.base_url])) as running:
        yield running


async def test_another_port_of_the_named_address_is_refused(proxy: EgressProxy) -> None:
    """Another local server on 127.0.0.1 (serve's own /mcp, say) is not the allowed site."""
    with CountingServer("127.0.0.1") as other:
        plain = await exchange(
            proxy, f"GET {other.base_url}/mcp HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        tunnel = await exchange(
            proxy, f"CONNECT {other.authority} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        assert other.connections == 0
    assert plain.startswith(b"HTTP/1.1 403") and tunnel.startswith(b"HTTP/1.1 403")
    assert b"another port than" in plain


async def exchange(proxy: EgressProxy, head: bytes) -> bytes:
    """Send ``head`` to the proxy and read its whole answer."""
    port = int(proxy.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head)
        async with asyncio.timeout(WAIT):
            return await reader.read()
    finally:
        writer.close()


async def test_a_plain_request_to_the_named_address_goes_through(
    proxy: EgressProxy, allowed_site: CountingServer
) -> None:
    """An absolute-form GET to 127.0.0.1 reaches the site and its answer comes back."""
    answer = await exchange(
        proxy,
        f"GET {allowed_site.base_url}/a HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
    )
    assert answer.startswith(b"HTTP/1.0 200")
    assert allowed_site.paths == ["/a"]
    assert proxy.counters.allowed["127.0.0.1"] == 1


async def test_a_tunnel_to_the_named_address_relays_bytes(
    proxy: EgressProxy, allowed_site: CountingServer
) -> None:
    """CONNECT answers 200 and then relays whatever is sent inside the tunnel."""
    inner = f"GET /inside HTTP/1.1\r\nHost: {allowed_site.authority}\r\nConnection: close\r\n\r\n"
    answer = await exchange(
        proxy,
        f"CONNECT {allowed_site.authority} HTTP/1.1\r\nHost: x\r\n\r\n{inner}".encode(),
    )
    assert answer.startswith(b"HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200")
    assert allowed_site.paths == ["/inside"]


def _binds_on_127_0_0_1(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_a_server_on_another_loopback_address_holds_its_number_on_127_0_0_1() -> None:
    """Ports are per address: while a server lives on 127.0.0.2, nothing (the proxy above
    all, which binds as asyncio does, reusing addresses) gets its number on 127.0.0.1."""
    with CountingServer("127.0.0.2") as other:
        port = int(other.authority.rsplit(":", 1)[1])
        assert not _binds_on_127_0_0_1(port)
    assert _binds_on_127_0_0_1(port)


async def test_a_refusal_is_a_403_page_naming_host_and_reason(proxy: EgressProxy) -> None:
    """The browser shows 'SubTerminator blocked a request to HOST: why'."""
    with CountingServer("127.0.0.2") as forbidden:
        answer = await exchange(
            proxy, f"CONNECT {forbidden.authority} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        assert forbidden.connections == 0
    assert answer.startswith(b"HTTP/1.1 403 Forbidden")
    assert b"SubTerminator blocked a request to 127.0.0.2" in answer
    assert b"127.0.0.2 is a loopback address" in answer
    assert proxy.counters.blocked[0].host == "127.0.0.2"


async def test_an_allowed_name_that_resolves_to_loopback_is_refused() -> None:
    """DNS rebinding: allowed_domains = ["localhost"] still may not reach 127.0.0.1 by name."""
    async with egress_filter(EgressPolicy.for_domains(["localhost"])) as proxy:
        answer = await exchange(proxy, b"CONNECT localhost:443 HTTP/1.1\r\nHost: x\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 403")
    assert "localhost resolves to" in proxy.counters.blocked[0].reason


async def test_each_host_is_resolved_once_per_run(
    allowed_site: CountingServer,
) -> None:
    """A host is resolved once per run: a resolver that would rebind it is never asked again."""
    answers: list[list[IPAddress]] = [
        [ipaddress.ip_address("127.0.0.1")],
        [ipaddress.ip_address("127.0.0.2")],
    ]
    asked: list[str] = []

    async def rebinding(name: str, port: int) -> list[IPAddress]:
        asked.append(name)
        return answers[len(asked) - 1]

    policy = EgressPolicy.for_domains([allowed_site.base_url, "site.test"])
    proxy = EgressProxy(policy, resolver=rebinding)
    await proxy.start()
    try:
        port = allowed_site.authority.rsplit(":", 1)[1]
        first = await exchange(
            proxy, f"GET http://site.test:{port}/ HTTP/1.1\r\nHost: site.test\r\n\r\n".encode()
        )
        second = await exchange(
            proxy, f"GET http://site.test:{port}/ HTTP/1.1\r\nHost: site.test\r\n\r\n".encode()
        )
    finally:
        await proxy.close()
    assert asked == ["site.test"]
    assert first.startswith(b"HTTP/1.0 200")
    assert second.startswith(b"HTTP/1.0 200")
    assert allowed_site.connections == 2


async def test_an_oversized_head_is_refused(proxy: EgressProxy) -> None:
    """A head larger than the bound gets 431 without being parsed."""
    padding = "a" * (MAX_HEAD_BYTES + 10)
    answer = await exchange(proxy, f"GET http://x/ HTTP/1.1\r\nX-Pad: {padding}\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 431")


async def test_the_proxy_refuses_to_proxy_to_itself(proxy: EgressProxy) -> None:
    """A request back at the proxy's own port is refused, not looped."""
    authority = proxy.url.removeprefix("http://")
    answer = await exchange(proxy, f"CONNECT {authority} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert b"the proxy itself" in answer


async def test_close_ends_open_tunnels(allowed_site: CountingServer) -> None:
    """Closing the proxy ends a tunnel the browser still holds open."""
    proxy = EgressProxy(EgressPolicy.for_domains([allowed_site.base_url]))
    await proxy.start()
    port = int(proxy.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"CONNECT {allowed_site.authority} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    async with asyncio.timeout(WAIT):
        assert await reader.readuntil(b"\r\n\r\n") == b"HTTP/1.1 200 Connection established\r\n\r\n"
        await proxy.close()
        assert await reader.read() == b""
    writer.close()


async def test_the_system_resolver_reads_localhost() -> None:
    """resolve_host returns loopback addresses for localhost, deduplicated."""
    addresses = await resolve_host("localhost", 80)
    assert addresses
    assert all(address.is_loopback for address in addresses)
    assert len(addresses) == len(set(addresses))


async def test_a_filter_that_follows_a_new_policy_refuses_the_old_site(
    proxy: EgressProxy, allowed_site: CountingServer
) -> None:
    """After ``follow`` the running filter judges by the new run's policy only: the last
    run's site is refused, the new one reached, an open tunnel ends and the counts restart."""
    port = int(proxy.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"CONNECT {allowed_site.authority} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    async with asyncio.timeout(WAIT):
        assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
    assert proxy.counters.allowed["127.0.0.1"] == 1
    with CountingServer("127.0.0.1") as next_site:
        await proxy.follow(EgressPolicy.for_domains([next_site.base_url]))
        async with asyncio.timeout(WAIT):
            # The tunnel the old policy let through is closed by the filter.
            assert await reader.read() == b""
        writer.close()
        assert proxy.counters.allowed_total == 0
        old = await exchange(
            proxy, f"GET {allowed_site.base_url}/old HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        new = await exchange(
            proxy, f"GET {next_site.base_url}/new HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        assert next_site.paths == ["/new"]
    assert old.startswith(b"HTTP/1.1 403"), old
    assert new.startswith(b"HTTP/1.0 200"), new
    assert "/old" not in allowed_site.paths
