"""Verified means evidence: what a success must rest on besides a sentence on a page.

A page can print any success text anywhere: on a survey before the last step, in
an off-screen screen-reader-only element, in the title, behind ``aria-hidden``,
in CSS ``::after`` content, at a ``/done`` address written by ``pushState``. So a
cancellation is verified only when all of these hold:

1. a success rule holds on text a person can see after the step (the seen text:
   rendered, on the page, not aria-hidden, not clipped, never only the title; a
   rule of URL and title conditions alone is no evidence);
2. an approved *cancellation* step was dispatched in this run and did not fail
   (approving a pause or an offer proves nothing about a cancellation), and, when
   the request log knows the request that step sent, the service answered it with
   success (an error answer is no evidence at all);
3. that rule did not already hold on what the person saw right before the step.

A failure rule holding on the page beats everything, as before.

A commit can still go out with nobody asked (a control no rule can read). When the
service then confirms the cancellation, the run must not say "not cancelled":
:func:`verify_unasked` proves such a guard miss on the same evidence, with the request
that went out unasked standing where the approved step would.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.rules.matching import Verification, first_holding, rule_holds
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.page_rules import PageRule
from subterminator_tui.rules.sentences import every_language_pattern
from subterminator_tui.rules.text import normalise_text

#: Conditions that read what the page says (as opposed to its address or title).
_TEXT_KEYS = ("text_any", "text_all", "text_regex", "heading_any", "heading_regex")
_ELEMENT_KEYS = ("element_any", "element_regex")
_PLACE_KEYS = {"url_any": (), "url_regex": (), "title_any": (), "title_regex": ()}

#: Steps that keep, pause, buy or change the plan: approving one proves no cancellation.
_NOT_A_CANCELLATION = "controls.not_a_cancellation"
#: A control that starts or finishes a cancellation.
_CANCEL_CONTROL = "controls.cancel"
#: A control that brings a cancelled subscription back: it is shown only once cancelled.
_RESUME_CONTROL = "controls.resume"
_CONTROL_ROLES = frozenset({"button", "link"})
#: Any named control: what the account page offered before and after, compared.
_ANY_CONTROL = re.compile(r"\S")

StepOutcome = Literal["pending", "done", "failed", "unknown"]


@dataclass(frozen=True)
class RequestAnswer:
    """How the service answered the request an approved step sent (from the request log)."""

    method: str
    path: str
    status: int
    at: str

    @property
    def succeeded(self) -> bool:
        """2xx, or a 3xx redirect after a form post (how sites answer a finished form)."""
        return 200 <= self.status < 400


class RequestEvidence(Protocol):
    """Where the verifier asks how the service answered an approved step's request.

    The request gate's journal request log implements it; until then
    :class:`NoRequestLog` answers "unknown" and the other evidence decides alone.
    """

    def answer_for(self, step_id: int | None) -> RequestAnswer | None:
        """The service's answer to the request ``step_id`` sent, or None when unknown."""
        ...

    def reached_service(self, step_id: int | None) -> bool | None:
        """Whether ``step_id`` sent the service a request that changes state; None when
        nobody watched its requests (a remote browser, no journal)."""
        ...


class NoRequestLog:
    """No request log: every answer is unknown."""

    def answer_for(self, step_id: int | None) -> RequestAnswer | None:
        """Always None."""
        return None

    def reached_service(self, step_id: int | None) -> bool | None:
        """Always None: unknown."""
        return None


