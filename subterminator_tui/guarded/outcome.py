"""How a run's outcome is judged: on evidence, and said in honest words.

The loop tells this judge about every approved irreversible step (what the person saw
right before it, and whether it went out); the judge verifies a claimed success on
that evidence (rules/evidence.py), recognises an account that was cancelled before the
run started, and turns a run that ends unverified after an approved step went out
into ``sent_not_verified``: "not cancelled" is said only when nothing irreversible
was sent. A commit that went out with nobody asked and that the service confirmed is a
guard miss: said as cancelled, and kept as one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.guarded.guard import Checkpoint
from subterminator_tui.results import TaskReason
from subterminator_tui.rules import ServiceConfig
from subterminator_tui.rules.evidence import (
    ApprovedStep,
    EvidenceLedger,
    RequestAnswer,
    RequestEvidence,
    StepOutcome,
    holds_on_seen,
    unasked_steps,
    verify_on_account_page,
    verify_on_evidence,
    verify_unasked,
)
from subterminator_tui.rules.matching import Verification, first_holding
from subterminator_tui.rules.requests import words

if TYPE_CHECKING:
    from subterminator_tui.guarded.request_gate import HeldRequest

#: Endings that keep their own words even after an approved step went out: the run was
#: interrupted, its outcome is already said to be unknown, or nothing ran.
_KEEP_REASON: frozenset[TaskReason] = frozenset(
    {
        "completed",
        "cancelled_unasked",
        "outcome_unknown",
        "interrupted",
        "dry_run",
        "already_cancelled",
        # Only another company or a call, chat or letter can cancel it: that is what the
        # person must do next, whatever a step here sent.
        "billed_elsewhere",
        "offline_only",
    }
)


#: Reads the requests that changed state at the service with nobody asked (request log).
UnaskedRequests = Callable[[], list[RequestAnswer]]


@dataclass(frozen=True)
class GuardMiss:
    """A commit that went out with nobody asked, and the service's confirmation of it."""

    #: The request, as ``METHOD host/path``.
    request: str
    #: What proves it, in words (the confirmation and the request).
    message: str

    @property
    def detail(self) -> str:
        """The journal's words for it: the request, then the proof."""
        return f"{self.request}: {self.message}"


class SeesText(Protocol):
    """What the judge needs of a browser: the text a person sees on its page.

    A run's browser is one; a served session's browser comes and goes (idle, restarts),
    so serve hands the judge whichever of its browsers runs now.
    """

    async def seen_text(self) -> str | None:
        """The text a person can see on the page, or None when it cannot be read."""
        ...


