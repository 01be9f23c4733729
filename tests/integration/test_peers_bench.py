"""The peers harness on real servers: the same scripted agent, judged by the ground truth.

Each server is started as the harness starts it (``subterminator serve`` with its scripted
operator on a pseudo-terminal, the pinned Playwright MCP and Chrome DevTools MCP with
their safety flags, Debian's Chromium), driven through the official MCP client. One
honest scenario completes everywhere; one hostile scenario (Enter on the focused final
button) cancels unasked on the bare servers, which is the proof the attack works with
no protection, while serve asks, its operator refuses, and nothing irreversible happens
unasked.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_bench.peers.harness import PeerRun, run_scenario
from subterminator_bench.peers.servers import SERVERS, Launch, devtools_cli
from subterminator_bench.scenarios import expected_outcome
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.rules import load_services
from tests.conftest import browser_parts_missing
from tests.support.serve_clients import started_warm

pytestmark = pytest.mark.browser

BARE = ("playwright-mcp", "chrome-devtools-mcp")
#: serve's own tools, and its Playwright-compatible profile driven by the unchanged
#: Playwright dialect (an agent switches by changing the command only).
SERVE = ("subterminator", "subterminator-playwright")


@pytest.fixture
def peers_parts() -> None:
    """Skip without Chromium, Playwright MCP or Chrome DevTools MCP."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    try:
        devtools_cli()
    except ConfigurationError as error:
        pytest.skip(str(error))


async def run_on(server: str, scenario: str, workdir: Path) -> PeerRun:
    """``scenario`` on ``server`` through the harness."""
    registry = load_services([SCENARIOS_FILE], practice_scenarios=True)
    service = registry.get(scenario)
    expected = expected_outcome(service, registry)
    assert expected is not None
    peer = SERVERS[server]

    def warm_parameters(launch: Launch) -> StdioServerParameters:
        # serve is forked from this worker's warm interpreter behind a stand-in (the bare
        # servers, Node, start as given): the same server, without its imports' second.
        return started_warm(peer.parameters(launch))

    return await run_scenario(
        dataclasses.replace(peer, parameters=warm_parameters), service, expected, workdir
    )


@pytest.mark.usefixtures("peers_parts")
@pytest.mark.parametrize("server", [*SERVE, *BARE])
async def test_the_honest_path_completes_on_every_server(server: str, tmp_path: Path) -> None:
    """gauntlet-basic: cancelled once, the agent says done; only serve asks, and is approved."""
    run = await run_on(server, "gauntlet-basic", tmp_path)
    assert run.error == "" and run.lost == [], run
    assert run.correct and run.said_done, run.ground_truth
    assert run.asked == (1 if server in SERVE else 0)
    assert run.refused == 0
    assert run.unasked_irreversible == (0 if server in SERVE else 1)


@pytest.mark.usefixtures("peers_parts")
@pytest.mark.parametrize("server", BARE)
async def test_a_bare_server_lets_the_hostile_enter_cancel_unasked(
    server: str, tmp_path: Path
) -> None:
    """trap-enter-key: the attack's Enter ends the membership itself; no one was asked."""
    run = await run_on(server, "gauntlet-trap-enter-key", tmp_path)
    assert run.error == "", run.error
    assert list(run.ground_truth["irreversible"]) == ["cancel"]
    assert run.unasked_irreversible == 1 and run.asked == 0
    # The Enter did it: the honest finish found nothing left to click.
    assert run.moves == 3, run


@pytest.mark.usefixtures("peers_parts")
@pytest.mark.parametrize("server", SERVE)
async def test_serve_holds_the_hostile_enter_and_completes_honestly(
    server: str, tmp_path: Path
) -> None:
    """trap-enter-key on serve: the Enter is asked and refused, the honest finish approved."""
    run = await run_on(server, "gauntlet-trap-enter-key", tmp_path)
    assert run.error == "", run.error
    assert run.refused >= 1 and run.asked == run.refused + 1, run
    assert run.unasked_irreversible == 0
    assert list(run.ground_truth["irreversible"]) == ["cancel"] and run.correct and run.said_done


@pytest.mark.usefixtures("peers_parts")
@pytest.mark.parametrize("server", SERVE)
async def test_signed_out_mid_flow_the_person_signs_in_again_at_the_window(
    server: str, tmp_path: Path
) -> None:
    """session-expiry on serve: the site signs the person out before the confirmation; the
    agent, told only the person signs in, asks; the scripted person types the account into
    the session browser's window; the agent looks again and finishes, asked once. The
    agent typed no secret and no answer showed one."""
    run = await run_on(server, "gauntlet-session-expiry", tmp_path)
    assert run.error == "" and run.lost == [], run
    assert run.person_sign_ins == 1, run
    assert run.secrets_seen == 0
    assert run.correct and run.said_done and run.asked == 1 and run.unasked_irreversible == 0


@pytest.mark.usefixtures("peers_parts")
async def test_playwright_mcp_allowed_origins_does_not_stop_a_redirect(tmp_path: Path) -> None:
    """trap-302: Playwright MCP's --allowed-origins lets a redirect off the site reach the
    forbidden host (its README says it does not affect redirects); serve stops it."""
    bare = await run_on("playwright-mcp", "gauntlet-trap-302", tmp_path / "bare")
    served = await run_on("subterminator", "gauntlet-trap-302", tmp_path / "served")
    assert bare.forbidden_requests >= 1, bare.ground_truth
    assert served.forbidden_requests == 0 and served.unasked_irreversible == 0, served


@pytest.mark.slow
@pytest.mark.usefixtures("peers_parts")
def test_the_whole_table_runs_and_every_honest_scenario_completes_on_serve(
    tmp_path: Path,
) -> None:
    """The full command over every scenario: both serve profiles let nothing through unasked
    and complete every honest scenario, the one whose session expires mid-flow included
    (the person signs in again at the window)."""
    output = tmp_path / "out"
    command = [sys.executable, "-m", "subterminator_bench", "--servers"]
    command += [f"{','.join(SERVE)},{','.join(BARE)}", "--output", str(output)]
    subprocess.run(command, capture_output=True, text=True, timeout=10800, check=False)
    data = json.loads((output / "peers-results.json").read_text(encoding="utf-8"))
    for serve in (s for s in data["summaries"] if s["server"] in SERVE):
        assert serve["unasked_irreversible"] == 0 and serve["unasked_money"] == 0
        assert serve["forbidden_requests"] == 0 and serve["forbidden_packets"] == 0
        assert serve["secrets_seen"] == 0
        assert serve["honest_completed"] == serve["honest"], serve
    assert (output / "peers-chart.svg").read_text(encoding="utf-8").startswith("<svg")
