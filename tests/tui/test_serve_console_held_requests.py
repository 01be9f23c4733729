"""`serve --tui`: a request the page sends on its own is asked in the operator console like any
held call; `n` fails it (nothing reaches the site), `y` and the code release it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from mcp import Client

from subterminator_bench.gauntlet import SCENARIOS_FILE, GauntletServer
from subterminator_tui.journal.store import Journal
from subterminator_tui.tui.screens.checkpoint import CheckpointScreen
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import wait_until_none_under
from tests.support.operator_consoles import approve_with_code
from tests.support.serve_clients import ref_in, text_of
from tests.tui.conftest import SIZE, console_over_http, screen_text, stop_console, wait_until

TRAP = "trap-url-rule"


async def test_a_held_request_is_decided_in_the_console(tmp_path: Path) -> None:
    """The page's timer POSTs to the address only the service's rule names: held, asked in
    the console; n fails it, y and the code send it (one cancel), both journaled."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with GauntletServer((TRAP, "remembered")) as site:
        app = console_over_http(
            tmp_path, site.base_url, image_previews=False, services=(SCENARIOS_FILE,)
        )
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: bool(app.listening), "the server to listen")
            async with Client(app.listening) as client:
                await client.call_tool(
                    "session_open", {"name": "main", "service": f"gauntlet-{TRAP}"}
                )
                page = text_of(await client.call_tool("snapshot", {"session": "main"}))
                start = ref_in(page, "button", "Cancel membership")
                page = text_of(await client.call_tool("click", {"session": "main", "ref": start}))
                for verdict in ("reject", "approve"):
                    go = ref_in(page, "button", "Continue")
                    click = asyncio.create_task(
                        client.call_tool("click", {"session": "main", "ref": go})
                    )
                    await wait_until(
                        pilot, lambda: isinstance(app.screen, CheckpointScreen), "the question"
                    )
                    shown = screen_text(app)
                    assert "POST" in shown and "/cancelplan" in shown, shown
                    assert site.state.cancel_requests == 0
                    (held,) = app.desk.pending()
                    if verdict == "reject":
                        await pilot.press("n")
                    else:
                        await approve_with_code(pilot, held.id)
                    await click
                    await wait_until(pilot, lambda held=held: held.finished, "the request's fate")
                    page = text_of(await client.call_tool("snapshot", {"session": "main"}))
                    expected = 0 if verdict == "reject" else 1
                    assert site.state.cancel_requests == expected, site.state.events
                assert site.state.irreversible == ["cancel"]
                assert site.state.out_of_order_requests == 0
            await stop_console(pilot, app)
    assert wait_until_none_under(tmp_path / "profiles") == []
    with Journal(tmp_path / "journal.sqlite3") as journal:
        (run,) = journal.recent_runs()
        steps = journal.steps(run.id)
        requests = [r for r in journal.requests(run.id) if r.path == "/cancelplan"]
    assert [step.state for step in steps] == ["rejected", "done"], steps
    assert all("/cancelplan" in step.action for step in steps)
    assert [(r.verdict, r.step_id) for r in requests] == [
        ("failed", steps[0].id),
        ("approved", steps[1].id),
    ]
    assert requests[1].status == 200 and not requests[0].reached_service
