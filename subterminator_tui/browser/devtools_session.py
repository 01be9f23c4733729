"""Our own DevTools session on the run's Chromium, beside Playwright MCP's pipe.

Playwright MCP starts the browser (the persistent profile, the egress proxy, one
browser per run) and drives it over its pipe; the browser is also given a DevTools
port on loopback, chosen by Chromium (port 0) and written to ``DevToolsActivePort``
in the profile, so only a process that can read the person's profile finds it. The
egress filter refuses that port to every page (``EgressPolicy.refused_ports``), and
Chromium refuses a DevTools WebSocket from any web origin anyway.

:class:`DevToolsSession` is that connection: the cdp-use client, every target
attached (pages, same- and out-of-process frames, dedicated, shared and service
workers), each new one held until its clients have set it up, and one send that
asks a frame with a deadline. Its clients take it in their constructors: the
request watch (interception.py), the typed-value listener (typed_values.py) and
Playwright's utility worlds (playwright_worlds.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from cdp_use.cdp.library import CDPLibrary
from cdp_use.cdp.target.commands import SetAutoAttachParameters
from cdp_use.cdp.target.events import AttachedToTargetEvent, DetachedFromTargetEvent
from cdp_use.client import CDPClient

from subterminator_tui.browser.private_devtools import SOCKET_FILE, devtools_client, unix_endpoint

logger = logging.getLogger(__name__)
# A frame read given up on (a frame navigating) is answered late; cdp-use warns of each.
logging.getLogger("cdp_use").setLevel(logging.ERROR)

_Answer = TypeVar("_Answer")
#: One typed command to one target (its DevTools session id), sent when called.
Command = Callable[[CDPLibrary, str | None], Awaitable[_Answer]]

#: Chromium writes its chosen DevTools port and path here, in the profile directory.
ACTIVE_PORT_FILE = "DevToolsActivePort"

#: Our own DevTools endpoint. Port 0: Chromium picks a free port on 127.0.0.1 and writes
#: it to DevToolsActivePort.
DEVTOOLS_ARGS = ("--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1")


def forget_endpoint(profile_dir: Path) -> None:
    """Remove a previous browser's DevToolsActivePort, so a stale port is never read."""
    (profile_dir / ACTIVE_PORT_FILE).unlink(missing_ok=True)


def read_endpoint(profile_dir: Path) -> str | None:
    """The browser's DevTools WebSocket URL from its profile, or None while it has none."""
    try:
        lines = (profile_dir / ACTIVE_PORT_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    if len(lines) < 2 or not lines[0].strip().isdigit():
        return None
    return f"ws://127.0.0.1:{int(lines[0])}{lines[1].strip()}"


def endpoint_port(endpoint: str) -> int:
    """The port of a ``ws://127.0.0.1:PORT/...`` endpoint."""
    return int(endpoint.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])


async def wait_for_endpoint(profile_dir: Path, within: float = 10.0) -> str | None:
    """The DevTools endpoint once Chromium has written it; None after ``within`` seconds.

    Chromium writes the file once, right after it starts; polling a file is the only
    way to learn of a process we did not spawn (Playwright's child).
    """
    deadline = time.monotonic() + within
    while True:
        endpoint = read_endpoint(profile_dir)
        if endpoint is not None or time.monotonic() >= deadline:
            return endpoint
        await asyncio.sleep(0.02)


async def connect(endpoint: str) -> CDPClient:
    """Our cdp-use client, connected to the browser's DevTools ``endpoint``."""
    # A ws:// endpoint over TCP, or ws+unix:// over the browser's private socket.
    client = devtools_client(endpoint)
    await client.start()  # type: ignore[no-untyped-call]
    return client


