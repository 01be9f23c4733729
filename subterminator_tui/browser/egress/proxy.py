"""The per-run egress proxy: every request the browser makes is checked here first.

Chromium is started with ``--proxy-server`` pointing at this proxy, and
Playwright adds ``<-loopback>`` to the bypass list, so loopback goes through it
too. Redirects, meta refreshes, form posts, scripts, frames, fetches,
WebSockets and new tabs all reach the network only through here.

Each host is resolved once per run and the proxy connects to the address it
checked, never to the name again, so a DNS answer cannot change between the
check and the connection, nor between one request and the next (DNS
rebinding). A plain-http request is sent with ``Connection: close``: one
request per connection, each one checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from subterminator_tui.browser.egress.addresses import IPAddress, host_text
from subterminator_tui.browser.egress.counters import BlockedRequest, EgressCounters
from subterminator_tui.browser.egress.policy import EgressPolicy, is_document_navigation
from subterminator_tui.browser.egress.relay import relay
from subterminator_tui.browser.egress.requests import (
    HEAD_END,
    MAX_HEAD_BYTES,
    ProxyRequest,
    RequestHeadError,
    parse_request_head,
)
from subterminator_tui.browser.egress.responses import TUNNEL_ESTABLISHED, refusal_response

logger = logging.getLogger(__name__)

#: Resolves a host name and port to addresses, in preference order.
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]

_LISTEN_HOST = "127.0.0.1"


class _Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


async def resolve_host(name: str, port: int) -> list[IPAddress]:
    """The system resolver's addresses for ``name``, deduplicated, in its order."""
    infos = await asyncio.get_running_loop().getaddrinfo(name, port, type=socket.SOCK_STREAM)
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _canonical, sockaddr in infos:
        # An IPv6 sockaddr may carry a zone ("fe80::1%eth0"); the zone never makes it public.
        address = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


