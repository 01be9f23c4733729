"""Every request the browser makes, paused before it is sent, judged, then sent or failed.

A page can hide what causes an effect (a listener, a label, a timer, a shadow
root); it cannot hide the request that carries the effect to the service. The
request watch is a client of our DevTools session (devtools_session.py) and
pauses every request at the request stage (the Fetch domain), on every target:
pages, same- and out-of-process frames, dedicated, shared and service workers.
The session holds every new target until interception is on in it, so no
request of a new target leaves before it is watched. What to do with each
request is a :class:`RequestPolicy`'s call; the browser layer only carries it out.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Literal, Protocol
from urllib.parse import urlsplit

from cdp_use.cdp.dom.commands import GetDocumentReturns
from cdp_use.cdp.fetch.commands import ContinueRequestParameters, EnableParameters
from cdp_use.cdp.fetch.events import RequestPausedEvent
from cdp_use.cdp.library import CDPLibrary
from cdp_use.cdp.network.commands import EnableParameters as NetworkEnableParameters
from cdp_use.cdp.network.events import WebSocketCreatedEvent, WebSocketFrameSentEvent
from cdp_use.cdp.network.types import Request
from cdp_use.client import CDPClient

from subterminator_tui.browser.devtools_session import Command, DevToolsSession, SessionClient
from subterminator_tui.browser.egress.responses import refusal_page
from subterminator_tui.browser.page_links import PageLink, links_of

logger = logging.getLogger(__name__)

#: ``send``: let it go; ``fail``: the page sees a network error; ``observe``: let it go
#: and report the service's answer (:meth:`RequestPolicy.answered`).
#: ``refuse``: answered in the browser with the egress filter's own refusal page (a
#: top-level page that must not load, shown as such rather than as a network error).
Verdict = Literal["send", "fail", "observe", "refuse"]

#: Network events are not read: no body is kept for them.
_QUIET_NETWORK: NetworkEnableParameters = {
    "maxTotalBufferSize": 0,
    "maxResourceBufferSize": 0,
    "maxPostDataSize": 0,
}
#: Every request of a target paused, at the request stage.
_EVERY_REQUEST: EnableParameters = {"patterns": [{"urlPattern": "*"}]}


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


class RequestWatch(SessionClient):
    """Every request of every target of our DevTools session paused, judged, then let go."""

    def __init__(self, session: DevToolsSession, policy: RequestPolicy | None = None) -> None:
        self.session = session
        self.policy: RequestPolicy = policy or SendEverything()
        self.cost = InterceptionCost()
        self._observed: dict[str, InterceptedRequest] = {}
        #: WebSocket URLs by "session:requestId".
        self._sockets: dict[str, str] = {}
        #: The hosts of the pages answered with the refusal page, in order (the egress
        #: filter counts its own; a page refused here never reaches it).
        self.refused_hosts: list[str] = []
        #: The page's own data requests (XHR, fetch) sent and not yet answered, and how many
        #: started so far: a single-page app draws its controls once they are answered.
        self.data_in_flight: set[str] = set()
        self.data_started = 0
        self._data_changed = asyncio.Event()
        session.join(self)

    def judge_with(self, policy: RequestPolicy) -> None:
        """``policy`` decides every request paused from now on (a run's or a session's gate)."""
        self.policy = policy

    @property
    def attached(self) -> bool:
        """Whether the watch is connected to a browser."""
        return self.session.attached

    def listen(self, cdp: CDPClient) -> None:
        """Paused requests and the sockets' frames (a socket cannot be paused: reported)."""
        cdp.register.Fetch.requestPaused(self._on_paused)
        cdp.register.Network.webSocketCreated(self._on_socket)
        cdp.register.Network.webSocketFrameSent(self._on_frame)

    def before_run(self, send: CDPLibrary, session_id: str, kind: str) -> list[Awaitable[object]]:
        """Every request of the new target paused, before its first one."""
        return [send.Fetch.enable(_EVERY_REQUEST, session_id)]

    async def running(self, send: CDPLibrary, session_id: str) -> None:
        """Socket frames reported (only once it runs: a popup waiting for the debugger never
        answers Network.enable)."""
        with contextlib.suppress(Exception):
            await send.Network.enable(_QUIET_NETWORK, session_id)

    async def links(self) -> list[PageLink]:
        """Every link and form target of every page and frame (shadow roots pierced)."""
        found: list[PageLink] = []
        if not self.session.attached:
            return found
        started = time.perf_counter()
        for frame in self.session.frames():
            tree = await self.session.ask(frame, _whole_document)
            if tree is not None:  # else the frame closed or is navigating: read next time
                found += links_of(tree["root"])
        self.cost.link_reads.append(time.perf_counter() - started)
        return found

    def _on_socket(self, event: WebSocketCreatedEvent, session: str | None) -> None:
        self._sockets[f"{session}:{event.get('requestId')}"] = str(event.get("url", ""))

    def _on_frame(self, event: WebSocketFrameSentEvent, session: str | None) -> None:
        url = self._sockets.get(f"{session}:{event.get('requestId')}", "")
        payload = str(event.get("response", {}).get("payloadData", ""))
        try:
            self.policy.socket_frame(url, payload)
        except Exception:
            logger.exception("a WebSocket frame could not be recorded")

    def _on_paused(self, event: RequestPausedEvent, session: str | None) -> None:
        answered = "responseStatusCode" in event or "responseErrorReason" in event
        if not answered and event.get("resourceType") in _DATA_TYPES:
            # Counted the moment it pauses, before it is judged: a call that returns while
            # the page's data request waits for its verdict still waits for its answer.
            self._data_request(str(event.get("requestId")), answered=False)
        self.session.spawn(self._decide_or_fail(event, session))

    async def _decide_or_fail(self, event: RequestPausedEvent, session: str | None) -> None:
        """Decide; a request is never left paused, whatever goes wrong deciding it."""
        try:
            await self._decide(event, session)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("a paused request could not be judged; it is failed, not sent")
            request_id = str(event.get("requestId"))
            self._data_request(request_id, answered=True)
            await self.session.send(session, _failed(request_id))

    async def _decide(self, event: RequestPausedEvent, session: str | None) -> None:
        started = time.perf_counter()
        request_id = str(event["requestId"])
        if "responseStatusCode" in event or "responseErrorReason" in event:
            self._data_request(request_id, answered=True)
            observed = self._observed.pop(request_id, None)
            if observed is not None:
                self.policy.answered(observed, event.get("responseStatusCode"))
            await self.session.send(
                session, lambda send, to: send.Fetch.continueResponse({"requestId": request_id}, to)
            )
            return
        request = self._request(event, session)
        try:
            verdict = await self.policy.judge(request)
        except Exception:
            logger.exception("the request policy failed; the request is failed, not sent")
            verdict = "fail"
        if verdict in ("fail", "refuse"):
            # It never reaches the service: no answer will come to wait for.
            self._data_request(request_id, answered=True)
        if verdict == "fail":
            await self.session.send(session, _failed(request_id))
        elif verdict == "refuse":
            host = urlsplit(request.url).netloc
            self.refused_hosts.append(urlsplit(request.url).hostname or host)
            page = refusal_page(host, "reachable only while you sign in there yourself")
            await self.session.send(
                session,
                lambda send, to: send.Fetch.fulfillRequest(
                    {
                        "requestId": request_id,
                        "responseCode": 403,
                        "responseHeaders": [
                            {"name": "Content-Type", "value": "text/html; charset=utf-8"},
                            {"name": "Cache-Control", "value": "no-store"},
                        ],
                        "body": base64.b64encode(page).decode("ascii"),
                    },
                    to,
                ),
            )
        else:
            go_on: ContinueRequestParameters = {"requestId": request_id}
            if verdict == "observe":
                self._observed[request_id] = request
                go_on["interceptResponse"] = True
            if request.resource_type in _DATA_TYPES:
                # Its answer is awaited too: the page is drawn once its data arrived.
                go_on["interceptResponse"] = True
            await self.session.send(session, lambda send, to: send.Fetch.continueRequest(go_on, to))
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

    def _request(self, event: RequestPausedEvent, session: str | None) -> InterceptedRequest:
        raw = event["request"]
        kind = self.session.targets.get(session or "", "other")
        top_level = (
            kind == "page"
            and event.get("resourceType") == "Document"
            and event.get("frameId") == self.session.target_ids.get(session or "")
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


def _whole_document(send: CDPLibrary, frame: str | None) -> Awaitable[GetDocumentReturns]:
    """The frame's whole DOM, shadow roots and frames pierced."""
    return send.DOM.getDocument({"depth": -1, "pierce": True}, frame)


def _failed(request_id: str) -> Command[object]:
    """The request failed as if the network refused it (the page sees a network error)."""
    return lambda send, to: send.Fetch.failRequest(
        {"requestId": request_id, "errorReason": "BlockedByClient"}, to
    )


def _body_of(raw: Request) -> bytes:
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