async def wait_for_devtools(profile_dir: Path, within: float = 10.0) -> str | None:
    """The endpoint of the browser running on ``profile_dir``, by socket where it has one."""
    endpoint = await wait_for_endpoint(profile_dir, within)
    if endpoint is None:
        return None
    try:
        socket_path = (profile_dir / SOCKET_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return endpoint
    return unix_endpoint(Path(socket_path), endpoint)


#: How long a target may take to answer one read before it is skipped. A live frame
#: answers in milliseconds; one that does not is navigating, running a long script or
#: gone, and what it holds is read next time (or went with it). A second bounds a read
#: of every frame without holding the call behind it noticeably, and leaves a loaded
#: page time to answer.
FRAME_ANSWER_SECONDS = 1.0

#: Targets attached and set up (every kind that can make a request).
_ATTACHED_TYPES = frozenset(
    {"page", "iframe", "worker", "shared_worker", "service_worker", "other", "webview"}
)
#: Targets with documents, where people type and Playwright keeps its worlds.
FRAME_TYPES = frozenset({"page", "iframe"})
#: Workers have no frames or workers of their own to attach.
_LEAF_TYPES = frozenset({"service_worker", "shared_worker", "worker"})
#: Every new target waits for the debugger until its clients have set it up, its own
#: children attached the same way.
_AUTO_ATTACH: SetAutoAttachParameters = {
    "autoAttach": True,
    "waitForDebuggerOnStart": True,
    "flatten": True,
}


class SessionClient:
    """A part of our DevTools work: what it needs of every connection and every new target.

    Each hook does nothing unless a client overrides it; a client joins the session in
    its constructor (:meth:`DevToolsSession.join`).
    """

    def listen(self, cdp: CDPClient) -> None:
        """Register this client's event handlers on a fresh connection (they only record or
        start tasks: they run inside the client's reader)."""

    def before_run(self, send: CDPLibrary, session_id: str, kind: str) -> list[Awaitable[object]]:
        """Commands a new target must have answered before it may run (sent one by one)."""
        return []

    def frame_starting(self, send: CDPLibrary, session_id: str) -> list[Awaitable[object]]:
        """Commands for a new page or frame, sent before its run signal, not awaited first."""
        return []

    async def running(self, send: CDPLibrary, session_id: str) -> None:
        """The new target runs now."""

    def forget(self, session_id: str) -> None:
        """The target of ``session_id`` went away."""


class DevToolsSession:
    """Our DevTools connection to one browser: every target attached, set up, then let run."""

    def __init__(self) -> None:
        #: Target type by session id, for every target attached so far.
        self.targets: dict[str, str] = {}
        #: Target id by session id (a tab's top frame has its target's id).
        self.target_ids: dict[str, str] = {}
        self._cdp: CDPClient | None = None
        self._clients: list[SessionClient] = []
        self._tasks: set[asyncio.Task[None]] = set()
        #: Targets being set up (every client's part done before they run).
        self._setting_up: set[asyncio.Task[None]] = set()

    def join(self, client: SessionClient) -> None:
        """``client`` listens on every connection and sets up every target from now on."""
        self._clients.append(client)

    @property
    def attached(self) -> bool:
        """Whether the session is connected to a browser."""
        return self._cdp is not None

    async def attach(self, endpoint: str) -> None:
        """Connect to ``endpoint``; every target, from now on, set up before it runs."""
        cdp = await connect(endpoint)
        self._cdp = cdp
        # Handlers run inside the client's reader: they only start tasks, never await it.
        cdp.register.Target.attachedToTarget(self._on_attached)
        cdp.register.Target.detachedFromTarget(self._on_detached)
        for client in self._clients:
            client.listen(cdp)
        await cdp.send.Target.setAutoAttach(_AUTO_ATTACH)
        # The targets that already run (the first tab) were announced before that answer:
        # their setup is done before the first page loads, so its listener is there too.
        if self._setting_up:
            await asyncio.gather(*self._setting_up, return_exceptions=True)

    async def close(self) -> None:
        """Disconnect; what the targets wait for is left to the browser, which is closing."""
        cdp, self._cdp = self._cdp, None
        for session in self.targets:
            for client in self._clients:
                client.forget(session)
        self.targets.clear()
        self.target_ids.clear()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if cdp is not None:
            with contextlib.suppress(Exception):
                await cdp.stop()  # type: ignore[no-untyped-call]

    def frames(self) -> list[str]:
        """The sessions of every page and frame target."""
        return [session for session, kind in self.targets.items() if kind in FRAME_TYPES]

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``work`` as a task of this session (cancelled when it closes)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def ask(self, session_id: str, command: Command[_Answer]) -> _Answer | None:
        """``command``'s answer from the target of ``session_id`` within
        :data:`FRAME_ANSWER_SECONDS`; None when the session is not connected or the target
        did not answer (closed, busy, navigating)."""
        cdp = self._cdp
        if cdp is None:
            return None
        try:
            return await asyncio.wait_for(command(cdp.send, session_id), FRAME_ANSWER_SECONDS)
        except Exception as error:  # closed, busy or navigating: read next time
            logger.debug("a target did not answer: %s", error)
            return None

    async def send(self, session_id: str | None, command: Command[object]) -> None:
        """Send ``command`` to the target of ``session_id`` and await its answer, with no
        deadline (the browser process, not a page, answers it); a target closed meanwhile
        took what it was asked with it."""
        cdp = self._cdp
        if cdp is None:
            return
        with contextlib.suppress(Exception):
            await command(cdp.send, session_id)

    def _on_attached(self, event: AttachedToTargetEvent, _parent: str | None) -> None:
        task = self.spawn(self._set_up(event))
        self._setting_up.add(task)
        task.add_done_callback(self._setting_up.discard)

    def _on_detached(self, event: DetachedFromTargetEvent, _parent: str | None) -> None:
        session = str(event.get("sessionId", ""))
        self.targets.pop(session, None)
        self.target_ids.pop(session, None)
        for client in self._clients:
            client.forget(session)

    async def _set_up(self, event: AttachedToTargetEvent) -> None:
        """Every client's part in a new target (and its own children attached), then let it run.

        A dedicated worker may refuse a domain (the Fetch domain: its requests then go
        through its page's network stack, paused there). Whatever fails, the target is let
        go (a target left waiting for the debugger would hang the page).
        """
        cdp = self._cdp
        session = str(event["sessionId"])
        info = event.get("targetInfo", {})
        kind = str(info.get("type", "other"))
        if cdp is None:
            return
        send = cdp.send
        starting: list[asyncio.Future[object]] = []
        attached = kind in _ATTACHED_TYPES
        if attached:
            self.targets[session] = kind
            self.target_ids[session] = str(info.get("targetId", ""))
            for client in self._clients:
                for step in client.before_run(send, session, kind):
                    await self._logged(step, kind, session)
            if kind not in _LEAF_TYPES:
                await self._logged(send.Target.setAutoAttach(_AUTO_ATTACH, session), kind, session)
            if kind in FRAME_TYPES:
                # Its execution contexts (bindings, Playwright's utility world) and the
                # clients' frame setup, sent before the run signal but not awaited before it:
                # a popup answers Runtime.enable only once it runs (awaiting it first hung
                # every target=_blank tab under load). A session's commands are handled in the
                # order sent, so what they install is in place before the first script of its
                # first document (Playwright starts pages the same way).
                frame: list[Awaitable[object]] = [send.Runtime.enable(session_id=session)]
                for client in self._clients:
                    frame += client.frame_starting(send, session)
                starting = [asyncio.ensure_future(step) for step in frame]
        # A task too, made last: tasks start in the order made, so it is sent last.
        run = asyncio.ensure_future(send.Runtime.runIfWaitingForDebugger(session_id=session))
        for outcome in await asyncio.gather(*starting, run, return_exceptions=True):
            if isinstance(outcome, BaseException):  # closed meanwhile, or a domain it lacks
                logger.debug("setup failed in %s target %s: %s", kind, session, outcome)
        if attached:
            for client in self._clients:
                await client.running(send, session)

    @staticmethod
    async def _logged(step: Awaitable[object], kind: str, session: str) -> None:
        try:
            await step
        except Exception as error:  # closed meanwhile, or a domain it lacks
            logger.debug("setup failed in %s target %s: %s", kind, session, error)
