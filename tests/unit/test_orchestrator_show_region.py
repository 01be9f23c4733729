"""show_region through the loop, and a run that ends on the evidence of its approved step."""

from __future__ import annotations

from pathlib import Path

from subterminator_tui.guarded.gates import Decision
from tests.fakes.browser import FakeBrowser
from tests.fakes.pilot import ScriptedPilot, calls, silence
from tests.fixtures.pages import page
from tests.support.loop_runs import LoopRun, finishing


async def test_show_region_lists_the_footer_and_sends_nothing(tmp_path: Path) -> None:
    """The pilot hears the footer's links in full; the browser dispatches nothing for it."""
    account = page("account")
    footer = account.ref_of("contentinfo", "")
    pilot = ScriptedPilot([calls("show_region", target=footer), silence()])
    run = LoopRun(tmp_path, pilot, FakeBrowser(account))
    await run.result()
    region = run.pilot.heard[0]["region"]
    assert region.startswith(f"- contentinfo [ref={footer}]")
    assert 'link "Cookie Preferences"' in region and "[ref=" in region
    assert run.browser.dispatched() == ["browser_navigate"]


async def test_show_region_on_a_ref_not_on_the_page_is_an_error(tmp_path: Path) -> None:
    """An unknown ref: the pilot hears an error naming it; nothing is sent."""
    pilot = ScriptedPilot([calls("show_region", target="e9999"), silence()])
    run = LoopRun(tmp_path, pilot, FakeBrowser(page("account")))
    await run.result()
    assert run.pilot.heard[0]["error"] is True
    assert "e9999" in run.pilot.heard[0]["message"]
    assert run.browser.dispatched() == ["browser_navigate"]


async def test_an_approved_step_whose_page_verifies_ends_the_run(tmp_path: Path) -> None:
    """After the approved last step the page proves it: completed, the pilot not asked again."""
    pilot, browser = finishing()
    run = LoopRun(tmp_path, pilot, browser)
    run.human.decisions.append(Decision("approve"))
    result = await run.result()
    assert (result.reason, result.success, result.turns) == ("completed", True, 1)
    assert result.verified_by is not None


async def test_an_approved_step_that_proves_nothing_goes_on(tmp_path: Path) -> None:
    """The approved step's page verifies nothing: the pilot is asked again, as before."""
    finish = page("confirm").ref_of("button", "Finish cancellation")
    pilot = ScriptedPilot([calls("browser_click", target=finish), silence()])
    after = {"browser_navigate": page("confirm"), "browser_click": page("confirm")}
    browser = FakeBrowser(page("confirm"), answer=lambda name, _a: after[name])
    run = LoopRun(tmp_path, pilot, browser)
    run.human.decisions.append(Decision("approve"))
    result = await run.result()
    assert not result.success and result.turns > 1
