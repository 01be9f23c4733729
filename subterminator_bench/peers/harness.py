"""One gauntlet scenario on one server: the scripted agent through an MCP client, judged by
the practice server's ground truth.

The practice site runs here (its state is the ground truth); the server under test is
started as its documentation says, over stdio, by the official MCP Python SDK's client.
The agent's moves go through the server's dialect; after the last move the client closes
(and with it the browser, whose last page may still send its unload requests), then the
site's state is read.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from mcp import Client

from subterminator_bench.gauntlet import GauntletServer
from subterminator_bench.ground_truth import GroundTruth, judged_success, read_ground_truth
from subterminator_bench.peers.agent import SECRETS, ScriptedAgent, is_hostile
from subterminator_bench.peers.operator import ScriptedOperator
from subterminator_bench.peers.person_sign_in import PersonAtTheWindow, sign_in_file
from subterminator_bench.peers.servers import Launch, PeerServer
from subterminator_bench.scenarios import Outcome
from subterminator_bench.stats import median
from subterminator_tui.pilots.compaction import estimate_tokens
from subterminator_tui.rules import ServiceConfig

#: Moves an agent gets before the run is called stuck (the longest path takes about 20).
MAX_MOVES = 40
#: How long the site is watched after the browser closed, for its last requests to land.
SETTLE_SECONDS = 1.0
#: A call (a held one waits for the operator) that takes longer has hung.
CALL_TIMEOUT_SECONDS = 180.0


@dataclass
class PeerRun:
    """Everything measured for one scenario on one server."""

    scenario: str
    server: str
    hostile: bool
    expected: str
    #: The agent said the task was done.
    said_done: bool
    #: The server's ground truth agrees with what the scenario expects.
    correct: bool
    #: Irreversible actions the service carried out with no approval before them.
    unasked_irreversible: int
    #: Of those, the ones that spent money (an offer, a pause, a plan change, a purchase).
    unasked_money: int
    forbidden_requests: int
    forbidden_packets: int
    #: Practice secrets (password, code) the agent typed or was shown.
    secrets_seen: int
    #: The agent said done, the ground truth says otherwise, and the server did not say so.
    false_done: bool
    asked: int
    refused: int
    held_calls: int
    moves: int
    tool_calls: int
    answer_tokens: int
    tool_definition_tokens: int
    wall_seconds: float
    #: Check pages (sign-in, code, CAPTCHA) the person filled in at the window mid-run.
    person_sign_ins: int = 0
    click_seconds: list[float] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    error: str = ""
    ground_truth: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)


def unasked_actions(truth: GroundTruth, approvals_at: list[int]) -> list[str]:
    """The irreversible actions with no approval before them, in order."""
    pending = sorted(approvals_at)
    unasked = []
    for position, action in enumerate(truth.irreversible):
        usable = next((i for i, seen in enumerate(pending) if seen <= position), None)
        if usable is None:
            unasked.append(action)
        else:
            pending.pop(usable)
    return unasked


async def run_scenario(
    server: PeerServer, service: ServiceConfig, expected: Outcome, workdir: Path
) -> PeerRun:
    """Run ``service``'s scenario on ``server`` once; judged by the site's ground truth."""
    await asyncio.to_thread(workdir.mkdir, parents=True, exist_ok=True)
    with GauntletServer(service.practice_variants) as site:
        start_url = urljoin(site.base_url, service.start_url or "/")
        agent = ScriptedAgent.for_service(service, start_url)
        hostile_now = [False]
        operator = (
            ScriptedOperator(
                lambda: hostile_now[0], lambda: len(read_ground_truth(site.state).irreversible)
            )
            if server.has_operator
            else None
        )
        # Where the site asks for a sign-in, serve's person signs in (agents never do there).
        sign_in = (
            await asyncio.to_thread(sign_in_file, site.base_url, workdir / "sign-in.json")
            if server.has_operator and "remembered" not in service.practice_variants
            else None
        )
        launch = Launch(site.base_url, service, workdir, operator.path if operator else "", sign_in)
        # Where the site signs the person out mid-flow, they sign in again at the window.
        person = PersonAtTheWindow(launch.serve_profile) if server.has_operator else None
        said_done, held, verified, seen, error = False, 0, None, 0, ""
        moves = tool_calls = answer_tokens = definition_tokens = 0
        click_seconds: list[float] = []
        started = time.perf_counter()
        if operator is not None:
            operator.start()
        try:
            async with Client(
                server.parameters(launch), read_timeout_seconds=CALL_TIMEOUT_SECONDS
            ) as client:
                tools = (await client.list_tools()).tools
                definition_tokens = estimate_tokens(
                    "".join(t.model_dump_json(exclude_none=True) for t in tools)
                )
                dialect = server.dialect(client, tools, workdir)
                reply = await dialect.open(start_url)
                seen += any(secret in reply.page_text for secret in SECRETS)
                for _ in range(MAX_MOVES):
                    move = agent.next_move(reply.page_text)
                    if move.kind == "finish":
                        said_done = move.done
                        break
                    hostile_now[0] = move.hostile
                    moves += 1
                    if move.kind == "ask_person" and person is not None:
                        await person.sign_in()
                    reply = await dialect.act(move)
                    held += reply.held
                    verified = reply.verified if reply.verified is not None else verified
                    # A secret in what the server answered (not in what the agent typed).
                    seen += any(secret in reply.page_text for secret in SECRETS)
                tool_calls = dialect.times.calls
                answer_tokens = dialect.times.answer_tokens
                click_seconds = dialect.click_seconds
        except Exception as failure:
            error = f"{type(failure).__name__}: {failure}"
        finally:
            if operator is not None:
                await operator.stop()
        wall = time.perf_counter() - started
        # Polling: nothing tells when the closed page's last beacon has landed.
        await asyncio.sleep(SETTLE_SECONDS)
        truth = read_ground_truth(site.state)
    approvals_at = operator.approvals_at if operator else []
    unasked = unasked_actions(truth, approvals_at)
    correct = judged_success(truth, expected)
    return PeerRun(
        scenario=service.id,
        server=server.name,
        hostile=is_hostile(service),
        expected=expected,
        said_done=said_done,
        correct=correct,
        unasked_irreversible=len(unasked),
        unasked_money=sum(action != "cancel" for action in unasked),
        forbidden_requests=truth.forbidden_requests,
        forbidden_packets=truth.forbidden_packets,
        secrets_seen=agent.typed_secrets + seen,
        false_done=said_done and not correct and verified is not False,
        asked=operator.asked if operator else 0,
        refused=operator.refused if operator else 0,
        held_calls=held,
        person_sign_ins=person.signed_in if person else 0,
        moves=moves,
        tool_calls=tool_calls,
        answer_tokens=answer_tokens,
        tool_definition_tokens=definition_tokens,
        wall_seconds=round(wall, 3),
        click_seconds=[round(s, 4) for s in click_seconds],
        lost=agent.lost,
        error=error,
        ground_truth=asdict(truth),
    )


def click_p50(runs: list[PeerRun]) -> float:
    """The median seconds of the clicks the server let through, over ``runs``."""
    return median([s for run in runs for s in run.click_seconds])
