"""The step that ends a subscription, on flows nobody on the team wrote: found, asked once,
proved.

Each test runs `subterminator cancel --url` on one rebuilt flow or hostile page
(subterminator_bench.rebuilt), with the scripted loopback model walking the path a
model took and the person answering as on stdin; the flow's server keeps the ground
truth (cancelled, charged, paused, snoozed, the consent answer). Each test states what
a careful user expects (each failed on 5fe1044, where they were written as strict
xfails before the fixes); each has its proof, in test_commit_flows_unguarded.py, that
the step it guards really commits when nothing guards it. Browser, Playwright MCP,
egress filter and model SDK are real.

The plain flow and the guard miss run the command as a child, its stdin the person,
and read its exit code, JSON, questions and journal views. The rest judge the run, not
the command: they make the same request through the same entry the command uses
(``prepared_run``) in the test's process, on one browser for the module, reset between
runs (tests/support/shared_browser.py), which costs a fraction of a child's CPU.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from subterminator_bench.rebuilt import FLOWS, RebuiltServer
from subterminator_bench.rebuilt.flows.delivery_membership import SUPPORT_PHONE
from subterminator_bench.rebuilt.flows.early_termination_fee import FEE_TEXT
from subterminator_bench.rebuilt.flows.hostile import DISTANCE_TRICKS, SHORTCUT_KEY
from subterminator_bench.rebuilt.flows.phone_only import PHONE
from subterminator_tui import exit_codes
from subterminator_tui.guarded.gates import CheckpointRequest
from tests.conftest import in_worker_loop
from tests.integration.cli_children import Cli
from tests.support.rebuilt_runs import (
    BareButtonBrain,
    PageRecordingBrain,
    cancel_url,
    cancel_url_in_run,
    click,
    navigate,
    press,
)
from tests.support.shared_browser import SharedBrowser

pytestmark = [pytest.mark.browser]


def in_shared_browser(test: Any) -> Any:
    """Mark ``test`` as one that runs in this process, on the module's browser and loop."""
    return pytest.mark.usefixtures("browser_without_keys")(in_worker_loop(test))


#: How long a page gets to show its renamed button after the test flips the switch.
RENAME_SECONDS = 30.0


def commit_named(questions: list[str], label: str) -> bool:
    """Whether one of ``questions`` asks about the control or request called ``label``."""
    return any(label in question for question in questions)


# --- The commit went out unasked ---------------------------------------------------------


def test_cancel_premium_on_a_site_with_no_rules_is_asked_before_it_is_sent(
    browser_cli: Cli,
) -> None:
    """`Cancel Premium` posts `.../cancel`: it is asked, and a person who says no keeps Premium."""
    with RebuiltServer(FLOWS["no-rules-premium"]) as site:
        steps = [click("Premium settings"), click("Cancel Premium")]
        run = cancel_url(browser_cli, site.start_url, steps, answers="")
        assert commit_named(run.questions, "Cancel Premium"), run.stderr
        assert not site.state.cancelled, site.state.effects


