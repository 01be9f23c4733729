"""What the egress proxy let through and what it refused, for the run and for tests to read."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BlockedRequest:
    """One refused request: the host it wanted (as the browser wrote it), and why."""

    host: str
    port: int
    reason: str
    status: int = 403


@dataclass
class EgressCounters:
    """Counts kept by one proxy; ``wait_for_block`` lets a caller await a refusal."""

    #: Allowed connections (a tunnel or one plain request) per host.
    allowed: Counter[str] = field(default_factory=Counter)
    blocked: list[BlockedRequest] = field(default_factory=list)
    #: Allowed by the policy but the site could not be reached (DNS or connect failure).
    unreachable: list[BlockedRequest] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def allowed_total(self) -> int:
        """How many connections went through."""
        return sum(self.allowed.values())

    def blocked_hosts(self) -> set[str]:
        """The hosts of every refused request."""
        return {request.host for request in self.blocked}

    def record_allowed(self, host: str) -> None:
        """Count a connection the policy let through."""
        self.allowed[host] += 1
        self._notify()

    def record_blocked(self, request: BlockedRequest) -> None:
        """Count a refusal."""
        self.blocked.append(request)
        self._notify()

    def record_unreachable(self, request: BlockedRequest) -> None:
        """Count a request that was allowed but could not be delivered."""
        self.unreachable.append(request)
        self._notify()

    async def wait_for_block(self, host: str, *, count: int = 1) -> list[BlockedRequest]:
        """Wait until ``count`` requests to ``host`` were refused; returns them.

        Callers bound the wait with ``asyncio.timeout``: a request the browser
        never makes never arrives.
        """
        while True:
            found = [request for request in self.blocked if request.host == host]
            if len(found) >= count:
                return found
            await self._wait_for_change()

    async def wait_for_allowed(self, host: str, *, count: int = 1) -> int:
        """Wait until ``count`` connections to ``host`` went through; returns how many did."""
        while self.allowed[host] < count:
            await self._wait_for_change()
        return self.allowed[host]

    async def _wait_for_change(self) -> None:
        changed = self._changed
        await changed.wait()

    def _notify(self) -> None:
        # Wake every waiter, then arm a fresh event for the next change.
        self._changed.set()
        self._changed = asyncio.Event()
