"""Every request the browser makes, paused before it is sent, judged, then sent or failed.

A page can hide what causes an effect (a listener, a label, a timer, a shadow
root); it cannot hide the request that carries the effect to the service. This
module holds our own DevTools connection (devtools.py) to the run's browser and
pauses every request at the request stage (the Fetch domain), on every target:
pages, same- and out-of-process frames, dedicated, shared and service workers.
New targets are attached automatically and wait for the debugger until
interception is on in them, so no request of a new target leaves before it is
watched. What to do with each request is a :class:`RequestPolicy`'s call; the
browser layer only carries it out. The same session installs, in every page and
frame, the listener that learns what is typed into the page's text fields
(typed_values.py), and passes each value to its listener (``typing.listener``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from cdp_use.client import CDPClient

from subterminator_tui.browser.egress.responses import refusal_page
from subterminator_tui.browser.page_links import PageLink, links_of
from subterminator_tui.browser.playwright_worlds import PlaywrightWorlds
from subterminator_tui.browser.private_devtools import devtools_client
from subterminator_tui.browser.typed_values import TypingWatch

logger = logging.getLogger(__name__)
# A DOM read given up on (a frame navigating) is answered late; cdp-use warns of each.
logging.getLogger("cdp_use").setLevel(logging.ERROR)

#: ``send``: let it go; ``fail``: the page sees a network error; ``observe``: let it go
#: and report the service's answer (:meth:`RequestPolicy.answered`).
#: ``refuse``: answered in the browser with the egress filter's own refusal page (a
#: top-level page that must not load, shown as such rather than as a network error).
Verdict = Literal["send", "fail", "observe", "refuse"]

#: Targets whose requests are paused (every kind that can make one).
_WATCHED_TYPES = frozenset(
    {"page", "iframe", "worker", "shared_worker", "service_worker", "other", "webview"}
)
#: Targets with documents, where people type (the typed-value listener runs there).
_FRAME_TYPES = frozenset({"page", "iframe"})
#: Workers have no frames or workers of their own to attach.
_LEAF_TYPES = frozenset({"service_worker", "shared_worker", "worker"})
#: A frame busy navigating does not answer DOM reads; its links are read next time.
_DOM_READ_SECONDS = 1.0
#: Network events are not read: no body is kept for them.
_QUIET_NETWORK = {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0, "maxPostDataSize": 0}
_AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
#: What every new target gets before it may run: every request paused, its own children
#: attached the same way. (A socket's frames, which cannot be paused, are reported through
#: the Network domain, enabled once it runs.)
_TARGET_SETUP: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}),
    ("Target.setAutoAttach", _AUTO_ATTACH),
)


@dataclass(frozen=True)
class InterceptedRequest:
    """One paused request, as the service would receive it."""

    request_id: str
    method: str
    url: str
    resource_type: str
    headers: dict[str, str]
    body: bytes
    #: The kind of target that made it: page, iframe, worker, service_worker, ...
    target_type: str
    #: A navigation of a tab's top frame (the page the person would see).
    top_level: bool
    session_id: str | None = None

    @property
    def content_type(self) -> str:
        """The body's media type, lower case, without parameters."""
        for name, value in self.headers.items():
            if name.lower() == "content-type":
                return value.split(";", 1)[0].strip().lower()
        return ""


class RequestPolicy(Protocol):
    """Decides each paused request (may take as long as a person needs)."""

    async def judge(self, request: InterceptedRequest) -> Verdict:
        """send, fail or observe ``request``."""
        ...

    def answered(self, request: InterceptedRequest, status: int | None) -> None:
        """The service's status for an observed request (None: no answer, a network error)."""
        ...

    def socket_frame(self, url: str, payload: str) -> None:
        """The page sent ``payload`` on its WebSocket to ``url`` (already sent: no pause)."""
        ...


class SendEverything:
    """The policy before a run installs its own: nothing is held."""

    async def judge(self, request: InterceptedRequest) -> Verdict:
        """Always send."""
        return "send"

    def answered(self, request: InterceptedRequest, status: int | None) -> None:
        """Nothing is observed."""

    def socket_frame(self, url: str, payload: str) -> None:
        """Nothing is recorded."""


