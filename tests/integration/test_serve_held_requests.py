"""serve: a request the page sends on its own is held in the browser and asked on the operator's
terminal, like any held call; `n` fails it (nothing reaches the site), the code releases it.

The real `subterminator serve` over stdio, the mcp SDK's client as the agent, the operator
at a pseudo-terminal, Playwright MCP, Chromium and the gauntlet's practice site. The agent
only clicks "Continue"; the page's listener POSTs the finishing request, which no approved
call predicted. The journal must show the question, the decision and the dispatch, and the
request log the request's fate.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from subterminator_bench.gauntlet import SCENARIOS_FILE, GauntletServer
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import wait_until_none_under
from tests.support.serve_clients import (
    TerminalOperator,
    ref_in,
    serve_over_stdio,
    text_of,
)

pytestmark = pytest.mark.browser

TRAP = "trap-fetch-listener"
SERVICE = f"gauntlet-{TRAP}"


@pytest.fixture
def site() -> Iterator[GauntletServer]:
    """The trap's practice site, signed in; skipped without the browser parts."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with GauntletServer((TRAP, "remembered")) as server:
        yield server


async def test_a_held_request_is_asked_on_the_operators_terminal(
    site: GauntletServer, operator: TerminalOperator, tmp_path: Path
) -> None:
    """n: the page's POST never reaches the site; the code: it goes out and cancels, once."""
    profiles = tmp_path / "profiles"
    params = serve_over_stdio(
        tmp_path,
        operator.path,
        "--practice-url",
        site.base_url,
        "--services",
        str(SCENARIOS_FILE),
    )
    async with Client(params) as client:
        opened = await client.call_tool("session_open", {"name": "main", "service": SERVICE})
        assert not opened.is_error, text_of(opened)
        page = text_of(await client.call_tool("snapshot", {"session": "main"}))
        start = ref_in(page, "button", "Cancel membership")
        page = text_of(await client.call_tool("click", {"session": "main", "ref": start}))
        go = ref_in(page, "button", "Continue")

        # The agent's click is no checkpoint; the request its page sends is held for the operator.
        click = asyncio.create_task(client.call_tool("click", {"session": "main", "ref": go}))
        question = await operator.answer("n")
        refused = await click
        assert "POST" in question and "/cancel/finish" in question, question
        assert "Click button 'Continue'" in question
        assert site.state.cancel_requests == 0 and site.state.out_of_order_requests == 0
        reached = [e for e in site.state.events if e == "cancel" or e.startswith("cancel_request")]
        assert reached == [], site.state.events
        page = text_of(await client.call_tool("snapshot", {"session": "main"}))
        # The agent hears it with the click's answer, or with its next call's when the page's
        # request was held after the click had answered.
        told = text_of(refused) + page
        assert "refused it and it was not sent" in told, told
        go = ref_in(page, "button", "Continue")
        click = asyncio.create_task(client.call_tool("click", {"session": "main", "ref": go}))
        question = await operator.answer("approve")
        await click
        assert "/cancel/finish" in question
        assert site.state.cancel_requests == 1 and site.state.irreversible == ["cancel"]

        closed = await client.call_tool("session_close", {"name": "main"})
        assert not closed.is_error
    assert wait_until_none_under(profiles) == []
    assert_journaled(tmp_path / "journal.sqlite3")


def assert_journaled(journal: Path) -> None:
    """Two held-request questions: rejected (its request failed), approved and dispatched (its
    request released and answered)."""
    with sqlite3.connect(journal) as db:
        (run_id,) = db.execute("SELECT id FROM runs WHERE pilot LIKE 'mcp:%'").fetchone()
        steps = db.execute(
            "SELECT id, action, decision, dispatched_at IS NOT NULL, outcome FROM steps "
            "WHERE run_id=? ORDER BY id",
            (run_id,),
        ).fetchall()
        requests = db.execute(
            "SELECT path, kind, verdict, step_id, status FROM requests "
            "WHERE run_id=? AND path='/cancel/finish' ORDER BY id",
            (run_id,),
        ).fetchall()
    assert [(decision, dispatched) for _id, _action, decision, dispatched, _o in steps] == [
        ("reject", 0),
        ("approve", 1),
    ], steps
    assert all("POST" in action and "/cancel/finish" in action for _i, action, *_ in steps)
    (rejected, _a, _d, _s, _o), (approved, _a2, _d2, _s2, outcome) = steps
    assert outcome == "done"
    assert [(kind, verdict, step) for _p, kind, verdict, step, _s in requests] == [
        ("gated", "failed", rejected),
        ("gated", "approved", approved),
    ], requests
    assert requests[0][4] is None and requests[1][4] is not None