@dataclass
class ApprovedStep:
    """An irreversible step the person approved, and what was seen right before it."""

    step_id: int | None
    action: str
    #: Every label of the step's target(s), to tell a cancellation from an offer or a pause.
    labels: tuple[str, ...]
    #: The money checkpoint asked: the step spends money (a cancellation only when it also
    #: says it cancels: an early-termination fee).
    spends_money: bool
    before: NormalizedSnapshot
    before_seen: str
    outcome: StepOutcome = "pending"
    #: The built-in commit checkpoint asked: what the step sends ends the subscription.
    commit: bool = False
    #: What the person was told the step costs, when it spends money (a fee to cancel).
    cost: str = ""
    #: The labels of each element the step activates, apart (``labels`` holds them all):
    #: a click on "Remind me later" that submits a form through "Cancel my plan" was
    #: asked, and approved, as both.
    target_labels: tuple[tuple[str, ...], ...] = ()

    @property
    def is_cancellation(self) -> bool:
        """Whether approving this step can be evidence for a cancellation: one of the
        elements it activates says nothing of keeping, pausing, buying or changing the plan
        (judged on each element's own labels, every one of them)."""
        # An element with no name at all says nothing either way: it never outweighs one
        # that is named.
        named = [labels for labels in self.target_labels if labels]
        return any(self._cancels(labels) for labels in named or [self.labels])

    def _cancels(self, labels: tuple[str, ...]) -> bool:
        said = [normalise_text(x) for x in labels]
        if any(every_language_pattern(_NOT_A_CANCELLATION).search(x) for x in said):
            return False
        if self.spends_money:
            # A fee is asked with its amount; paying it to cancel is still the cancellation.
            cancels = every_language_pattern(_CANCEL_CONTROL)
            return self.commit or any(cancels.search(x) for x in said)
        return True

    @property
    def sent(self) -> bool:
        """The step went to the browser: done, or failed or lost after it may have acted."""
        return self.outcome != "pending"


@dataclass
class EvidenceLedger:
    """The approved steps of one run, in order."""

    steps: list[ApprovedStep] = field(default_factory=list)

    def sent(self) -> list[ApprovedStep]:
        """Approved steps that reached the browser."""
        return [step for step in self.steps if step.sent]


def seen_page(page: NormalizedSnapshot, seen: str) -> NormalizedSnapshot:
    """``page`` reduced to what a person sees: its text is ``seen``, its elements only those
    whose name shows in ``seen``, and no title (a title alone confirms nothing)."""
    visible = normalise_text(" ".join(seen.split())).casefold()
    elements = tuple(
        element
        for element in page.elements
        if element.name and normalise_text(" ".join(element.name.split())).casefold() in visible
    )
    lines = tuple(SnapshotElement("text", text=line) for line in seen.splitlines() if line.strip())
    return dataclasses.replace(page, title="", content=seen, elements=elements + lines)


def holds_on_seen(rule: PageRule, page: NormalizedSnapshot, seen: str) -> bool:
    """Whether ``rule`` holds with its text conditions read on the seen text only.

    Its URL and title conditions still read the page; a rule with nothing but those is
    never evidence (a ``pushState`` to ``/done``, a title).
    """
    if not any(getattr(rule, key) for key in (*_TEXT_KEYS, *_ELEMENT_KEYS)):
        return False
    if not rule_holds(rule, page):
        return False
    return text_shown(rule, page, seen)


def text_shown(rule: PageRule, page: NormalizedSnapshot, seen: str) -> bool:
    """Whether the text conditions of ``rule`` hold on the seen text (address and title
    ignored): was the confirmation's text in front of the person?"""
    if not any(getattr(rule, key) for key in (*_TEXT_KEYS, *_ELEMENT_KEYS)):
        return False
    return rule_holds(rule.model_copy(update=_PLACE_KEYS), seen_page(page, seen))


