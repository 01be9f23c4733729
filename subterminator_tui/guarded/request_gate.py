"""The request gate: each request the browser sends is judged where the effect happens.

The guard predicts a call's effect from the page before the call (and asks
then, which is what a person wants); a page can still hide a cause behind a
listener, a label or a timer. The request that carries the effect cannot hide
what it is, so every request is judged again here, paused in the browser
(browser/interception.py, a client of our DevTools session):

* a top-level navigation outside the service's domains is failed before it is
  sent, on HTTPS as on HTTP;
* a *gated* request (rules/requests.py) goes on only while a call a person
  approved is being sent (the prediction and the request agree); any other one
  is held in the browser, nothing sent, and the person is asked with the truth:
  method, host, path, the fields decoded (secrets masked) and the call before
  it. Yes sends it, no fails it (the page sees a network error), no answer
  fails it. It is journaled like any checkpoint (asked, decision, dispatched,
  outcome), so a crash never repeats or loses it;
* any other state-changing request goes on and is written to the request log
  with the service's answer (journal/request_log.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from subterminator_tui.browser.interception import InterceptedRequest, Verdict
from subterminator_tui.browser.page_links import PageLink
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.guarded.browser import Browser
from subterminator_tui.guarded.gates import CheckpointRequest, TimedGate
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.guarded.outcome import OutcomeJudge
from subterminator_tui.guarded.step_log import StepLog
from subterminator_tui.journal.request_log import RequestKind, RequestLog, RequestVerdict
from subterminator_tui.rules.commit import (
    asks_before_opening,
    commit_in_labels,
    opens_its_flow,
)
from subterminator_tui.rules.effects import EffectTarget
from subterminator_tui.rules.matching import rule_naming
from subterminator_tui.rules.requests import (
    RequestJudgement,
    address_key,
    classify,
    is_speculative,
)

#: Seconds a held request waits for an answer before it fails (nobody answered).
HELD_REQUEST_TIMEOUT = 600.0


@dataclass(frozen=True)
class HeldRequest:
    """A gated request nobody predicted, waiting in the browser for a person."""

    request: InterceptedRequest
    judgement: RequestJudgement
    #: The call that preceded it, in words.
    after: str

    @property
    def why(self) -> str:
        """Why the person is asked."""
        return (
            "The page sent a request that no approved step explains "
            f"({self.judgement.why}); it is held in the browser, nothing was sent"
        )

    @property
    def action(self) -> str:
        """The request in words: method, host and path, the fields, the call before it."""
        parts = urlsplit(self.request.url)
        text = f"Send {self.request.method} {parts.hostname or ''}{parts.path or '/'}"
        if self.judgement.shown:
            text += " with " + ", ".join(self.judgement.shown)
        return f"{text} (sent by the page after: {self.after})"


#: Asks the person (or serve's operator) about a held request: True releases it.
AskAboutRequest = Callable[[HeldRequest], Awaitable[bool]]
#: A held request the person released goes out now (its journal step): the outcome judge
#: counts it as an approved step, evidence like a checkpoint's (OutcomeJudge.released).
OnRelease = Callable[[int | None, HeldRequest, NormalizedSnapshot | None], None]
#: The service answered a released request's step: done (True) or failed.
OnStepAnswer = Callable[[int | None, bool], None]
#: Reads every link and form of the browser's pages (RequestWatch.links).
ReadLinks = Callable[[], Awaitable[list[PageLink]]]


class RequestGate:
    """One run's (or one served session's) policy for the requests of its browser."""

    def __init__(
        self,
        guard: Guard,
        log: StepLog,
        ask: AskAboutRequest,
        *,
        scrub: Callable[[str], str],
        request_log: RequestLog | None = None,
        run_id: int | Callable[[], int | None] | None = None,
        links: ReadLinks | None = None,
        timeout: float = HELD_REQUEST_TIMEOUT,
        on_release: OnRelease | None = None,
        on_step_answer: OnStepAnswer | None = None,
    ) -> None:
        self.guard = guard
        self.links = links
        self.log = log
        self.ask = ask
        self.scrub = scrub
        self.request_log = request_log
        #: The journal run its requests belong to (a run starts after its gate is built).
        self._run_id = run_id
        self.timeout = timeout
        #: The turn whose call is (or was last) in flight.
        self.turn = 0
        #: That call in words, for the question.
        self.after = "the page opened"
        #: A call a person approved is being sent now: its gated requests were predicted.
        self.approved_in_flight = False
        #: Where that call was predicted to send (address keys; None or empty: unknown), and
        #: whether it was asked as spending money: the approval covers that much only.
        self.approved_sends: frozenset[str] | None = None
        self.approved_money = False
        #: The approved step in flight, if any: its gated requests are its evidence.
        self.step_in_flight: int | None = None
        #: Top-level navigations outside the domains are failed from the first call on;
        #: the start page itself (the person's choice, not a page's) is contained and
        #: asked about as before.
        self.keep_domains = False
        #: Gated addresses read from the page's DOM (every frame, shadow roots pierced).
        self.dom_gated: dict[str, str] = {}
        #: Addresses a form's submit control sends to whose own name says it ends the
        #: subscription ("Cancel subscription"), read from the DOM like the gated ones.
        self.dom_commits: dict[str, str] = {}
        #: What the pilot must hear: requests failed since it last heard.
        self.notes: list[str] = []
        #: How often a held request was asked about (the noise of the gate itself).
        self.questions = 0
        self._rows: dict[str, int] = {}
        self._steps: dict[str, int | None] = {}
        #: Told of each released request and of its answer (the run's outcome judge).
        self.on_release = on_release
        self.on_step_answer = on_step_answer

    @property
    def run_id(self) -> int | None:
        """The journal run this gate's requests are written to (None: not journaled)."""
        return self._run_id() if callable(self._run_id) else self._run_id

    # --- what the pipeline tells the gate -----------------------------------------------

    def call_starts(
        self,
        turn: int,
        action: str,
        *,
        approved: bool,
        step: int | None = None,
        sends: tuple[str, ...] = (),
        money: bool = False,
    ) -> None:
        """A call goes to the browser; ``approved``: a person approved its checkpoint
        (journal ``step``, whose requests the log links to it as its evidence), which was
        predicted to send to ``sends`` (empty: unknown) and asked as spending ``money``."""
        self.turn, self.after, self.approved_in_flight = turn, action, approved
        self.step_in_flight = step if approved else None
        self.approved_sends = frozenset(address_key(url) for url in sends) if approved else None
        self.approved_money = approved and money
        self.keep_domains = True

    def call_ends(self) -> None:
        """The call has its answer: from now on nothing is predicted."""
        self.approved_in_flight = False
        self.step_in_flight = None
        self.approved_sends = None
        self.approved_money = False

    def _approved_covers(self, request: InterceptedRequest, judgement: RequestJudgement) -> bool:
        """Whether the approval in flight covers ``request``: what the person was asked about
        (its address, when it was known), never money they were not asked to spend."""
        if not self.approved_in_flight:
            return False
        if judgement.spends_money and not self.approved_money:
            return False
        sends = self.approved_sends
        return not sends or address_key(request.url) in sends

    async def read_page(self) -> None:
        """Learn the gated links and forms of every frame from the DOM, hidden ones too."""
        if self.links is None:
            return
        gated: dict[str, str] = {}
        commits: dict[str, str] = {}
        for link in await self.links():
            named = None if link.plain else commit_in_labels(link.labels)
            if named is not None:
                commits.setdefault(address_key(link.url), named)
            rule = rule_naming(self.guard.rules, link.labels)
            if link.plain or opens_its_flow(link.labels, link.url):
                # Opening a page, or entering the flow, is not the step a built-in word means.
                rule = asks_before_opening(rule, link.labels)
            if rule is not None:
                label = link.labels[0] if link.labels else link.url
                gated.setdefault(
                    address_key(link.url), f"the address of '{label}': {rule.explain()}"
                )
        self.dom_gated = gated
        self.dom_commits = commits

    def take_notes(self) -> list[str]:
        """What the pilot has not heard yet (failed requests), once."""
        notes, self.notes = self.notes, []
        return notes

    # --- the policy -----------------------------------------------------------------------

    async def judge(self, request: InterceptedRequest) -> Verdict:
        """Send, fail or observe one paused request."""
        scheme = urlsplit(request.url).scheme
        if scheme not in ("http", "https"):
            return "send"
        # The run's one answer to "reachable right now?": the service's domains, and its
        # sign-in domains while a sign-in hand-off is open (the egress filter asks the same).
        reachable = self.guard.reach.reachable(request.url)
        if request.top_level and not reachable and self.guard.reach.is_sign_in_page(request.url):
            # A sign-in page while the window is closed: our own refusal page stands in,
            # so the run hands the browser to the person and loads it again for them.
            return "refuse"
        if request.top_level and self.keep_domains and not reachable:
            self.notes.append(
                f"The browser was stopped from opening {self._address(request)}: it is outside "
                "the service's allowed domains. Nothing was sent."
            )
            return "fail"
        if is_speculative(request):
            # Loaded the moment a page names it, before anyone chose to open it.
            return "fail"
        judgement = classify(request, self.guard.rules, self._gated_address, self._commit_named)
        if judgement.kind == "state_changing" and request.resource_type != "Document":
            # A form the page built since the call began: read the page again, then judge.
            # (Not during a navigation: the DOM does not answer while one is paused.)
            await self.read_page()
            judgement = classify(request, self.guard.rules, self._gated_address, self._commit_named)
        if judgement.kind == "safe":
            return "send"
        if judgement.kind == "state_changing":
            # Linked to the approved step in flight, if any: what that step really sent.
            self._write(request, "state_changing", judgement, "sent", self.step_in_flight)
            return "observe"
        if self._approved_covers(request, judgement) or not self.guard.checkpoints:
            # Predicted by a step a person approved (or checkpoints are off for this run).
            self._write(request, "gated", judgement, "predicted", self.step_in_flight)
            return "observe"
        return await self._hold(request, judgement)

    def answered(self, request: InterceptedRequest, status: int | None) -> None:
        """The service answered an observed request: the log and its step learn how."""
        row = self._rows.pop(request.request_id, None)
        if row is not None and self.request_log is not None:
            self.request_log.answered(row, status)
        if request.request_id in self._steps:
            step = self._steps.pop(request.request_id)
            ok = status is not None and status < 400
            self.log.step_outcome(step, "done" if ok else "failed")
            if self.on_step_answer is not None:
                self.on_step_answer(step, ok)

    def socket_frame(self, url: str, payload: str) -> None:
        """A frame the page sent on a WebSocket: it could not be held, so it is recorded as an
        effect (the request log) and the pilot hears of it."""
        parts = urlsplit(url)
        frame = InterceptedRequest(
            request_id=f"frame-{id(payload)}",
            method="WEBSOCKET",
            url=url.replace("ws", "http", 1),
            resource_type="WebSocket",
            headers={"content-type": "application/json" if payload[:1] in "{[" else ""},
            body=payload.encode("utf-8", "replace"),
            target_type="page",
            top_level=False,
        )
        judgement = classify(frame, self.guard.rules, self._gated_address)
        kind: RequestKind = "gated" if judgement.kind == "gated" else "state_changing"
        self._write(frame, kind, judgement, "sent")
        self._rows.pop(frame.request_id, None)
        self.notes.append(
            f"The page sent a frame on its WebSocket to {parts.netloc}{parts.path} "
            f"({', '.join(judgement.fields) or 'no fields'}); it went out."
        )

    async def _hold(self, request: InterceptedRequest, judgement: RequestJudgement) -> Verdict:
        held = HeldRequest(request, judgement, self.after)
        action = self.scrub(held.action)
        step = self.log.question(self.turn, held.why, action, self.scrub(self._address(request)))
        self.questions += 1
        try:
            release = await asyncio.wait_for(self.ask(held), self.timeout)
        except TimeoutError:
            release = False
        self.log.decision(step, "approve" if release else "reject")
        if not release:
            self._write(request, "gated", judgement, "failed", step)
            self.notes.append(
                f"The page tried to send {request.method} {self._address(request)} on its own; "
                "the person refused it and it was not sent (the page saw a network error)."
            )
            return "fail"
        # Written before it goes out: a crash now reads "dispatched, outcome unknown".
        self.log.dispatch(step)
        self._steps[request.request_id] = step
        self._write(request, "gated", judgement, "approved", step)
        if self.on_release is not None:
            # An approved irreversible step like a checkpoint's: a cancellation it carries
            # is verified on its evidence, and the run never says "not cancelled" after it.
            self.on_release(step, held, self.guard.last_page)
        return "observe"

    def _write(
        self,
        request: InterceptedRequest,
        kind: RequestKind,
        judgement: RequestJudgement,
        verdict: RequestVerdict,
        step: int | None = None,
    ) -> None:
        run_id = self.run_id
        if self.request_log is None or run_id is None:
            return
        parts = urlsplit(request.url)
        row = self.request_log.add(
            run_id,
            self.turn,
            kind=kind,
            method=request.method,
            host=parts.netloc,
            path=self.scrub(parts.path or "/"),
            resource_type=request.resource_type,
            fields=tuple(self.scrub(name) for name in judgement.fields),
            verdict=verdict,
            step_id=step,
        )
        if verdict != "failed":
            self._rows[request.request_id] = row

    def _gated_address(self, key: str) -> str | None:
        """Why the address ``key`` (scheme, host, path) is a gated link's or form's, or None."""
        found = self.dom_gated.get(key)
        if found is not None:
            return found
        for target in self._targets_sending_to(key):
            rule = rule_naming(self.guard.rules, target.labels)
            if target.role == "link" or opens_its_flow(target.labels, key):
                rule = asks_before_opening(rule, target.labels)
            if rule is not None:
                return f"the address of {target.describe()}: {rule.explain()}"
        return None

    def _commit_named(self, key: str) -> str | None:
        """What a control (not a plain link) that sends to the address ``key`` says it ends,
        as the DOM or a snapshot named it, or None."""
        found = self.dom_commits.get(key)
        if found is not None:
            return found
        for target in self._targets_sending_to(key):
            named = None if target.role == "link" else commit_in_labels(target.labels)
            if named is not None:
                return named
        return None

    def _targets_sending_to(self, key: str) -> Iterator[EffectTarget]:
        """The controls the run has seen whose address (scheme, host, path) is ``key``."""
        for url, targets in self.guard.memory.destinations.items():
            if address_key(url) == key:
                yield from targets

    @staticmethod
    def _address(request: InterceptedRequest) -> str:
        parts = urlsplit(request.url)
        return f"{parts.scheme}://{parts.netloc}{parts.path or '/'}"


def gate_for_run(
    browser: Browser,
    guard: Guard,
    log: StepLog,
    human: TimedGate,
    scrub: Callable[[str], str],
    *,
    request_log: RequestLog | None = None,
    run_id: Callable[[], int | None] | None = None,
    judge: OutcomeJudge | None = None,
) -> RequestGate | None:
    """A run's request gate on ``browser``'s watch, asking ``human`` about held requests;
    the requests it releases are ``judge``'s evidence."""
    watch = browser.requests
    if watch is None:
        return None

    async def ask(held: HeldRequest) -> bool:
        # No screenshot: the browser is busy with the call that sent the request.
        question = CheckpointRequest(
            kind="held_request",
            why=held.why,
            action=scrub(held.action),
            url=scrub(RequestGate._address(held.request)),
            screenshot_path=None,
            spends_money=held.judgement.spends_money,
            commit=held.judgement.commit,
        )
        return (await human.approve(question)).verdict == "approve"

    gate = RequestGate(
        guard,
        log,
        ask,
        scrub=scrub,
        links=watch.links,
        request_log=request_log,
        run_id=run_id,
        on_release=judge.released if judge is not None else None,
        on_step_answer=judge.step_answered if judge is not None else None,
    )
    watch.judge_with(gate)
    return gate