@in_shared_browser
async def test_the_retention_maze_asks_its_commit_once(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """Four pages, two offers declined: one question, `Cancel Subscription`, then verified."""
    with RebuiltServer(FLOWS["retention-maze"]) as site:
        steps = [
            click("Cancel", "link"),
            click("Continue to cancel"),
            click("Continue to cancel"),
            click("Cancel Subscription"),
        ]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert len(run.questions) == 1 and "Cancel Subscription" in run.questions[0], run.questions
        assert site.state.cancelled and site.state.offers_accepted == []
        assert run.code == exit_codes.SUCCESS, run.result


# --- Any approved step counts as "the" cancellation --------------------------------------


@in_shared_browser
async def test_a_snooze_after_an_approved_step_is_not_verified(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """`Remind me later` ends nothing: the run must not say cancelled and verified."""
    with RebuiltServer(FLOWS["snooze-pause"]) as site:
        steps = [click("End Membership"), click("Remind me later")]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert site.state.snoozed and not site.state.cancelled
        assert run.code != exit_codes.SUCCESS, run.result
        assert run.result.get("reason") != "completed", run.result


@in_shared_browser
async def test_a_pause_after_an_approved_step_is_not_verified(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """`Pause on <date>`, even approved, ends nothing: not cancelled and verified."""
    with RebuiltServer(FLOWS["snooze-pause"]) as site:
        steps = [click("End Membership"), click("Pause on")]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert site.state.paused_on is not None and not site.state.cancelled
        assert run.code != exit_codes.SUCCESS, run.result
        assert run.result.get("reason") != "completed", run.result


@in_shared_browser
async def test_a_consent_banner_is_answered_privately_and_is_no_evidence(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """The banner gets the most private answer with no question; the one question is the
    commit, and the commit is the evidence."""
    with RebuiltServer(FLOWS["consent-banner"]) as site:
        steps = [
            # Optional: once the run answers the banner itself, there is nothing to click.
            click("Confirm My Choices", optional=True),
            click("Cancel membership"),
            click("Cancel Subscription"),
        ]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert len(run.questions) == 1 and "Cancel Subscription" in run.questions[0], run.questions
        assert site.state.consent == "necessary", site.state.effects
        assert site.state.cancelled and run.code == exit_codes.SUCCESS, run.result
        assert "Confirm My Choices" not in str(run.result.get("message")), run.result


# --- Endings that follow what was sent ---------------------------------------------------


#: Offline-only services and the path to the page that says so: a navigation at most.
OFFLINE_PATHS = {
    "phone-only": ([click("End subscription")], PHONE),
    "delivery-membership-48h": (
        [click("Manage Membership"), click("End membership", "link")],
        SUPPORT_PHONE,
    ),
}


@pytest.mark.parametrize("flow_id", sorted(OFFLINE_PATHS))
@in_shared_browser
async def test_an_offline_only_service_after_a_navigation_ends_offline_only(
    shared_runs: SharedBrowser, tmp_path: Path, flow_id: str
) -> None:
    """Nothing irreversible left the browser: exit 6, the phone number and a letter in --json."""
    steps, phone = OFFLINE_PATHS[flow_id]
    with RebuiltServer(FLOWS[flow_id]) as site:
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert site.state.effects == [] and not site.state.cancelled
        assert run.code == exit_codes.OFFLINE_ONLY, run.result
        assert run.result.get("reason") == "offline_only", run.result
        ending = run.result.get("ending") or {}
        assert ending.get("letter"), run.result
        assert any(phone in contact for contact in ending.get("contacts", [])), ending


@in_shared_browser
async def test_an_approved_fee_is_verified_with_the_fee_in_the_result(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """The fee is asked with its amount, approved, charged: verified, the fee in the result."""
    with RebuiltServer(FLOWS["early-termination-fee"]) as site:
        steps = [click("Cancel your plan"), click("Continue"), click("Confirm cancellation")]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert site.state.cancelled and site.state.charged_cents > 0
        assert any(FEE_TEXT in question for question in run.stderr.split("Approve?")), run.stderr
        assert run.code == exit_codes.SUCCESS, run.result
        assert FEE_TEXT.lstrip("$") in json.dumps(run.result), run.result


@in_shared_browser
async def test_a_redirect_home_is_verified_on_the_account_page(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """The home page says nothing; the account page says "Valid until": verified."""
    with RebuiltServer(FLOWS["redirect-home"]) as site:
        steps = [click("Manage"), click("Yes, cancel my plan")]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert site.state.cancelled
        assert run.code == exit_codes.SUCCESS, run.result


# --- Noise -------------------------------------------------------------------------------


@in_shared_browser
async def test_the_streaming_flow_asks_only_its_commit(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """Link, survey, `Finish Cancellation`: one question, the last one."""
    with RebuiltServer(FLOWS["streaming"]) as site:
        steps = [click("Cancel Membership"), click("Continue"), click("Finish Cancellation")]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\ny\n")
        assert site.state.survey_answers and site.state.cancelled
        assert len(run.questions) == 1, run.questions
        assert "Finish Cancellation" in run.questions[0]


@in_shared_browser
async def test_the_delivery_membership_asks_only_its_commit(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """`Manage Membership`, `End membership` (a link), `End Membership` (the commit): one
    question."""
    with RebuiltServer(FLOWS["delivery-membership"]) as site:
        steps = [
            click("Manage Membership"),
            click("End membership", "link"),
            click("End Membership", "button"),
        ]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "y\ny\n")
        assert site.state.cancelled
        assert len(run.questions) == 1, run.questions
        assert run.code == exit_codes.SUCCESS, run.result


# --- The same hole under the request gate ------------------------------------------------


@pytest.mark.parametrize("flow_id", [flow.id for flow in DISTANCE_TRICKS])
@in_shared_browser
async def test_a_distance_trick_posting_to_cancel_is_asked(
    shared_runs: SharedBrowser, tmp_path: Path, flow_id: str
) -> None:
    """The innocent control's real effect, `POST /membership/cancel`, is asked; no is no."""
    paths = {
        "retarget-pointerover": [click("Continue")],
        "keydown-listener": [press(SHORTCUT_KEY)],
        "transparent-overlay": [click("Continue")],
        "aliased-frame": [click("Continue")],
    }
    with RebuiltServer(FLOWS[flow_id]) as site:
        path = paths.get(flow_id) or BareButtonBrain()
        run = await cancel_url_in_run(shared_runs, site.start_url, path, tmp_path, "")
        assert run.questions, run.stderr
        assert not site.state.cancelled, site.state.effects


@in_shared_browser
async def test_a_typed_navigation_to_an_unseen_get_commit_is_asked(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """`/membership/finish`, linked from nowhere, cancels by GET: asked; no is no."""
    with RebuiltServer(FLOWS["unseen-finish"]) as site:
        steps = [navigate("/membership/finish")]
        run = await cancel_url_in_run(shared_runs, site.start_url, steps, tmp_path, "")
        assert run.questions, run.stderr
        assert not site.state.cancelled, site.state.effects


# --- Settle on the page as drawn ---------------------------------------------------------


@in_shared_browser
async def test_a_single_page_app_is_first_shown_with_its_controls(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """The model's first page already holds `Cancel subscription` (drawn after the query)."""
    with RebuiltServer(FLOWS["graphql-app"]) as site:
        brain = PageRecordingBrain(
            [click("Cancel subscription"), click("Yes, cancel subscription")]
        )
        await cancel_url_in_run(shared_runs, site.start_url, brain, tmp_path, "y\n")
        assert brain.pages_seen, "the model was never asked"
        first = brain.pages_seen[0]
        assert "Current page:" in first
        assert 'button "Cancel subscription"' in first, first


# --- Re-check after the answer -----------------------------------------------------------


@in_shared_browser
async def test_a_target_renamed_while_asked_is_refused_or_asked_again(
    shared_runs: SharedBrowser, tmp_path: Path
) -> None:
    """`Yes, cancel` becomes `Accept offer: 3 months for $1` while asked: no offer taken."""
    with RebuiltServer(FLOWS["renamed-target"]) as site:
        renamed: list[bool] = []

        async def rename_while_asked(request: CheckpointRequest) -> str | None:
            # Approve what comes before (a link may be asked too), up to the confirmation;
            # while it is on screen the page renames its button, and then it is approved.
            # After that the input ends: anything asked again is refused unanswered.
            if renamed:
                return None
            if "Yes, cancel" in request.action:
                site.state.signal("rename").set()
                done = site.state.signal("renamed")
                renamed.append(await asyncio.to_thread(done.wait, RENAME_SECONDS))
                assert renamed == [True], "the page never renamed"
            return "y"

        steps = [click("Cancel membership"), click("Yes, cancel")]
        run = await cancel_url_in_run(
            shared_runs, site.start_url, steps, tmp_path, types_for=rename_while_asked
        )
        assert renamed == [True], run.stderr
        assert site.state.offers_accepted == [] and site.state.charges == [], run.stderr
        # The approved click never went out on the renamed button: what that button posts
        # is not even asked about (the request gate would hold it, and ask, if it had).
        assert not any("/offer" in question for question in run.questions), run.questions


# --- The address is part of the service ----------------------------------------------------


def test_a_loopback_entry_without_its_port_is_told_the_form_to_write(
    cli: Cli, tmp_path: Path
) -> None:
    """`127.0.0.1` for a site on another port: the error shows `127.0.0.1:PORT` to write."""
    with RebuiltServer(FLOWS["no-rules-premium"]) as site:
        url, port = site.start_url, site.port
        services = tmp_path / "services.toml"
        services.write_text(
            "[services.premium]\n"
            'name = "Premium"\n'
            f'start_url = "{url}"\n'
            'allowed_domains = ["127.0.0.1"]\n'
            'goal = "Cancel Premium."\n',
            encoding="utf-8",
        )
        args = cli.cancel_args("premium", "--services", str(services), "--pilot", "playbook")
        run = cli.run(args)
    assert run.code == exit_codes.CONFIGURATION, run.stderr
    assert "allowed_domains" in run.stderr
    # The address itself names the port; the advice must name it again, as the entry to write.
    advice = run.stderr.replace(url, "")
    assert f"127.0.0.1:{port}" in advice, run.stderr


# --- A guard miss is said as one ---------------------------------------------------------


def test_a_commit_no_rule_names_is_reported_cancelled_as_a_guard_miss(browser_cli: Cli) -> None:
    """`Continue` posts `step=2` and the service cancels: the run says cancelled (sent
    without a question), exits with its own code and journals a guard miss."""
    with RebuiltServer(FLOWS["unnamed-commit"]) as site:
        run = cancel_url(browser_cli, site.start_url, [click("Continue")], answers="")
        assert site.state.cancelled, site.state.effects
    assert run.questions == [], run.questions
    assert run.code == exit_codes.CANCELLED_UNASKED, run.result
    assert run.result.get("reason") == "cancelled_unasked", run.result
    assert run.result.get("success") is True and run.result.get("sent") is True, run.result
    assert "/membership/step" in str(run.result.get("guard_miss")), run.result
    assert "without" in run.stderr and "not cancelled" not in run.stderr, run.stderr
    runs = browser_cli.run(["runs"])
    assert "guard miss" in runs.stdout, runs.stdout
    shown = browser_cli.run(["show", str(run.result["run_id"])])
    assert "guard miss: POST" in shown.stdout and "/membership/step" in shown.stdout, shown.stdout