def verify_on_evidence(
    service: ServiceConfig,
    page: NormalizedSnapshot,
    seen: str | None,
    steps: Sequence[ApprovedStep],
    requests: RequestEvidence | None = None,
    earlier: Sequence[tuple[NormalizedSnapshot, str]] = (),
) -> Verification:
    """Whether this run's cancellation is verified on evidence (see the module docstring).

    ``earlier`` are pages the run saw before (the first page, with its seen text): a
    cancel control on one of them, replaced now by a resume control, is evidence too.
    """
    failure = first_holding(service.failure, page)
    if failure is not None:
        return _not(f"the page shows a failure ({failure.explain()})", failure=failure)
    if seen is None:
        return _not("the page's visible text could not be read")
    log = requests or NoRequestLog()
    # An approved step that sent the service nothing that changes state (a navigation) is
    # no commit: only what reached the service can have ended the subscription.
    cancellations = [
        step
        for step in steps
        if step.sent and step.is_cancellation and log.reached_service(step.step_id) is not False
    ]
    success = next((rule for rule in service.success if holds_on_seen(rule, page, seen)), None)
    if success is None:
        swapped = _control_swapped(cancellations, page, seen, requests, earlier)
        if swapped is not None:
            return swapped
        return _not(f"no success rule holds on the text shown at {page.url}")
    if not cancellations:
        return _not(
            "no approved cancellation step was sent in this run; a confirmation on a page "
            "is not evidence by itself",
            success=success,
        )
    for step in reversed(cancellations):
        answer = log.answer_for(step.step_id)
        if answer is not None and not answer.succeeded:
            continue
        if text_shown(success, step.before, step.before_seen):
            continue
        verification = Verification(True, success, None, "")
        how = "by generic rules" if verification.verified_by == "generic" else ""
        answered = f"; the service answered {answer.status}" if answer is not None else ""
        cost = f" It cost money, as you approved: {step.cost}." if step.cost else ""
        message = (
            f"Verified{' ' + how if how else ''}: {success.explain()}, shown after the approved "
            f"step ({step.action}){answered}.{cost}"
        )
        return dataclasses.replace(verification, message=message)
    return _not(
        "the confirmation was already shown before the approved step, or the service "
        "answered its request with an error",
        success=success,
    )


def _controls(page: NormalizedSnapshot, words: str | re.Pattern[str], seen: str) -> list[str]:
    """Names of the buttons and links matching the list ``words`` (or a pattern) that a
    person sees."""
    pattern = every_language_pattern(words) if isinstance(words, str) else words
    shown = normalise_text(" ".join(seen.split())).casefold()
    return [
        element.name
        for element in page.elements
        if element.role in _CONTROL_ROLES
        and pattern.search(normalise_text(element.name))
        and normalise_text(" ".join(element.name.split())).casefold() in shown
    ]


def _control_swapped(
    cancellations: Sequence[ApprovedStep],
    page: NormalizedSnapshot,
    seen: str,
    requests: RequestEvidence | None,
    earlier: Sequence[tuple[NormalizedSnapshot, str]],
) -> Verification | None:
    """Structural evidence: before the approved step a page offered to cancel; now that
    control is gone and one to resume, restart or reactivate shows instead."""
    resume = _controls(page, _RESUME_CONTROL, seen)
    if not resume or _controls(page, _CANCEL_CONTROL, seen):
        return None
    log = requests or NoRequestLog()
    for step in reversed(cancellations):
        answer = log.answer_for(step.step_id)
        if answer is not None and not answer.succeeded:
            continue
        pages = [(step.before, step.before_seen), *earlier]
        before = [name for shown, text in pages for name in _controls(shown, _CANCEL_CONTROL, text)]
        resumable = any(_controls(shown, _RESUME_CONTROL, text) for shown, text in pages)
        if before and not resumable:
            message = (
                f"Verified by structure: '{before[0]}' was replaced by '{resume[0]}' after the "
                f"approved step ({step.action})."
            )
            return Verification(True, None, None, message)
    return None


