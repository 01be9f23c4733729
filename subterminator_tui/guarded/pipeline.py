"""One guarded call, the same sequence for every front end: begin, (ask), finish.

The run's loop and serve's sessions both send the browser calls of a pilot or an
agent through here, so a rule about what may reach the browser, and what counts as
sent, is written once:

* :meth:`CallPipeline.begin` judges a call on the page as it is right before
  dispatch: :class:`Refused` (nothing sent; the caller hears why with a page),
  :class:`Held` (a checkpoint rule asks a person first: the question is journaled
  and what the person is shown is read now) or :class:`Ready`;
* the front end asks (the loop awaits its gate, serve's held task its desk);
* :meth:`CallPipeline.finish` takes the answer: a refusal or a withdrawal is
  journaled and nothing goes out; an approval re-reads the target first (a page
  may rename or rewire it while the question is on screen: then nothing is sent),
  notes the approved step as evidence, writes its dispatch before the call goes
  out (a crash reads "dispatched, outcome unknown") and answers :class:`Sent`,
  :class:`Failed`, :class:`Lost` (the call may have run) or :class:`Refused`.
  A call found unsent (the browser was down before it left) never counts as sent;
* :meth:`CallPipeline.settle` gives a held step its outcome once a look at the
  page tells (after a lost answer).

An approved step whose click opens the page's own native ``confirm()`` is not asked
twice: answering that dialog, the very next call, finishes the approved step under its
approval (what it may send, whether it may spend money), unless the dialog itself
shows a charge.

Every fact goes through one :class:`~subterminator_tui.guarded.step_log.StepLog`:
the loop's ledger and serve's call records both implement it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.dialogs import open_dialogs
from subterminator_tui.browser.gateway import ActionResult
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import (
    CallNotSentError,
    MCPConnectionError,
    MCPToolError,
    OutcomeUnknownError,
)
from subterminator_tui.guarded.browser import Browser
from subterminator_tui.guarded.guard import Checkpoint, Guard, describe_action
from subterminator_tui.guarded.outcome import OutcomeJudge
from subterminator_tui.guarded.step_log import StepLog, target_facts
from subterminator_tui.rules.effects import READ_ONLY_TOOLS
from subterminator_tui.rules.evidence import ApprovedStep

if TYPE_CHECKING:
    from subterminator_tui.guarded.request_gate import RequestGate

#: A person's answer to a held call: approve sends it, anything else sends nothing.
Verdict = Literal["approve", "reject", "guidance", "withdrawn"]


@dataclass(frozen=True)
class Refused:
    """Nothing was sent: why, and the page the caller hears it with."""

    message: str
    page: NormalizedSnapshot
    #: The page was read just now (the target changed since the caller saw it).
    fresh: bool = False
    #: What the call tried is the person's to do (a password): a front end hands it over.
    for_the_person: bool = False


@dataclass(frozen=True)
class Held:
    """A checkpoint rule asks first: the rule, the page it was judged on, the action in words."""

    checkpoint: Checkpoint
    page: NormalizedSnapshot
    action: str
    call: ToolCall
    #: The call's turn and its journal step (the question, written before anyone is asked).
    turn: int = 0
    step: int | None = None
    #: What a person saw on the page as they were asked (evidence: not new afterwards).
    seen: str | None = None
    #: What the target was wired to when they were asked (the form it submits).
    wiring: str = ""
    #: Where the call was predicted to send: the approval covers those addresses only.
    sends: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpenedDialog:
    """An approved step whose call opened a native confirm or prompt: the page's own
    "Are you sure?" for the step the person already approved. Answering it ends that step,
    covered by the same approval: what it may send, whether it may spend money."""

    step: int | None
    action: str
    sends: tuple[str, ...]
    money: bool
    approved: ApprovedStep


@dataclass(frozen=True)
class Ready:
    """Nothing stops the call: send it."""

    call: ToolCall
    #: The page read right before dispatch (None for a read-only call: nothing was read).
    page: NormalizedSnapshot | None = None
    #: The page its caller saw, and the call in words (for the request gate's questions).
    seen: NormalizedSnapshot | None = None
    action: str = ""
    turn: int = 0
    #: The call answers the dialog an approved step opened: it finishes that step.
    finishes: OpenedDialog | None = None

    @property
    def step(self) -> int | None:
        """The approved step this call finishes (its journal step), or None."""
        return self.finishes.step if self.finishes is not None else None


@dataclass(frozen=True)
class Sent:
    """The browser ran the call and answered with the fresh page."""

    result: ActionResult


@dataclass(frozen=True)
class Failed:
    """The browser refused or failed the call; it did not run."""

    error: MCPToolError


@dataclass(frozen=True)
class Lost:
    """The browser stopped answering: the call may have run."""

    error: OutcomeUnknownError | MCPConnectionError


@dataclass(frozen=True)
class Unsent:
    """The browser was found stopped before the call left: nothing was sent."""

    error: CallNotSentError | MCPConnectionError


Prepared = Refused | Held | Ready
Dispatched = Sent | Failed | Lost | Unsent
Finished = Dispatched | Refused


class CallPipeline:
    """Judges, journals and sends one caller's browser calls (one at a time)."""

    def __init__(
        self,
        guard: Guard,
        log: StepLog,
        scrub: Callable[[NormalizedSnapshot], NormalizedSnapshot],
        judge: OutcomeJudge,
        requests: RequestGate | None = None,
    ) -> None:
        self.guard = guard
        self.log = log
        self.scrub = scrub
        #: Every approved step and how it went: what a cancellation is verified on.
        self.judge = judge
        #: The backstop in the browser: what the call really sends is judged there too.
        self.requests = requests
        #: The native dialog the last approved step opened, until the next call answers it.
        self.opened_dialog: OpenedDialog | None = None

    def intent(self, turn: int, call: ToolCall, seen: NormalizedSnapshot) -> int | None:
        """Write the call with the role and name of its target on ``seen`` before anything."""
        return self.log.intent(turn, call, target_facts(self.guard.target_of(call, seen)))

    async def begin(
        self, turn: int, call: ToolCall, seen: NormalizedSnapshot, browser: Browser
    ) -> Prepared:
        """Judge ``call`` (the caller saw ``seen``) on the page as it is now.

        A held call's question is journaled here, before anyone is asked, with what
        the person is shown. MCPToolError when the page cannot be read before dispatch
        (nothing was sent).
        """
        action = describe_action(call, self.guard.target_of(call, seen))
        opened = self.opened_dialog
        if call.name not in READ_ONLY_TOOLS:
            # Only the very next call can answer the dialog of the approved step.
            self.opened_dialog = None
        refusal = self.guard.refusal(call, seen)
        if refusal is not None:
            return Refused(refusal.message, seen)
        try:
            # Before anyone is asked: nobody should approve a call the browser would refuse.
            browser.checked_arguments(call.name, call.arguments)
        except MCPToolError as invalid:
            return Refused(str(invalid), seen)
        judged = await self.guard.before_dispatch(call, seen, browser, self.scrub)
        if judged.fresh is None:
            return Ready(call, seen=seen, action=action, turn=turn)
        if judged.refusal is not None:
            refusal = judged.refusal
            return Refused(refusal.message, judged.fresh, True, refusal.for_the_person)
        if judged.checkpoint is None:
            return Ready(call, judged.fresh, seen, action, turn)
        if (
            opened is not None
            and call.name == "browser_handle_dialog"
            and not judged.checkpoint.spends_money
        ):
            # The page's own "Are you sure?" for the step the person approved: one question
            # covers one commit. A dialog that shows a charge is asked on its own.
            return Ready(call, judged.fresh, seen, action, turn, finishes=opened)
        asked = describe_action(call, self.guard.target_of(call, judged.fresh))
        if judged.checkpoint.effect():
            asked = f"{asked}: {judged.checkpoint.effect()}"
        step = self.log.question(turn, judged.checkpoint.why, asked, judged.fresh.url)
        # Read while asking, not after: the first thing after an approval is the step.
        shown = await self.judge.seen()
        return Held(
            judged.checkpoint,
            judged.fresh,
            asked,
            call,
            turn,
            step,
            shown,
            judged.wiring,
            judged.sends,
        )

    async def finish(
        self, prepared: Ready | Held, browser: Browser, verdict: Verdict | None = None
    ) -> Finished:
        """Send a ready call, or a held one once ``verdict`` approves it (and its target is
        still what was approved); anything but an approval sends nothing."""
        if isinstance(prepared, Ready):
            return await self._send_ready(prepared, browser)
        if verdict != "approve":
            return self.decline(prepared, verdict or "reject")
        self.log.decision(prepared.step, "approve")
        try:
            changed = await self._changed_since_asked(prepared, browser)
        except MCPToolError as unread:
            # What was approved cannot be checked again: it is not sent on an old look.
            changed = Refused(
                f"The page could not be read again after the answer ({unread}); nothing was "
                "sent. Take a fresh look before trying again.",
                prepared.page,
            )
        if changed is not None:
            self.log.step_outcome(prepared.step, "failed")
            return changed
        approved = self.judge.approved(
            prepared.step, prepared.action, prepared.checkpoint, prepared.page, prepared.seen
        )
        sent = await self._send(
            prepared.call,
            browser,
            prepared.turn,
            prepared.action,
            prepared.step,
            approved,
            sends=prepared.sends,
            money=prepared.checkpoint.spends_money,
        )
        if isinstance(sent, Sent) and _asks_for_an_answer(sent.result.snapshot):
            self.opened_dialog = OpenedDialog(
                prepared.step,
                prepared.action,
                prepared.sends,
                prepared.checkpoint.spends_money,
                approved,
            )
        return sent

    def decline(self, held: Held, verdict: Verdict) -> Refused:
        """Journal an answer that sends nothing (a rejection, guidance, a withdrawal)."""
        self.log.decision(held.step, verdict)
        return Refused(f"Not sent: {held.action} ({verdict}).", held.page)

    async def _send_ready(self, ready: Ready, browser: Browser) -> Dispatched:
        finishing = ready.finishes
        if finishing is not None:
            # The approved step goes on: its requests are its own, predicted as approved.
            return await self._send(
                ready.call,
                browser,
                ready.turn,
                finishing.action,
                finishing.step,
                finishing.approved,
                sends=finishing.sends,
                money=finishing.money,
                approved_step=True,
            )
        approved: ApprovedStep | None = None
        if not self.guard.checkpoints and ready.call.name not in READ_ONLY_TOOLS:
            # Checkpoints are off by the person's choice: every step stands in for one.
            page = ready.page or ready.seen
            target = self.guard.target_of(ready.call, page) if page is not None else None
            labels = (target.label,) if target is not None else ()
            if page is not None:
                approved = await self.judge.unasked(
                    describe_action(ready.call, target), labels, page
                )
        return await self._send(
            ready.call, browser, ready.turn, ready.action or ready.call.name, None, approved
        )

    async def _changed_since_asked(self, held: Held, browser: Browser) -> Refused | None:
        """Refused when the approved target was renamed, removed or rewired while the person
        was asked: what they approved is no longer what the call would do."""
        # The same judgement as before the question, on the page as it is now: a target
        # renamed or gone is refused there, a rewired one shows in its checkpoint.
        judged = await self.guard.before_dispatch(held.call, held.page, browser, self.scrub)
        now = judged.fresh or held.page
        if judged.refusal is not None:
            return Refused(judged.refusal.message, now, fresh=True)
        before = held.checkpoint
        after = judged.checkpoint
        if after is None:
            # Nothing irreversible is left in the call (the rule no longer holds): sending
            # it is no more than the person agreed to.
            return None
        if (
            judged.wiring != held.wiring
            or after.effect() != before.effect()
            or after.effects.destination != before.effects.destination
            or after.spends_money != before.spends_money
            or after.rule.explain() != before.rule.explain()
        ):
            return Refused(
                f"What you approved changed while you were asked: {held.action} now "
                f"{after.effect() or 'does something else'}. Nothing was sent; read the fresh "
                "page below and ask again if it is still wanted.",
                now,
                fresh=True,
            )
        return None

    async def _send(
        self,
        call: ToolCall,
        browser: Browser,
        turn: int,
        action: str,
        step: int | None,
        approved: ApprovedStep | None,
        *,
        sends: tuple[str, ...] = (),
        money: bool = False,
        approved_step: bool = False,
    ) -> Dispatched:
        """Send ``call``; an approved ``step`` gets its dispatch first and its outcome after.

        While it runs, the request gate knows which call is in flight and whether a
        person approved it (its gated requests were predicted then); ``approved_step``
        says so when the journal keeps no step.
        """
        gate = self.requests
        if gate is not None and call.name not in READ_ONLY_TOOLS:
            await gate.read_page()
        if step is not None:
            # Written before the call goes out: a crash now reads "dispatched, outcome unknown".
            self.log.dispatch(step)
        if gate is not None:
            gate.call_starts(
                turn,
                action,
                approved=step is not None or approved_step,
                step=step,
                sends=sends,
                money=money,
            )
        try:
            result = await browser.call(call.name, call.arguments)
        except CallNotSentError as unsent:
            # The browser was found stopped and restarted instead: the call never left.
            self.log.step_outcome(step, "failed")
            return Unsent(unsent)
        except MCPConnectionError as lost:
            if not lost.may_have_run:
                self.log.step_outcome(step, "failed")
                return Unsent(lost)
            self.log.step_outcome(step, "unknown")
            OutcomeJudge.went(approved, "unknown")
            return Lost(lost)
        except OutcomeUnknownError as lost:
            self.log.step_outcome(step, "unknown")
            OutcomeJudge.went(approved, "unknown")
            return Lost(lost)
        except MCPToolError as error:
            # Refused by the browser after it may have acted: counted as sent.
            self.log.step_outcome(step, "failed")
            OutcomeJudge.went(approved, "failed")
            return Failed(error)
        finally:
            if gate is not None:
                gate.call_ends()
        self.log.step_outcome(step, "done")
        OutcomeJudge.went(approved, "done")
        return Sent(result)

    def settle(self, step: int | None, outcome: str) -> None:
        """A held step whose answer was lost gets the outcome the page showed afterwards."""
        self.log.step_outcome(step, outcome)


def _asks_for_an_answer(page: NormalizedSnapshot) -> bool:
    """Whether a native confirm or prompt waits on ``page`` (an alert is answered already)."""
    return any(dialog.needs_an_answer for dialog in open_dialogs(page.notes.get("Modal state")))
