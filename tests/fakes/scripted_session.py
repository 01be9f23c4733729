"""A deterministic run for the app, built from the real captured demoflix pages (no browser).

``ScriptedSession`` is a ``RunSession``: it reports what the orchestrator would
report while an AI pilot walks demoflix (account, survey, offer, confirm, done),
with fixed latencies and token counts, and asks the app's gate where a real
run would: hand-offs when the first page needs the person, and a checkpoint
before "Finish cancellation". Snapshot tests and ``scripts/screenshots.py``
drive the app with it so every pixel is reproducible.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import (
    NormalizedSnapshot,
    SnapshotElement,
    normalize_snapshot,
    parse_elements,
)
from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffField,
    HandoffRequest,
    HumanGate,
)
from subterminator_tui.guarded.guard import describe_action
from subterminator_tui.orchestrator.events import (
    Notice,
    Outcome,
    PageSeen,
    Reporter,
    RunFinished,
    RunStarted,
    TurnFinished,
    TurnStarted,
)
from subterminator_tui.orchestrator.handoff import describe_handoff
from subterminator_tui.results import TaskReason, TaskResult
from subterminator_tui.session import RunSession
from subterminator_tui.tui.widgets import run_header

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "snapshots" / "demoflix"
#: Every URL on screen uses this origin, whatever port the capture ran on.
PRACTICE_ORIGIN = "http://127.0.0.1:8000"
SERVICE_NAME = "Demoflix (practice)"
MODEL = "claude-sonnet-5-5"
#: The checkpoint's screenshot, relative so no host path appears on screen.
CONFIRM_SCREENSHOT = "screenshots/confirm.png"
FINISH_WHY = "Finishing the cancellation is irreversible"

_PORT = re.compile(r"http://127\.0\.0\.1:\d+")


def fixture_page(name: str) -> NormalizedSnapshot:
    """The captured ``browser_snapshot`` answer ``<name>.md``, normalized, on the fixed origin."""
    raw = (FIXTURES / f"{name}.md").read_text(encoding="utf-8")
    # The captures inline their YAML, so the workspace directory is never read.
    return normalize_snapshot(_PORT.sub(PRACTICE_ORIGIN, raw), FIXTURES)


@dataclass(frozen=True)
class ScriptedStep:
    """One turn of the script: a click on ``role "name"`` of ``page``, leading to ``next_page``."""

    page: str
    role: str
    name: str
    next_page: str
    reasoning: str
    #: When set, the step is irreversible and the gate is asked first (a rule's ``why``).
    checkpoint: str | None = None


#: The intended path through demoflix, as the practice site's DemoflixBrain plays it.
DEMOFLIX_FLOW: tuple[ScriptedStep, ...] = (
    ScriptedStep(
        "account",
        "button",
        "Cancel membership",
        "survey",
        "The account page offers 'Cancel membership'; that starts the flow.",
    ),
    ScriptedStep(
        "survey",
        "radio",
        "Too expensive",
        "survey_answered",
        "The leaving survey is optional; answering it is harmless.",
    ),
    ScriptedStep(
        "survey_answered",
        "button",
        "Continue",
        "offer",
        "Submitting the survey to move on.",
    ),
    ScriptedStep(
        "offer",
        "button",
        "Continue to cancel",
        "confirm",
        "A retention offer with a large decoy button; declining it with 'Continue to cancel'.",
    ),
    ScriptedStep(
        "confirm",
        "button",
        "Finish cancellation",
        "done",
        "The confirmation page; finishing is the last step.",
        checkpoint=FINISH_WHY,
    ),
)

#: The captured page each hand-off kind comes from.
_HANDOFF_PAGES = {"login": "login", "two_factor": "verify", "captcha": "captcha"}

#: Seconds each turn took, in order (the last one is complete_task).
LATENCIES = (1.8, 1.2, 1.3, 2.1, 2.6, 0.9, 1.1, 1.0)


def login_handoff(*, headed: bool = False, hint: str = "") -> HandoffRequest:
    """The sign-in hand-off of the captured login page: Username in clear, Password masked."""
    page = fixture_page("login")
    return HandoffRequest(
        kind="login",
        why="The Demoflix sign-in page",
        url=page.url,
        fields=(
            HandoffField(page.ref_of("textbox", "Username"), "Username", secret=False),
            HandoffField(page.ref_of("textbox", "Password"), "Password", secret=True),
        ),
        headed=headed,
        hint=hint,
    )


def two_factor_handoff() -> HandoffRequest:
    """The verification-code hand-off of the captured verify page (the code is masked)."""
    page = fixture_page("verify")
    code = HandoffField(page.ref_of("textbox", "Verification code"), "Verification code", True)
    return HandoffRequest(
        kind="two_factor",
        why="The two-step verification page",
        url=page.url,
        fields=(code,),
        headed=False,
    )


def freeze_header_clock(now: float = 1_000.0) -> Callable[[], None]:
    """Stop the header's clock (its elapsed time reads 00:00); returns the undo.

    Screenshots and snapshot tests must not depend on how long a run took.
    """
    saved = run_header.monotonic
    run_header.monotonic = lambda: now

    def undo() -> None:
        run_header.monotonic = saved

    return undo


@dataclass
class ScriptedSession:
    """A RunSession that plays DEMOFLIX_FLOW; records what the person answered."""

    handoffs: tuple[HandoffRequest, ...] = ()
    #: Ask the gate before "Finish cancellation" (False: the step runs unasked).
    checkpoints: bool = True
    screenshot_path: str | None = CONFIRM_SCREENSHOT
    #: Stop after this turn started (0: before the first) and wait for ``release()``.
    hold_at_turn: int | None = None
    #: The first page, instead of the captured account page (e.g. ``long_snapshot()``).
    start_page: NormalizedSnapshot | None = None
    max_turns: int = 20
    #: The model that drives (None: the playbook, as a first run without a key shows it).
    model: str | None = MODEL
    decisions: list[Decision] = field(default_factory=list)
    answers: list[HandoffAnswer] = field(default_factory=list)
    approvals: list[CheckpointRequest] = field(default_factory=list)
    _released: asyncio.Event | None = field(default=None, init=False, repr=False)

    def release(self) -> None:
        """Let a held run go on."""
        if self._released is not None:
            self._released.set()

    async def __call__(self, gate: HumanGate, reporter: Reporter) -> TaskResult:
        """Report the run and ask the gate as the orchestrator would."""
        self._released = asyncio.Event()
        run = _Run(self, gate, reporter)
        return await run.play()


class _Run:
    """The state of one scripted run."""

    def __init__(self, session: ScriptedSession, gate: HumanGate, reporter: Reporter) -> None:
        self.session = session
        self.gate = gate
        self.reporter = reporter
        self.turn = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.page = session.start_page or fixture_page("account")

    async def play(self) -> TaskResult:
        session = self.session
        self.reporter.emit(
            RunStarted(
                SERVICE_NAME,
                "ai" if session.model else "playbook",
                session.model,
                session.max_turns,
                session.checkpoints,
            )
        )
        for request in session.handoffs:
            # The page asking for the person comes first, as the orchestrator reports it.
            self.reporter.emit(PageSeen(fixture_page(_HANDOFF_PAGES[request.kind]), True))
            answer = await self.gate.handoff(request)
            session.answers.append(answer)
            if answer.action == "cancel":
                return self._finish("human_rejected", message="You cancelled the hand-off.")
        if session.handoffs:
            self.reporter.emit(Notice(describe_handoff([r.kind for r in session.handoffs])))
        self.reporter.emit(PageSeen(self.page, True))
        await self._hold()
        steps = list(DEMOFLIX_FLOW)
        while steps:
            step = steps[0]
            if step.page != "account" or session.start_page is None:
                self.page = fixture_page(step.page)
            call = self._call(step)
            target = self._start_turn(call, step.reasoning)
            await self._hold()
            if step.checkpoint and session.checkpoints:
                decision = await self._ask(step.checkpoint, call, target)
                if decision.verdict == "reject":
                    action = describe_action(call, target)
                    return self._finish("human_rejected", message=f"You rejected: {action}")
                if decision.verdict == "guidance":
                    message = "Not done: the person sent guidance instead."
                    self._finish_turn(call, target, "guidance", message)
                    continue
            self.page = fixture_page(step.next_page)
            self.reporter.emit(PageSeen(self.page, True))
            self._finish_turn(call, target, "ok", "")
            steps.pop(0)
        complete = ToolCall(
            f"toolu_{self.turn + 1:02d}",
            "complete_task",
            {"status": "success", "reason": "Cancellation confirmed."},
        )
        self._start_turn(complete, "The page confirms it.")
        await self._hold()
        message = "Verified: The cancellation confirmation page."
        self._finish_turn(complete, None, "done", message)
        return self._finish("completed", success=True, message=message)

    def _call(self, step: ScriptedStep) -> ToolCall:
        ref = self.page.ref_of(step.role, step.name)
        arguments = {"target": ref, "element": f"{step.name} {step.role}"}
        return ToolCall(f"toolu_{self.turn + 1:02d}", "browser_click", arguments)

    def _target(self, call: ToolCall) -> SnapshotElement | None:
        """The element ``call`` acts on, from the page (never the pilot's words)."""
        ref = call.arguments.get("target")
        return self.page.element_by_ref(str(ref)) if ref else None

    def _start_turn(self, call: ToolCall, reasoning: str) -> SnapshotElement | None:
        """Report the turn; returns its target on the page it acts on."""
        self.turn += 1
        target = self._target(call)
        self.reporter.emit(TurnStarted(self.turn, call, target, reasoning, "ai"))
        return target

    def _finish_turn(
        self, call: ToolCall, target: SnapshotElement | None, outcome: Outcome, message: str
    ) -> None:
        # Token counts grow with the conversation, as a real model's do.
        input_tokens, output_tokens = 2_400 + 350 * self.turn, 60 + 4 * self.turn
        if self.session.model is None:
            input_tokens = output_tokens = 0  # a playbook asks no model
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        latency = LATENCIES[(self.turn - 1) % len(LATENCIES)]
        self.reporter.emit(
            TurnFinished(
                self.turn,
                call,
                target,
                outcome,
                message,
                latency,
                input_tokens,
                output_tokens,
            )
        )

    async def _hold(self) -> None:
        released = self.session._released
        if self.session.hold_at_turn == self.turn and released is not None:
            await released.wait()

    async def _ask(self, why: str, call: ToolCall, target: SnapshotElement | None) -> Decision:
        # A real run takes a screenshot here; meanwhile the app renders the events so far.
        # Waiting for the app to drain its queue keeps that ordering without a real delay.
        await _front_end_caught_up(self.reporter)
        request = CheckpointRequest(
            kind="rule",
            why=why,
            action=describe_action(call, target),
            url=self.page.url,
            screenshot_path=self.session.screenshot_path,
            call=call,
            target=target,
            takes_guidance=self.session.model is not None,
        )
        self.session.approvals.append(request)
        decision = await self.gate.approve(request)
        self.session.decisions.append(decision)
        return decision

    def _finish(
        self, reason: TaskReason, *, success: bool = False, message: str = ""
    ) -> TaskResult:
        result = TaskResult(
            success=success,
            verified=reason == "completed",
            reason=reason,
            turns=self.turn,
            final_url=self.page.url,
            message=message or None,
            model_calls=self.turn,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
        )
        self.reporter.emit(RunFinished(result))
        return result


async def _front_end_caught_up(reporter: Reporter) -> None:
    """Wait until the app has handled every event reported so far (no-op for other reporters)."""
    app = getattr(reporter, "app", None)
    if app is None:
        return
    handled = asyncio.Event()
    # A callback message is queued behind the events, so it runs after them.
    app.call_later(handled.set)
    await handled.wait()


def failing_session(error: BaseException) -> RunSession:
    """A RunSession that shows the first page and then raises ``error``."""

    async def session(gate: HumanGate, reporter: Reporter) -> TaskResult:
        reporter.emit(RunStarted(SERVICE_NAME, "ai", MODEL, 20, True))
        reporter.emit(PageSeen(fixture_page("account"), True))
        raise error

    return session


def long_snapshot(at_least: int = 5_000) -> NormalizedSnapshot:
    """The captured account page plus a viewing history long enough for ``at_least`` elements.

    The extra section is written in the same aria-snapshot YAML Playwright MCP
    produces and parsed by the real parser, so the tree gets what a huge page gives it.
    """
    account = fixture_page("account")
    items = (at_least - len(account.elements)) // 2 + 1
    lines = [account.content.rstrip("\n")]
    lines.append('  - region "Viewing history" [ref=h1]:')
    lines.append('    - heading "Viewing history" [level=2] [ref=h2]')
    lines.append("    - list [ref=h3]:")
    for index in range(1, items + 1):
        lines.append(f"      - listitem [ref=h{2 * index + 2}]:")
        lines.append(
            f'        - link "Episode {index:04d}" [ref=h{2 * index + 3}] [cursor=pointer]:'
        )
        lines.append(f"          - /url: /history/{index}")
    content = "\n".join(lines) + "\n"
    elements = tuple(parse_elements(content))
    assert len(elements) >= at_least, len(elements)
    return NormalizedSnapshot(account.url, account.title, content, elements=elements)
