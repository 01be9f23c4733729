"""One question for one commit: the way into the flow, a choice posted from a pause page
and an approved step's later parts are not asked again; the commit still is."""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_bench.runner import BenchGate
from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.inspection import ControlFacts, FormFacts, PageFacts
from subterminator_tui.browser.interception import InterceptedRequest
from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.browser.tools import ALLOWED_TOOLS
from subterminator_tui.guarded.gates import CheckpointRequest
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.rules import load_services
from subterminator_tui.rules.commit import opens_its_flow, step_in_path
from subterminator_tui.rules.defaults import DEFAULT_CHECKPOINTS
from subterminator_tui.rules.evidence import ApprovedStep
from subterminator_tui.rules.page_rules import CheckpointRule
from subterminator_tui.rules.requests import classify

SITE = "http://127.0.0.1:8000"
#: The plan page of a real account: the price, the next bill, the card on file.
PLAN_REGION = (
    "Plan & billing · Premium plan · $22.99/month Next billing date: 2026-12-27 "
    "Payment method: Visa ending in 4242 End membership"
)
PLAN_PAGE = """- main [ref=e1]:
  - heading "Plan & billing" [level=1] [ref=e2]
  - paragraph [ref=e3]: Premium plan · $22.99/month
  - button "End membership" [ref=e4]
"""


def _page() -> NormalizedSnapshot:
    return NormalizedSnapshot(
        url=f"{SITE}/settings/billing",
        title="Plan & billing",
        content=PLAN_PAGE,
        elements=tuple(parse_elements(PLAN_PAGE)),
    )


def _click_posting_to(path: str, label: str = "End membership") -> PageFacts:
    """The DOM facts of a click on a submit button ``label`` whose form posts to ``path``."""
    button = ControlFacts(tag="button", type="submit", text=label, form=0, region=PLAN_REGION)
    form = FormFacts(action=SITE + path, method="post", submits=(button,))
    return PageFacts(target=button, forms=(form,))


@pytest.fixture
def guard(tmp_path: Path) -> Guard:
    """A guard with the built-in checkpoints only, as for a site nobody wrote rules for."""
    path = tmp_path / "services.toml"
    path.write_text(
        f"""[services.plain]
name = "Plain"
start_url = "{SITE}/account"
allowed_domains = ["{SITE}"]
goal = "Cancel."
""",
        encoding="utf-8",
    )
    service = load_services([path], user_file=None).get("plain")
    return Guard(service, offered_tools=ALLOWED_TOOLS)


def _click() -> ToolCall:
    return ToolCall("call-1", "browser_click", {"target": "e4"})


def test_the_way_into_the_flow_is_not_asked_beside_the_plan_price(guard: Guard) -> None:
    """ "End membership" posting to /cancel/start, beside "$22.99/month" and "Payment method":
    neither a money step nor the commit; it only opens the flow."""
    assert guard.judge(_click(), _page(), _click_posting_to("/cancel/start")) is None


def test_the_same_button_posting_to_the_commit_is_asked(guard: Guard) -> None:
    """The same label posting to /membership/cancel ends the membership: asked."""
    judged = guard.judge(_click(), _page(), _click_posting_to("/membership/cancel"))
    assert judged is not None


def test_the_unscoped_guard_asks_the_way_in_as_money(guard: Guard) -> None:
    """The proof: without the flow's address the region's price and "payment" ask, as the
    way in was asked before (a second question before the commit)."""
    button = ControlFacts(tag="button", type="button", text="End membership", region=PLAN_REGION)
    judged = guard.judge(_click(), _page(), PageFacts(target=button))
    assert judged is not None and judged.spends_money, judged


@pytest.mark.parametrize(
    ("labels", "action", "opens"),
    [
        (["End membership"], "/cancel/start", True),
        (["Cancel subscription"], "/membership/cancel/begin", True),
        (["Finish cancellation"], "/cancel/start", False),
        (["Pay now"], "/checkout/start", False),
        (["End membership"], "/start", False),
        (["End membership"], "/membership/cancel", False),
        (["Confirm cancellation"], "/plans/cancel/confirm", False),
    ],
)
def test_only_a_cancel_named_control_posting_to_the_flows_first_step_opens_it(
    labels: list[str], action: str, opens: bool
) -> None:
    """The control names the operation without finishing it, its address names the flow and
    only passes through it."""
    assert opens_its_flow(labels, SITE + action) is opens


