"""One guarded call, the same way for every front end: prepare, (ask), send, settle.

The run's loop and serve's sessions both send the browser calls of a pilot or an
agent through here, so a rule about what may reach the browser is written once:

* :meth:`CallPipeline.prepare` judges a call on the page as it is right before
  dispatch: :class:`Refused` (nothing sent; the caller hears why with a page),
  :class:`Held` (a checkpoint rule asks a person first) or :class:`Ready`;
* :meth:`CallPipeline.send` writes the dispatch of an approved step before the
  call goes out, so a crash reads "dispatched, outcome unknown", and answers
  :class:`Sent`, :class:`Failed` or :class:`Lost` (the browser stopped answering:
  the call may have run);
* :meth:`CallPipeline.settle` gives a held step its outcome once a look at the
  page tells (after a lost answer).

Every fact goes through one :class:`StepLog`: the loop's ledger and serve's call
records both implement it, so both front ends journal the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.gateway import ActionResult
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.errors import MCPConnectionError, MCPToolError, OutcomeUnknownError
from subterminator_tui.orchestrator.browser import Browser
from subterminator_tui.orchestrator.guard import Checkpoint, Guard, describe_action
from subterminator_tui.rules.effects import READ_ONLY_TOOLS

if TYPE_CHECKING:
    from subterminator_tui.orchestrator.request_gate import RequestGate

#: Roles whose inline text is what was typed into them, not what they are called.
_FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})


def target_facts(target: SnapshotElement | None) -> tuple[str, str] | None:
    """``(role, name)`` of a call's target for the journal; a field's contents never."""
    if target is None:
        return None
    name = target.name if target.role in _FIELD_ROLES else target.label
    return target.role, name


class StepLog(Protocol):
    """Where a guarded call's facts are written, each before what it announces happens."""

    def intent(self, turn: int, call: ToolCall, target: tuple[str, str] | None) -> int | None:
        """The call is about to be judged: its row (None when nothing is journaled)."""
        ...

    def question(self, turn: int, why: str, action: str, url: str) -> int | None:
        """Someone is about to be asked before an irreversible step: the step's id."""
        ...

    def decision(self, step: int | None, verdict: str) -> None:
        """approve, reject or guidance; never the person's words."""
        ...

    def dispatch(self, step: int | None) -> None:
        """The approved step goes out now; when this cannot be written, it does not."""
        ...

    def step_outcome(self, step: int | None, outcome: str) -> None:
        """done, failed or unknown."""
        ...


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


@dataclass(frozen=True)
class Ready:
    """Nothing stops the call: send it."""

    #: The page read right before dispatch (None for a read-only call: nothing was read).
    page: NormalizedSnapshot | None = None


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


Prepared = Refused | Held | Ready
Dispatched = Sent | Failed | Lost


class CallPipeline:
    """Judges, journals and sends one caller's browser calls (one at a time)."""

    def __init__(
        self,
        guard: Guard,
        log: StepLog,
        scrub: Callable[[NormalizedSnapshot], NormalizedSnapshot],
        requests: RequestGate | None = None,
    ) -> None:
        self.guard = guard
        self.log = log
        self.scrub = scrub
        #: The backstop in the browser: what the call really sends is judged there too.
        self.requests = requests
        self._action = ""

    def intent(self, turn: int, call: ToolCall, seen: NormalizedSnapshot) -> int | None:
        """Write the call with the role and name of its target on ``seen`` before anything."""
        return self.log.intent(turn, call, target_facts(self.guard.target_of(call, seen)))

    async def prepare(self, call: ToolCall, seen: NormalizedSnapshot, browser: Browser) -> Prepared:
        """Judge ``call`` (the caller saw ``seen``) on the page as it is now.

        MCPToolError when the page cannot be read before dispatch (nothing was sent).
        """
        self._action = describe_action(call, self.guard.target_of(call, seen))
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
            return Ready()
        if judged.refusal is not None:
            refusal = judged.refusal
            return Refused(refusal.message, judged.fresh, True, refusal.for_the_person)
        if judged.checkpoint is None:
            return Ready(judged.fresh)
        action = describe_action(call, self.guard.target_of(call, judged.fresh))
        if judged.checkpoint.effect():
            action = f"{action}: {judged.checkpoint.effect()}"
        return Held(judged.checkpoint, judged.fresh, action)

    def ask(self, turn: int, held: Held) -> int | None:
        """Journal the question of ``held`` (written before anyone is asked)."""
        return self.log.question(turn, held.checkpoint.why, held.action, held.page.url)

    def decide(self, step: int | None, verdict: str) -> None:
        """Journal the answer to a held step."""
        self.log.decision(step, verdict)

    async def still_approved(
        self, call: ToolCall, held: Held, browser: Browser, step: int | None
    ) -> Refused | None:
        """After a wait: refused (the step failed) unless the approved target is still there."""
        fresh = self.scrub(await browser.snapshot())
        changed = self.guard.relabelled(call, held.page, fresh)
        if changed is None:
            return None
        self.log.step_outcome(step, "failed")
        return Refused(changed.message, fresh, fresh=True)

    async def send(
        self,
        call: ToolCall,
        browser: Browser,
        step: int | None = None,
        *,
        turn: int = 0,
        approved: bool = False,
    ) -> Dispatched:
        """Send ``call``; an approved ``step`` gets its dispatch first and its outcome after.

        While it runs, the request gate knows which call is in flight and whether a
        person approved it (its gated requests were predicted then).
        """
        gate = self.requests
        if gate is not None and call.name not in READ_ONLY_TOOLS:
            await gate.read_page()
        if step is not None:
            # Written before the call goes out: a crash now reads "dispatched, outcome unknown".
            self.log.dispatch(step)
        if gate is not None:
            gate.call_starts(
                turn, self._action or call.name, approved=approved or step is not None, step=step
            )
        try:
            result = await browser.call(call.name, call.arguments)
        except (OutcomeUnknownError, MCPConnectionError) as lost:
            self.log.step_outcome(step, "unknown")
            return Lost(lost)
        except MCPToolError as error:
            self.log.step_outcome(step, "failed")
            return Failed(error)
        finally:
            if gate is not None:
                gate.call_ends()
        self.log.step_outcome(step, "done")
        return Sent(result)

    def settle(self, step: int | None, outcome: str) -> None:
        """A held step whose answer was lost gets the outcome the page showed afterwards."""
        self.log.step_outcome(step, outcome)
