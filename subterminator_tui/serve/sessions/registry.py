"""Every session of the server, keyed by (principal, name), with limits and idle timeouts.

A principal only ever sees its own sessions: another principal's session of the
same name is a different session, with a different profile, and asking for a
name it does not hold is "not found", whoever else holds one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any

from subterminator_tui.errors import ServiceNotFoundError, SubTerminatorError
from subterminator_tui.journal.store import Journal
from subterminator_tui.reach.urls import web_host
from subterminator_tui.rules import ServiceConfig, domain_allowed, generic_service, load_services
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.errors import (
    ServeInputError,
    SessionBusyError,
    SessionLimitError,
    SessionNotFoundError,
)
from subterminator_tui.serve.names import LOCAL_PRINCIPAL, SessionKey, echoed
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.sessions.browser_session import BrowserSession

#: How often the idle check runs (a fraction of the idle timeout, at most a minute).
_MAX_IDLE_CHECK_SECONDS = 60.0


class SessionRegistry:
    """Opens, finds, lists and closes sessions; closes idle browsers in the background."""

    def __init__(self, config: ServeConfig, journal: Journal, desk: ApprovalDesk) -> None:
        self.config = config
        self.journal = journal
        self.desk = desk
        self.sessions: dict[SessionKey, BrowserSession] = {}
        self._opening: set[SessionKey] = set()
        self._services = load_services(list(config.services))
        self._idle_task: asyncio.Task[None] | None = None

    def start_idle_watch(self) -> None:
        """Close idle browsers from now on (call inside the running event loop)."""
        if self._idle_task is None:
            self._idle_task = asyncio.create_task(self._watch_idle(), name="serve-idle-watch")

    def service_for(self, service_id: str, domains: Sequence[str] | None) -> ServiceConfig:
        """The service ``service_id``, its domains narrowed to ``domains`` (never widened).

        With ``--any-site`` a bare address (``example.com``) is a service too: that site's
        registrable domain only, under the generic rules, as ``cancel example.com`` does.
        """
        if service_id in self._services or not self.config.any_site:
            if service_id not in self._services:
                # The registry's own error, quoting a bounded part of the caller's input.
                shown = echoed(service_id).strip("'\"")
                raise ServiceNotFoundError(shown, self._services.ids())
            service = self._services.get(service_id)
        else:
            try:
                service = generic_service(service_id)
            except (SubTerminatorError, ValueError) as error:
                # ValueError: the address makes no valid service (pydantic says why).
                raise ServeInputError(
                    f"Unknown service or address {echoed(service_id)}: {error}"
                ) from None
        if service.practice and not (self.config.practice or self.config.practice_url):
            raise ServeInputError(
                f"{service.id} is a practice service; this server offers practice services only "
                "when started with --practice (or --practice-url URL)."
            )
        if not domains:
            return service
        malformed = [d for d in domains if not isinstance(d, str) or web_host(f"http://{d}/") != d]
        if malformed:
            raise ServeInputError(
                f"Domains must be plain lower-case host names or addresses, such as "
                f"'example.com' (got {', '.join(map(echoed, malformed[:5]))})."
            )
        wider = [d for d in domains if not domain_allowed(f"http://{d}/", service.allowed_domains)]
        if wider:
            raise ServeInputError(
                f"Domains {', '.join(map(echoed, wider[:5]))} are not within "
                f"{service.name}'s allowed domains ({', '.join(service.allowed_domains)}); a "
                "session may narrow them, never widen them."
            )
        return service.model_copy(update={"allowed_domains": tuple(domains)})

    def service_for_address(self, url: str) -> str | None:
        """What to open for a session that starts at ``url``: the configured service whose
        domains allow it, else (with ``--any-site``) the address itself; None when neither.

        Practice services are left out: their site's address is known only once it runs.
        """
        for service in self._services.all():
            if not service.practice and domain_allowed(url, service.allowed_domains):
                return service.id
        return url if self.config.any_site and url.startswith(("http://", "https://")) else None

    def open(
        self, principal: str, name: str, service_id: str, domains: Sequence[str] | None = None
    ) -> tuple[BrowserSession, bool]:
        """The session (principal, name), made when new; the browser starts on its first call.

        Returns the session and whether it was new. Reopening a held name with another
        service is refused rather than silently switching.
        """
        key = SessionKey.of(principal, name)
        existing = self.sessions.get(key)
        if existing is not None:
            if existing.service.id != service_id:
                raise ServeInputError(
                    f"Session '{name}' is open for {existing.service.id}; close it first or "
                    "pick another name."
                )
            return existing, False
        service = self.service_for(service_id, domains)
        mine = [k for k in self.sessions if k.principal == key.principal]
        if len(mine) >= self.config.max_sessions_per_principal:
            raise SessionLimitError(
                f"limit: you hold {len(mine)} sessions, the most allowed per principal "
                f"({self.config.max_sessions_per_principal}). Close one with session_close."
            )
        if len(self.sessions) >= self.config.max_sessions:
            raise SessionLimitError(
                f"limit: the server holds {len(self.sessions)} sessions, its limit "
                f"({self.config.max_sessions}). Try again later or close one of yours."
            )
        session = BrowserSession(key, service, self.config, self.journal, self.desk)
        self.sessions[key] = session
        return session, True

    def get(self, principal: str, name: str) -> BrowserSession:
        """``principal``'s session ``name``; not found when it holds none of that name."""
        session = self.sessions.get(SessionKey.of(principal, name))
        if session is None:
            raise SessionNotFoundError(
                f"No session '{name}' is open for you. Open one with session_open "
                "(see session_list for yours)."
            )
        return session

    def listing(self, principal: str) -> list[dict[str, Any]]:
        """``principal``'s sessions, as session_list shows them."""
        return [s.describe() for k, s in sorted(self.sessions.items()) if k.principal == principal]

    async def close(self, principal: str, name: str) -> BrowserSession:
        """Close ``principal``'s session ``name``: pending approvals rejected, browser closed."""
        session = self.get(principal, name)
        if session.in_flight is not None and session.pending is None:
            raise SessionBusyError(
                f"busy: session '{name}' is running {session.in_flight}; close it after the "
                "call answers."
            )
        del self.sessions[session.key]
        await session.close()
        return session

    async def close_all(self) -> None:
        """Close every session (shutdown): approvals rejected, browsers closed, runs ended."""
        if self._idle_task is not None:
            self._idle_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._idle_task
            self._idle_task = None
        sessions = list(self.sessions.values())
        self.sessions.clear()
        await asyncio.gather(
            *(s.close("the server stopped") for s in sessions), return_exceptions=True
        )

    async def close_idle_browsers(self) -> list[BrowserSession]:
        """Close the browsers of sessions idle longer than the timeout; the sessions stay."""
        now = time.monotonic()
        idle = [
            s
            for s in self.sessions.values()
            if s.browser is not None
            and s.in_flight is None
            and s.pending is None
            and now - s.last_used >= self.config.idle_seconds
        ]
        closed = []
        for session in idle:
            # The check above and this close are apart by awaits: a call may have started.
            if not session.claim_for("closing its idle browser"):
                continue
            try:
                await session.close_browser()
            finally:
                session.release()
            closed.append(session)
        return closed

    async def close_expired_sessions(self) -> list[BrowserSession]:
        """Close the sessions unused longer than the expiry (the local operator's excepted)."""
        now = time.monotonic()
        expired = [
            s
            for k, s in self.sessions.items()
            if k.principal != LOCAL_PRINCIPAL
            and s.in_flight is None
            and s.pending is None
            and now - s.last_used >= self.config.expiry_seconds
        ]
        closed = []
        for session in expired:
            if self.sessions.get(session.key) is not session or session.in_flight is not None:
                continue
            del self.sessions[session.key]
            await session.close("the session expired")
            closed.append(session)
        return closed

    async def _watch_idle(self) -> None:
        shortest = min(self.config.idle_seconds, self.config.expiry_seconds)
        interval = min(max(shortest / 4, 0.05), _MAX_IDLE_CHECK_SECONDS)
        while True:
            await asyncio.sleep(interval)
            await self.close_idle_browsers()
            await self.close_expired_sessions()