@pytest.mark.parametrize(
    ("path", "step"),
    [
        ("/cancel/pause/cancel-anyway", "cancel anyway"),
        ("/cancel/pause/pause", "pause"),
        ("/pause/confirm", "pause confirm"),
        ("/subscriptions/123/pause", "pause"),
        ("/cancel/finish", "cancel finish"),
    ],
)
def test_a_requests_step_is_its_paths_last_part(path: str, step: str) -> None:
    """The last part that is not an id, with the one before when the last only finishes."""
    assert step_in_path(path) == step


PAUSE_RULE = CheckpointRule.model_validate(
    {"why": "Pausing keeps billing", "tool": ["browser_click"], "target_any": ["pause"]},
    strict=False,
)


def _posted(path: str) -> InterceptedRequest:
    return InterceptedRequest(
        request_id=f"r-{path}",
        method="POST",
        url=SITE + path,
        resource_type="Document",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        body=b"",
        target_type="page",
        top_level=True,
    )


def test_a_choice_posted_from_the_pause_page_is_not_a_pause() -> None:
    """ "Cancel anyway" posts to /cancel/pause/cancel-anyway: it declines the pause, so a rule
    that gates pausing does not hold it (it was asked as a pause before: one more question)."""
    rules = (PAUSE_RULE, *DEFAULT_CHECKPOINTS)
    judged = classify(_posted("/cancel/pause/cancel-anyway"), rules, {}.get)
    assert judged.kind == "state_changing", judged


@pytest.mark.parametrize("path", ["/cancel/pause/pause", "/pause/confirm", "/cancel/finish"])
def test_the_pause_and_the_finish_are_still_held(path: str) -> None:
    """The loud "Pause" posts to /cancel/pause/pause; a pause confirmed; the flow finished."""
    rules = (PAUSE_RULE, *DEFAULT_CHECKPOINTS)
    assert classify(_posted(path), rules, {}.get).kind == "gated"


def _step(labels: tuple[tuple[str, ...], ...], *, money: bool = False) -> ApprovedStep:
    flat = tuple(label for each in labels for label in each)
    return ApprovedStep(1, "Click", flat, money, _page(), "", target_labels=labels)


def test_a_click_that_submits_through_the_cancel_button_is_a_cancellation() -> None:
    """ "Remind me later" renamed under the pointer submits through "Cancel my plan": the
    person was asked with both, and approved a cancellation."""
    assert _step((("Remind me later",), ("Cancel my plan",))).is_cancellation


def test_the_same_labels_judged_together_are_not() -> None:
    """The proof: all labels as one, "later" outweighs the cancellation (a false guard miss)."""
    step = _step((("Remind me later",), ("Cancel my plan",)))
    flat = ApprovedStep(1, "Click", step.labels, False, step.before, "")
    assert not flat.is_cancellation


@pytest.mark.parametrize(
    "labels",
    [(("Remind me later",),), (("Pause on Dec 27",),), (("Confirm My Choices",),)],
)
def test_a_snooze_a_pause_or_a_consent_choice_alone_is_still_no_cancellation(
    labels: tuple[tuple[str, ...], ...],
) -> None:
    """Each element judged on its own labels: one that keeps or pauses is never evidence."""
    assert not _step(labels).is_cancellation


def test_an_element_with_no_name_never_outweighs_a_named_one() -> None:
    """An unnamed control beside "Pause": still no cancellation."""
    assert not _step(((), ("Pause",))).is_cancellation


def _question(*, money: bool, commit: bool) -> CheckpointRequest:
    return CheckpointRequest(
        "held_request",
        "why",
        "Send POST /api/plan",
        f"{SITE}/",
        None,
        spends_money=money,
        commit=commit,
    )


class _NoState:
    def to_dict(self) -> dict[str, object]:
        return {"irreversible": [], "cancelled": False, "cancel_requests": 0}


async def test_the_bench_person_refuses_a_purchase_and_approves_a_fee_to_cancel() -> None:
    """A request that spends money on anything but the cancellation is refused; a fee to
    cancel (money and the commit) and a plain commit are approved."""
    person = BenchGate(_NoState())
    purchase = await person.approve(_question(money=True, commit=False))
    fee = await person.approve(_question(money=True, commit=True))
    commit = await person.approve(_question(money=False, commit=True))
    assert (purchase.verdict, fee.verdict, commit.verdict) == ("reject", "approve", "approve")
    assert (person.refused, len(person.approvals_at), person.held_requests) == (1, 2, 3)