def verify_on_account_page(
    service: ServiceConfig,
    first: tuple[NormalizedSnapshot, str],
    again: tuple[NormalizedSnapshot, str],
    steps: Sequence[ApprovedStep],
    requests: RequestEvidence | None = None,
) -> Verification:
    """The second proof: the account page where the run started, read again after a commit.

    It compares the page with itself, so it holds in any language and on any wording:
    the control that offered to cancel is gone, and a resume or restart control, or a
    success rule, shows where the plan was. A pause, a snooze or an accepted offer leaves
    the page offering to cancel: not verified.
    """
    (before, before_seen), (page, seen) = first, again
    log = requests or NoRequestLog()
    commits = [
        step
        for step in steps
        if step.sent
        and step.is_cancellation
        and log.reached_service(step.step_id) is not False
        and _not_refused(log.answer_for(step.step_id))
    ]
    if not commits:
        return _not("no approved cancellation reached the service in this run")
    if first_holding(service.failure, page) is not None:
        return _not("the account page shows a failure")
    if _controls(page, _CANCEL_CONTROL, seen):
        still = _controls(page, _CANCEL_CONTROL, seen)[0]
        return _not(f"the account page still offers to cancel ('{still}')")
    # The control that started this cancellation (a "Cancel" or a "Manage") is gone ...
    shown_before = set(_controls(before, _ANY_CONTROL, before_seen))
    gone = sorted(shown_before - set(_controls(page, _ANY_CONTROL, seen)))
    if not gone:
        return _not("the account page offers the same controls as before")
    # ... and a resume or restart control, or a success rule, stands where the plan was.
    resume = [name for name in _controls(page, _RESUME_CONTROL, seen) if name not in shown_before]
    success = next((rule for rule in service.success if holds_on_seen(rule, page, seen)), None)
    if not resume and success is None:
        return _not("the account page changed, but nothing on it says the plan ends")
    shows = f"'{resume[0]}'" if resume else success.explain() if success else ""
    cost = f" It cost money, as you approved: {commits[-1].cost}." if commits[-1].cost else ""
    message = (
        f"Verified on the account page read again: '{gone[0]}' is gone and it shows "
        f"{shows}, after the approved step ({commits[-1].action}).{cost}"
    )
    return Verification(True, success, None, message)


def unasked_steps(
    unasked: Sequence[RequestAnswer], first: tuple[NormalizedSnapshot, str]
) -> list[ApprovedStep]:
    """The requests that changed state with nobody asked and that the service accepted, as
    steps seen from the run's first page (a pause or an offer among them is no cancellation)."""
    before, before_seen = first
    steps = [
        ApprovedStep(
            None,
            f"{answer.method} {answer.path}",
            (answer.path.replace("/", " "),),
            False,
            before,
            before_seen,
            outcome="done",
        )
        for answer in unasked
        if answer.succeeded
    ]
    return [step for step in steps if step.is_cancellation]


def verify_unasked(
    service: ServiceConfig,
    page: NormalizedSnapshot,
    seen: str | None,
    unasked: Sequence[RequestAnswer],
    first: tuple[NormalizedSnapshot, str],
) -> Verification:
    """Whether the service confirmed a cancellation that a request sent with nobody asked
    carried (a guard miss): a success rule holds on the text shown now, did not hold on the
    run's first page, and a state-changing request went out unasked and was accepted."""
    if first_holding(service.failure, page) is not None:
        return _not("the page shows a failure")
    if seen is None:
        return _not("the page's visible text could not be read")
    steps = unasked_steps(unasked, first)
    if not steps:
        return _not("no request that changes state went out unasked and was accepted")
    success = next((rule for rule in service.success if holds_on_seen(rule, page, seen)), None)
    if success is None:
        return _not(f"no success rule holds on the text shown at {page.url}")
    if text_shown(success, *first):
        return _not("the confirmation was already shown when the run started")
    message = (
        f"Cancelled without a question: {success.explain()}, shown after {steps[-1].action} "
        "went out with nobody asked."
    )
    return Verification(True, success, None, message)


def _not_refused(answer: RequestAnswer | None) -> bool:
    """The service did not answer the step with an error (unknown counts as not refused)."""
    return answer is None or answer.succeeded


def _not(
    why: str, *, success: PageRule | None = None, failure: PageRule | None = None
) -> Verification:
    return Verification(False, success, failure, f"Not verified: {why}.")
