"""Run one scenario in one configuration and measure it against the server's ground truth."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from subterminator_bench.adversarial_brain import ATTACKS, AdversarialBrain
from subterminator_bench.baseline import NAIVE_OFFERED_TOOLS, naive_pilot
from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_bench.ground_truth import (
    GroundTruth,
    bypasses,
    judged_success,
    read_ground_truth,
    unapproved_actions,
)
from subterminator_bench.loopback_model import ScriptedModelServer
from subterminator_bench.prompt_cache import PromptCache
from subterminator_bench.scenarios import expected_outcome
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_bench.stats import median
from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.orchestrator.events import Event, PageSeen, RunStarted, TurnFinished
from subterminator_tui.pilots.compaction import estimate_tokens
from subterminator_tui.pilots.page_view import COMPACT_VIEW, NAIVE_VIEW, page_for_model
from subterminator_tui.practice.demoflix.state import (
    CAPTCHA_TEXT,
    PASSWORD,
    TWO_FACTOR_CODE,
    USERNAME,
)
from subterminator_tui.providers.resolution import DEFAULT_MODEL
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.session import RunRequest, prepared_run

#: The practice account, typed by the bench when a page hands off to the person.
_PRACTICE_ANSWERS = (
    ("user", USERNAME),
    ("pass", PASSWORD),
    ("code", TWO_FACTOR_CODE),
    ("character", CAPTCHA_TEXT),
)
SCRIPTED_KEY = "scripted-loopback-model"


@dataclass(frozen=True)
class BenchConfig:
    """One column of the comparison."""

    name: str
    naive: bool


OURS = BenchConfig("ours", naive=False)
NAIVE = BenchConfig("naive", naive=True)


@dataclass
class Measurement:
    """Everything measured for one scenario in one configuration."""

    scenario: str
    config: str
    pilot: str
    model: str | None
    scripted: bool
    expected: str | None
    reason: str
    success: bool
    verified: bool
    correct: bool
    unsafe_actions: int
    #: Unapproved irreversible actions plus requests that reached the forbidden host.
    bypasses: int
    decoys: int
    approvals: int
    turns: int
    model_calls: int
    input_tokens: int
    output_tokens: int
    #: Of ``input_tokens``, those read from and written to the provider's prompt cache.
    cache_read_tokens: int
    cache_write_tokens: int
    #: The run's cost at the settings' price of the model (None: no price).
    cost: float | None
    tokens_per_snapshot: float
    #: The largest page of the run: the budget holds for every page, not just the median.
    largest_snapshot_tokens: int
    snapshot_elements: float
    wall_seconds: float
    cold_start_seconds: float
    overhead_ms_per_turn: float
    lost: list[str] = field(default_factory=list)
    ground_truth: dict[str, Any] = field(default_factory=dict)
    #: Each model call's ``[input, cache read, cache write]`` tokens, in order.
    calls: list[list[int]] = field(default_factory=list)
    #: Of ``approvals``: questions about a request the page sent that no approved step
    #: explained (the request gate's own noise).
    held_requests: int = 0
    #: Questions the person refused: purchases that were not the cancellation (not in
    #: ``approvals``; every question is one of the two).
    refused: int = 0
    #: Seconds each call of the run waited for the page's own data before its snapshot
    #: (only calls during which the page asked for data wait at all).
    settles: list[float] = field(default_factory=list)

    @property
    def effective_input_tokens(self) -> float:
        """Input in full-price token equivalents (Anthropic: reads 0.1x, writes 1.25x)."""
        uncached = self.input_tokens - self.cache_read_tokens - self.cache_write_tokens
        return uncached + 0.1 * self.cache_read_tokens + 1.25 * self.cache_write_tokens

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**asdict(self), "effective_input_tokens": self.effective_input_tokens}


class BenchGate:
    """The bench plays the person who came to cancel: approves every checkpoint except a
    purchase, and types the practice account.

    A question that spends money on anything but the cancellation itself (a request the
    page slipped in with an annual plan's price) is refused, as that person would; a fee
    to cancel is approved like any commit. ``state`` is the practice site's live state:
    each approval notes how many irreversible actions the server had carried out by then.
    """

    def __init__(self, state: Any) -> None:
        self.state = state
        self.approvals_at: list[int] = []
        self.held_requests = 0
        #: Questions refused: purchases the person did not come for.
        self.refused = 0

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Approve, noting how many irreversible actions had happened by then; refuse a
        purchase that is not the cancellation."""
        self.held_requests += request.kind == "held_request"
        if request.spends_money and not request.commit:
            self.refused += 1
            return Decision("reject")
        truth = read_ground_truth(self.state)
        self.approvals_at.append(len(truth.irreversible))
        return Decision("approve")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """Type the practice credentials, code or CAPTCHA characters into the fields."""
        values = {}
        for field_ in request.fields:
            label = field_.label.casefold()
            value = next((answer for key, answer in _PRACTICE_ANSWERS if key in label), "")
            if value:
                values[field_.ref] = value
        return HandoffAnswer("typed", values) if values else HandoffAnswer("cancel")


class BenchReporter:
    """Collects what the measurement needs from the run's events."""

    def __init__(self, naive: bool) -> None:
        self.view = NAIVE_VIEW if naive else COMPACT_VIEW
        self.started = time.perf_counter()
        self.first_page: float | None = None
        self.snapshot_tokens: list[int] = []
        self.snapshot_elements: list[int] = []
        self.overheads: list[float] = []
        self.calls: list[list[int]] = []
        self.driver = ""

    def emit(self, event: Event) -> None:
        """Record one event."""
        if isinstance(event, RunStarted):
            self.driver = event.pilot
        elif isinstance(event, PageSeen):
            if self.first_page is None:
                self.first_page = time.perf_counter()
            self.snapshot_tokens.append(estimate_tokens(page_for_model(event.snapshot, self.view)))
            self.snapshot_elements.append(len(event.snapshot.elements))
        elif isinstance(event, TurnFinished):
            self.overheads.append(event.overhead_seconds)
            if event.input_tokens:
                self.calls.append(
                    [event.input_tokens, event.cache_read_tokens, event.cache_write_tokens]
                )


@contextlib.contextmanager
def scripted_model_env(server: ScriptedModelServer | None) -> Iterator[None]:
    """Point the Anthropic SDK at the loopback model for the duration, then restore."""
    if server is None:
        yield
        return
    names = ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["ANTHROPIC_BASE_URL"] = server.base_url
    os.environ["ANTHROPIC_API_KEY"] = SCRIPTED_KEY
    os.environ.pop("ANTHROPIC_AUTH_TOKEN", None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def scripted_brain_for(service: ServiceConfig) -> PlaybookBrain | AdversarialBrain:
    """The scripted model for ``service``: the attack on an adversarial scenario, else its path."""
    scenario = service.practice_variants[0] if service.practice_variants else ""
    if service.practice == "gauntlet" and scenario in ATTACKS:
        return AdversarialBrain.for_trap(scenario)
    return PlaybookBrain(service.playbook)


async def measure(
    service: ServiceConfig,
    config: BenchConfig,
    *,
    pilot: str,
    model: str | None,
    scripted: bool,
    workdir: Path,
    services: tuple[str, ...] = (),
    cache: PromptCache | None = None,
) -> Measurement:
    """Run ``service`` once in ``config`` and judge it by the practice server's state.

    ``cache`` is the scripted model's prompt cache: one for the whole bench plays one
    API key, whose cached tools and system prompt the next scenario reads.
    """
    brain = scripted_brain_for(service)
    server = ScriptedModelServer(brain, cache).start() if scripted and pilot != "playbook" else None
    reporter = BenchReporter(config.naive)
    run_services = (str(SCENARIOS_FILE), *services)
    expected = expected_outcome(service, load_services([Path(p) for p in run_services]))
    request = RunRequest(
        service.id,
        pilot=pilot,
        model=None if scripted else model,
        headless=True,
        profile_dir=str(workdir / f"{service.id}-{config.name}"),
        services=run_services,
    )
    started = time.perf_counter()
    try:
        with scripted_model_env(server):
            async with prepared_run(request) as prepared:
                site = prepared.browser.practice
                gate = BenchGate(site.state if site else None)
                if config.naive:
                    own = naive_pilot(prepared)
                    result = await prepared.run(
                        gate, reporter, pilot=own, offered_tools=NAIVE_OFFERED_TOOLS
                    )
                else:
                    result = await prepared.run(gate, reporter)
                settles = list(prepared.browser.gateway.requests.cost.settles)
    finally:
        if server is not None:
            server.stop()
    wall = time.perf_counter() - started
    truth: GroundTruth = read_ground_truth(gate.state)
    return Measurement(
        scenario=service.id,
        config=config.name,
        pilot=reporter.driver or pilot,
        model=None if pilot == "playbook" else (model or DEFAULT_MODEL),
        scripted=server is not None,
        expected=expected,
        reason=result.reason,
        success=result.success,
        verified=result.verified,
        # An account cancelled before the run is the right answer there, said as such.
        correct=judged_success(truth, expected)
        and (result.success or result.reason == "already_cancelled"),
        unsafe_actions=unapproved_actions(truth, gate.approvals_at),
        bypasses=bypasses(truth, gate.approvals_at),
        decoys=truth.decoys,
        approvals=len(gate.approvals_at),
        held_requests=gate.held_requests,
        refused=gate.refused,
        turns=result.turns,
        model_calls=result.model_calls,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        cache_read_tokens=result.cache_read_tokens,
        cache_write_tokens=result.cache_write_tokens,
        cost=result.cost,
        tokens_per_snapshot=median(reporter.snapshot_tokens),
        largest_snapshot_tokens=max(reporter.snapshot_tokens, default=0),
        snapshot_elements=median(reporter.snapshot_elements),
        wall_seconds=wall,
        cold_start_seconds=(reporter.first_page or started) - started,
        overhead_ms_per_turn=median(reporter.overheads) * 1000,
        lost=list(brain.lost),
        ground_truth=asdict(truth),
        calls=reporter.calls,
        settles=settles,
    )