@dataclass
class InterceptionCost:
    """What pausing costs: how many requests, and the seconds from pause to verdict sent."""

    requests: int = 0
    seconds: float = 0.0
    #: Per-request costs (seconds), for the median a benchmark reports.
    samples: list[float] = field(default_factory=list)
    #: Reads of every frame's links (before each call that may change the page).
    link_reads: list[float] = field(default_factory=list)
    #: Seconds each call waited for the page's own data requests before its snapshot.
    settles: list[float] = field(default_factory=list)


#: Requests a page makes for its data (what a single-page app draws its controls from).
_DATA_TYPES = frozenset({"XHR", "Fetch"})


class RequestWatch:
    """Our DevTools session on one browser: every target attached, every request paused."""

    def __init__(self, policy: RequestPolicy | None = None) -> None:
        self.policy: RequestPolicy = policy or SendEverything()
        #: Hears every value typed into a text field of any page or frame.
        #: What is typed into the pages' text fields: ``typing.listener`` hears it.
        self.typing = TypingWatch()
        self.cost = InterceptionCost()
        #: Target type by session id, for every target attached so far.
        self.targets: dict[str, str] = {}
        self._target_ids: dict[str, str] = {}
        self._client: CDPClient | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: Targets being set up (interception and the typed-value listener installed).
        self._setting_up: set[asyncio.Task[None]] = set()
        self._observed: dict[str, InterceptedRequest] = {}
        #: WebSocket URLs by "session:requestId".
        self._sockets: dict[str, str] = {}
        #: The hosts of the pages answered with the refusal page, in order (the egress
        #: filter counts its own; a page refused here never reaches it).
        self.refused_hosts: list[str] = []
        #: Playwright's utility worlds, where the guard reads a ref's element (no settle).
        self.worlds = PlaywrightWorlds()
        #: The page's own data requests (XHR, fetch) sent and not yet answered, and how many
        #: started so far: a single-page app draws its controls once they are answered.
        self.data_in_flight: set[str] = set()
        self.data_started = 0
        self._data_changed = asyncio.Event()

    @property
    def attached(self) -> bool:
        """Whether the watch is connected to a browser."""
        return self._client is not None

    async def attach(self, endpoint: str) -> None:
        """Connect to ``endpoint`` and pause every request of every target from now on."""
        # A ws:// endpoint over TCP, or ws+unix:// over the browser's private socket.
        client = devtools_client(endpoint)
        await client.start()  # type: ignore[no-untyped-call]
        self._client = client
        # Handlers run inside the client's reader: they only start tasks, never await it.
        client.register.Target.attachedToTarget(self._on_attached)
        client.register.Target.detachedFromTarget(self._on_detached)
        client.register.Fetch.requestPaused(self._on_paused)
        client.register.Network.webSocketCreated(self._on_socket)
        client.register.Network.webSocketFrameSent(self._on_frame)
        client.register.Runtime.bindingCalled(self.typing.on_binding)
        self.worlds.register(client)
        await client.send_raw("Target.setAutoAttach", _AUTO_ATTACH)
        # The targets that already run (the first tab) were announced before that answer:
        # their setup is done before the first page loads, so its listener is there too.
        if self._setting_up:
            await asyncio.gather(*self._setting_up, return_exceptions=True)

    async def close(self) -> None:
        """Disconnect; paused requests are left to the browser, which is closing."""
        client, self._client = self._client, None
        self.targets.clear()
        self._target_ids.clear()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if client is not None:
            with contextlib.suppress(Exception):
                await client.stop()  # type: ignore[no-untyped-call]

    async def links(self) -> list[PageLink]:
        """Every link and form target of every page and frame (shadow roots pierced)."""
        client = self._client
        found: list[PageLink] = []
        if client is None:
            return found
        started = time.perf_counter()
        for session in self._frames():
            try:
                tree = await asyncio.wait_for(
                    client.send_raw(
                        "DOM.getDocument", {"depth": -1, "pierce": True}, session_id=session
                    ),
                    _DOM_READ_SECONDS,
                )
            except Exception:  # the frame closed or is navigating: nothing to read there now
                continue
            found += links_of(tree.get("root", {}))
        self.cost.link_reads.append(time.perf_counter() - started)
        return found

    async def on_element(self, ref: str, function: str) -> Any | None:
        """``function(element)`` for the element of Playwright's ref ``ref``, read in
        Playwright's utility world; None when that cannot be done exactly once."""
        client = self._client
        if client is None:
            return None
        return await self.worlds.on_element(client, ref, function)

    def _spawn(self, work: Any) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _on_attached(self, event: Any, _parent: str | None) -> None:
        task = self._spawn(self._watch_target(event))
        self._setting_up.add(task)
        task.add_done_callback(self._setting_up.discard)

    def _on_detached(self, event: Any, _parent: str | None) -> None:
        session = event.get("sessionId")
        self.targets.pop(session, None)
        self._target_ids.pop(session, None)
        self.worlds.forget(session)

    async def _watch_target(self, event: Any) -> None:
        """Interception on in a new target (and its own children), then let it run.

        A dedicated worker may refuse the Fetch domain: its requests then go through
        its page's network stack, paused there. Whatever fails, the target is let go
        (a target left waiting for the debugger would hang the page).
        """
        client = self._client
        session = str(event["sessionId"])
        info = event.get("targetInfo", {})
        kind = str(info.get("type", "other"))
        if client is None:
            return
        frame_setup: list[asyncio.Future[Any]] = []
        if kind in _WATCHED_TYPES:
            self.targets[session] = kind
            self._target_ids[session] = str(info.get("targetId", ""))
            for method, params in _TARGET_SETUP:
                if method == "Target.setAutoAttach" and kind in _LEAF_TYPES:
                    continue
                try:
                    await client.send_raw(method, params, session_id=session)
                except Exception as error:  # closed meanwhile, or a domain it lacks
                    logger.debug("%s failed in %s target %s: %s", method, kind, session, error)
            if kind in _FRAME_TYPES:
                # Its execution contexts (bindings, Playwright's utility world: worlds) and
                # the typed-value listener, sent before the run signal but not awaited
                # before it: a popup answers Runtime.enable only once it runs (awaiting it
                # first hung every target=_blank tab under load). A session's commands are
                # handled in the order sent, so the listener is still in place before the
                # first script of its first document (Playwright starts pages the same way).
                frame = (("Runtime.enable", {}), *self.typing.script.setup())
                frame_setup = [
                    asyncio.ensure_future(client.send_raw(method, params, session_id=session))
                    for method, params in frame
                ]
        # A task too, made last: tasks start in the order made, so it is sent last.
        run = asyncio.ensure_future(
            client.send_raw("Runtime.runIfWaitingForDebugger", session_id=session)
        )
        for outcome in await asyncio.gather(*frame_setup, run, return_exceptions=True):
            if isinstance(outcome, BaseException):  # closed meanwhile, or a domain it lacks
                logger.debug("setup failed in %s target %s: %s", kind, session, outcome)
        if kind in _WATCHED_TYPES:
            # Only once it runs: a popup waiting for the debugger never answers Network.enable.
            with contextlib.suppress(Exception):
                await client.send_raw("Network.enable", _QUIET_NETWORK, session_id=session)

    async def typed_values_heard(self) -> None:
        """Return once every value the listener reported so far has reached it."""
        if self._client is not None:
            await self.typing.heard(self._client, self._frames())

    async def typed_fields_read(self) -> None:
        """Report the values now in every frame's text fields too (typed_values.py)."""
        if self._client is not None:
            await self.typing.read(self._client, self._frames())

    def _frames(self) -> list[str]:
        """The sessions of every page and frame target."""
        return [session for session, kind in self.targets.items() if kind in _FRAME_TYPES]

    def _on_socket(self, event: Any, session: str | None) -> None:
        self._sockets[f"{session}:{event.get('requestId')}"] = str(event.get("url", ""))

    def _on_frame(self, event: Any, session: str | None) -> None:
        url = self._sockets.get(f"{session}:{event.get('requestId')}", "")
        payload = str(event.get("response", {}).get("payloadData", ""))
        try:
            self.policy.socket_frame(url, payload)
        except Exception:
            logger.exception("a WebSocket frame could not be recorded")

    def _on_paused(self, event: Any, session: str | None) -> None:
        answered = "responseStatusCode" in event or "responseErrorReason" in event
        if not answered and event.get("resourceType") in _DATA_TYPES:
            # Counted the moment it pauses, before it is judged: a call that returns while
            # the page's data request waits for its verdict still waits for its answer.
            self._data_request(str(event.get("requestId")), answered=False)
        self._spawn(self._decide_or_fail(event, session))

    async def _decide_or_fail(self, event: Any, session: str | None) -> None:
        """Decide; a request is never left paused, whatever goes wrong deciding it."""
        try:
            await self._decide(event, session)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("a paused request could not be judged; it is failed, not sent")
            self._data_request(str(event.get("requestId")), answered=True)
            params = {"requestId": str(event.get("requestId")), "errorReason": "BlockedByClient"}
            await self._send("Fetch.failRequest", params, session)

    async def _decide(self, event: Any, session: str | None) -> None:
        started = time.perf_counter()
        request_id = str(event["requestId"])
        if "responseStatusCode" in event or "responseErrorReason" in event:
            self._data_request(request_id, answered=True)
            observed = self._observed.pop(request_id, None)
            if observed is not None:
                self.policy.answered(observed, event.get("responseStatusCode"))
            await self._send("Fetch.continueResponse", {"requestId": request_id}, session)
            return
        request = self._request(event, session)
        try:
            verdict = await self.policy.judge(request)
        except Exception:
            logger.exception("the request policy failed; the request is failed, not sent")
            verdict = "fail"
        params: dict[str, Any] = {"requestId": request_id}
        if verdict in ("fail", "refuse"):
            # It never reaches the service: no answer will come to wait for.
            self._data_request(request_id, answered=True)
        if verdict == "fail":
            params["errorReason"] = "BlockedByClient"
            await self._send("Fetch.failRequest", params, session)
        elif verdict == "refuse":
            host = urlsplit(request.url).netloc
            self.refused_hosts.append(urlsplit(request.url).hostname or host)
            page = refusal_page(host, "reachable only while you sign in there yourself")
            params.update(
                responseCode=403,
                responseHeaders=[
                    {"name": "Content-Type", "value": "text/html; charset=utf-8"},
                    {"name": "Cache-Control", "value": "no-store"},
                ],
                body=base64.b64encode(page).decode("ascii"),
            )
            await self._send("Fetch.fulfillRequest", params, session)
        else:
            if verdict == "observe":
                self._observed[request_id] = request
                params["interceptResponse"] = True
            if request.resource_type in _DATA_TYPES:
                # Its answer is awaited too: the page is drawn once its data arrived.
                params["interceptResponse"] = True
            await self._send("Fetch.continueRequest", params, session)
        elapsed = time.perf_counter() - started
        self.cost.requests += 1
        self.cost.seconds += elapsed
        if verdict == "send":
            self.cost.samples.append(elapsed)

    async def quiet(self, *, idle: float = 0.25, bound: float = 2.0) -> float:
        """Wait until the page's data requests have all been answered and none started for
        ``idle`` seconds, or ``bound`` seconds passed; the seconds waited."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + bound
        while (now := loop.time()) < deadline:
            self._data_changed.clear()
            wait = deadline - now if self.data_in_flight else min(idle, deadline - now)
            try:
                await asyncio.wait_for(self._data_changed.wait(), wait)
            except TimeoutError:
                if not self.data_in_flight:
                    break
        waited = loop.time() - started
        self.cost.settles.append(waited)
        return waited

    def _data_request(self, request_id: str, *, answered: bool) -> None:
        if answered:
            self.data_in_flight.discard(request_id)
        else:
            self.data_in_flight.add(request_id)
            self.data_started += 1
        self._data_changed.set()

    async def _send(self, method: str, params: dict[str, Any], session: str | None) -> None:
        client = self._client
        if client is None:
            return
        with contextlib.suppress(Exception):  # the target closed: its request is gone too
            await client.send_raw(method, params, session_id=session)

    def _request(self, event: Any, session: str | None) -> InterceptedRequest:
        raw = event.get("request", {})
        kind = self.targets.get(session or "", "other")
        top_level = (
            kind == "page"
            and event.get("resourceType") == "Document"
            and event.get("frameId") == self._target_ids.get(session or "")
        )
        return InterceptedRequest(
            request_id=str(event["requestId"]),
            method=str(raw.get("method", "GET")).upper(),
            url=str(raw.get("url", "")),
            resource_type=str(event.get("resourceType", "Other")),
            headers={str(k): str(v) for k, v in dict(raw.get("headers", {})).items()},
            body=_body_of(raw),
            target_type=kind,
            top_level=top_level,
            session_id=session,
        )


def _body_of(raw: dict[str, Any]) -> bytes:
    """The request body, from its entries (base64) or its text."""
    entries = raw.get("postDataEntries")
    if entries:
        parts = []
        for entry in entries:
            with contextlib.suppress(ValueError):
                parts.append(base64.b64decode(entry.get("bytes", "")))
        return b"".join(parts)
    text = raw.get("postData")
    return text.encode("utf-8") if isinstance(text, str) else b""