class OutcomeJudge:
    """One run's evidence, its verification, and the honest name of its ending.

    The cancel loop and serve's sessions both judge through it: serve's ``verified``
    flag rests on the same evidence as a run's success.
    """

    def __init__(
        self,
        service: ServiceConfig,
        browser: SeesText,
        scrub: Callable[[str], str],
        requests: RequestEvidence | None = None,
        unasked: UnaskedRequests | None = None,
    ) -> None:
        self.service = service
        self.browser = browser
        self.scrub = scrub
        #: The request gate's log, once it exists (None: the answers are unknown).
        self.requests = requests
        #: The requests that went out with nobody asked (None: nobody watched them).
        self.unasked_requests = unasked
        #: The guard miss this run proved, once it is proved.
        self.missed: GuardMiss | None = None
        self.evidence = EvidenceLedger()
        #: The run's first page and what it showed (for structural evidence).
        self.first_page: list[tuple[NormalizedSnapshot, str]] = []

    async def seen(self) -> str | None:
        """What a person sees on the page now, scrubbed of anything typed at a hand-off."""
        text = await self.browser.seen_text()
        return None if text is None else self.scrub(text)

    def approved(
        self,
        step_id: int | None,
        action: str,
        checkpoint: Checkpoint,
        page: NormalizedSnapshot,
        seen: str | None,
    ) -> ApprovedStep:
        """Note an approved step before it is dispatched, with what the person was shown
        (``seen``, read as they were asked: after the answer the browser may have hung)."""
        labels = tuple(label for target in checkpoint.effects.targets for label in target.labels)
        step = ApprovedStep(
            step_id,
            action,
            labels,
            checkpoint.spends_money,
            page,
            seen or "",
            commit=checkpoint.commit,
            cost=checkpoint.why if checkpoint.spends_money else "",
            target_labels=tuple(target.labels for target in checkpoint.effects.targets),
        )
        self.evidence.steps.append(step)
        return step

    async def unasked(
        self, action: str, labels: tuple[str, ...], page: NormalizedSnapshot
    ) -> ApprovedStep:
        """Note a step sent with checkpoints off (nobody is asked by the person's choice):
        it stands in for an approval, with what was seen right before it."""
        step = ApprovedStep(None, action, labels, False, page, await self.seen() or "")
        self.evidence.steps.append(step)
        return step

    def released(
        self, step_id: int | None, held: HeldRequest, page: NormalizedSnapshot | None
    ) -> None:
        """A request the page sent on its own, held and then released by the person: an
        approved step that is going out now. What was seen before it is ``page``, the last
        page its caller was shown (the browser is busy sending it: no fresh read)."""
        if page is None:
            return
        # Its address and why it was gated tell a cancellation from an offer or a pause.
        labels = (words(held.request.url.split("?", 1)[0]), held.judgement.why)
        step = ApprovedStep(
            step_id,
            held.action,
            labels,
            held.judgement.spends_money,
            page,
            page.content,
            commit=held.judgement.commit,
        )
        # Sent from this moment: its answer says done or failed (step_answered).
        step.outcome = "unknown"
        self.evidence.steps.append(step)

    def step_answered(self, step_id: int | None, ok: bool) -> None:
        """The service answered the request of a released step: done, or failed."""
        for step in self.evidence.steps:
            if step_id is not None and step.step_id == step_id:
                step.outcome = "done" if ok else "failed"

    @staticmethod
    def went(step: ApprovedStep | None, outcome: StepOutcome) -> None:
        """The approved step's dispatch ended ``outcome`` (done, failed or unknown)."""
        if step is not None:
            step.outcome = outcome

    async def verify(self, page: NormalizedSnapshot) -> Verification:
        """Whether this run's cancellation is verified on evidence, judged on ``page`` now."""
        return verify_on_evidence(
            self.service,
            page,
            await self.seen(),
            self.evidence.steps,
            self.requests,
            self.first_page,
        )

    async def on_account_page(self, page: NormalizedSnapshot) -> Verification:
        """Whether ``page``, the account page read again, proves the cancellation against the
        run's first look at it (rules/evidence.py: verify_on_account_page)."""
        seen = await self.seen()
        if seen is None or not self.first_page:
            return Verification(False, None, None, "Not verified: the account page was not read.")
        return verify_on_account_page(
            self.service, self.first_page[0], (page, seen), self.evidence.steps, self.requests
        )

    def went_unasked(self) -> list[RequestAnswer]:
        """The requests that changed state with nobody asked and that the service accepted,
        when no cancellation step the person approved went out (that one, proved or not, is
        what the person chose: no miss, whichever of the page's requests carried it)."""
        if self.unasked_requests is None or self._approved_cancellation_sent():
            return []
        return [answer for answer in self.unasked_requests() if answer.succeeded]

    def _approved_cancellation_sent(self) -> bool:
        return any(step.is_cancellation for step in self.evidence.sent())

    async def guard_miss(self, page: NormalizedSnapshot) -> GuardMiss | None:
        """The guard miss ``page`` proves, if any: the service confirms a cancellation that
        only a request sent with nobody asked can have carried (rules/evidence.py)."""
        if not self.first_page:
            return None
        went = self.went_unasked()
        steps = unasked_steps(went, self.first_page[0])
        if not steps:
            return None
        verification = verify_unasked(
            self.service, page, await self.seen(), went, self.first_page[0]
        )
        return self._missed(verification, steps[-1].action)

    async def guard_miss_on_account_page(self, page: NormalizedSnapshot) -> GuardMiss | None:
        """The guard miss the account page read again proves, if any: it ended against the
        run's first look at it, and only requests sent with nobody asked can have ended it."""
        seen = await self.seen()
        if seen is None or not self.first_page:
            return None
        steps = unasked_steps(self.went_unasked(), self.first_page[0])
        if not steps:
            return None
        verification = verify_on_account_page(self.service, self.first_page[0], (page, seen), steps)
        if verification.verified:
            verification = Verification(
                True,
                verification.success_rule,
                None,
                verification.message.replace(
                    "after the approved step", "with nobody asked, after the request"
                ),
            )
        return self._missed(verification, steps[-1].action)

    def _missed(self, verification: Verification, request: str) -> GuardMiss | None:
        if not verification.verified:
            return None
        self.missed = GuardMiss(request, verification.message)
        return self.missed

    async def already_cancelled(self, page: NormalizedSnapshot) -> Verification | None:
        """The first page already shows the cancellation (before anything was sent), or None."""
        seen = await self.seen()
        if seen is None:
            return None
        self.first_page = [(page, seen)]
        if first_holding(self.service.failure, page) is not None:
            return None
        held = next((r for r in self.service.success if holds_on_seen(r, page, seen)), None)
        if held is None:
            return None
        message = (
            f"{self.service.name} was already cancelled before this run: {held.explain()}. "
            "Nothing was sent."
        )
        return Verification(False, held, None, message)

    def sent_anything(self) -> bool:
        """Whether an approved irreversible step went out in this run and may have changed
        something at the service (a step known to have sent it nothing, a navigation that
        only opened a page, does not count)."""
        log = self.requests
        return any(
            log is None or log.reached_service(step.step_id) is not False
            for step in self.evidence.sent()
        )

    def needs_a_last_look(self, reason: TaskReason, success: bool) -> bool:
        """Whether the run should read the account page again before it ends: a commit
        went out, and nothing has verified it (nor was the run cut short)."""
        return not success and reason not in _KEEP_REASON and self.sent_anything()

    def approved_only_navigations(self) -> bool:
        """Whether approved steps went out and every one is known to have sent nothing that
        changes state: the run can say nothing irreversible was sent."""
        return bool(self.evidence.sent()) and not self.sent_anything()

    def honest_reason(self, reason: TaskReason, success: bool) -> TaskReason:
        """``reason``, or ``sent_not_verified`` when the run ends unverified after an
        approved step went out."""
        if success or reason in _KEEP_REASON or not self.sent_anything():
            return reason
        return "sent_not_verified"


def sent_not_verified_message(account_page: str, why: str) -> str:
    """The words of a ``sent_not_verified`` ending: what to check, then why it ended."""
    return f"Sent, not verified: check {account_page}. The run ended with {why}"