class EgressProxy:
    """An HTTP proxy on 127.0.0.1 that lets one run's browser reach only what its policy allows."""

    def __init__(
        self,
        policy: EgressPolicy,
        *,
        resolver: Resolver = resolve_host,
        head_timeout: float = 15.0,
        connect_timeout: float = 10.0,
        idle_timeout: float = 300.0,
        listen: tuple[str, int] = (_LISTEN_HOST, 0),
    ) -> None:
        self.policy = policy
        #: Where it listens: a free loopback port for a run's own filter; ``subterminator
        #: egress`` (beside a remote browser) may name another address and port.
        self.listen_host, self._port = listen
        self.counters = EgressCounters()
        #: Loopback ports no page may reach: the browser's own DevTools endpoint.
        self.refused_ports: set[int] = set()
        self._resolver = resolver
        self._head_timeout = head_timeout
        self._connect_timeout = connect_timeout
        self._idle_timeout = idle_timeout
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        # One answer per host for the whole run: a later answer cannot rebind it.
        self._resolved: dict[str, list[IPAddress]] = {}

    @property
    def url(self) -> str:
        """The address to give Chromium as ``--proxy-server``."""
        if self._server is None:
            raise RuntimeError("the egress proxy is not running")
        host = f"[{self.listen_host}]" if ":" in self.listen_host else self.listen_host
        return f"http://{host}:{self._port}"

    async def start(self) -> None:
        """Listen (by default on a free loopback port)."""
        self._server = await asyncio.start_server(
            self._serve, self.listen_host, self._port, limit=MAX_HEAD_BYTES
        )
        self._port = self._server.sockets[0].getsockname()[1]

    async def follow(self, policy: EgressPolicy) -> None:
        """Judge by ``policy`` from now on, as a filter started for it would: the open
        connections (judged by the old policy) end, the counts and the DNS answers start
        over. The port stays, so a browser already pointed here keeps its filter."""
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        self.policy = policy
        self.counters = EgressCounters()
        self._resolved = {}

    async def close(self) -> None:
        """Stop listening and end every open connection."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await server.wait_closed()

    # --- one connection ----------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            await self._handle(reader, writer)
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            pass  # the browser or the site went away, or stalled; nothing to answer
        except asyncio.CancelledError:
            # close() ends connections so; ending quietly keeps Python 3.11's
            # stream callback from logging the cancelled task as an error.
            pass
        except Exception:
            logger.exception("egress proxy: unexpected error; the connection is dropped")
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(HEAD_END), self._head_timeout)
        except asyncio.LimitOverrunError:
            writer.write(refusal_response(431, "?", "The request head is too large."))
            return
        try:
            request = parse_request_head(head)
        except RequestHeadError as error:
            self.counters.record_blocked(BlockedRequest("?", 0, str(error), error.status))
            writer.write(refusal_response(error.status, "?", str(error)))
            return
        host = host_text(request.host)
        try:
            address = await self._checked_address(request)
            site = await self._connect(address, request.port)
        except _Refused as refused:
            entry = BlockedRequest(host, request.port, refused.reason, refused.status)
            if refused.status == 403:
                logger.info("egress blocked %s:%s: %s", host, request.port, refused.reason)
                self.counters.record_blocked(entry)
            else:
                self.counters.record_unreachable(entry)
            writer.write(refusal_response(refused.status, host, refused.reason))
            return
        self.counters.record_allowed(host)
        try:
            if request.is_tunnel:
                writer.write(TUNNEL_ESTABLISHED)
            else:
                site[1].write(request.origin_head())
            await relay((reader, writer), site, idle_timeout=self._idle_timeout)
        finally:
            site[1].close()

    async def _checked_address(self, request: ProxyRequest) -> IPAddress:
        """The address to connect to, after every check; raises _Refused."""
        if not request.is_tunnel and is_document_navigation(request.header_map()):
            reason = self.policy.document_refusal(request.host, request.port)
            if reason is not None:
                raise _Refused(403, reason)
        if isinstance(request.host, str):
            addresses = await self._resolve_once(request.host, request.port)
        else:
            addresses = [request.host]
        for address in addresses:
            if request.port == self._port and self._is_own_address(address):
                raise _Refused(403, "the request points back at the proxy itself")
            if request.port in self.refused_ports and address.is_loopback:
                raise _Refused(403, "the request points at the browser's DevTools endpoint")
            reason = self.policy.address_refusal(request.host, address, request.port)
            if reason is not None:
                raise _Refused(403, reason)
        return addresses[0]

    def _is_own_address(self, address: IPAddress) -> bool:
        """Whether a connection to ``address`` on the proxy's port reaches this proxy (a loop
        through it would never end).

        It reaches the address the proxy listens on, the same address as IPv4-mapped IPv6,
        and the unspecified address (the kernel connects it to this machine); every address
        when the proxy listens on all of them. Another loopback address on the same port is
        another socket (a practice sign-in provider on 127.0.0.2 whose port matched the
        proxy's was refused as a loop): the policy judges it like any other address.
        """
        try:
            listening = ipaddress.ip_address(self.listen_host)
        except ValueError:
            return address.is_loopback
        if listening.is_unspecified or address.is_unspecified:
            return True
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            return address.ipv4_mapped == listening
        return address == listening

    async def _resolve_once(self, name: str, port: int) -> list[IPAddress]:
        if name in self._resolved:
            return self._resolved[name]
        try:
            addresses = await asyncio.wait_for(self._resolver(name, port), self._connect_timeout)
        except (OSError, TimeoutError):
            addresses = []
        if not addresses:
            # Failures are not kept: a name may resolve once the network is back.
            raise _Refused(502, f"{name} could not be resolved")
        return self._resolved.setdefault(name, addresses)

    async def _connect(
        self, address: IPAddress, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            return await asyncio.wait_for(
                asyncio.open_connection(str(address), port), self._connect_timeout
            )
        except (OSError, TimeoutError) as error:
            raise _Refused(502, f"{address} port {port} could not be reached ({error})") from None


@asynccontextmanager
async def egress_filter(policy: EgressPolicy) -> AsyncIterator[EgressProxy]:
    """A running egress proxy for one run, closed however the run ends."""
    proxy = EgressProxy(policy)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.close()
