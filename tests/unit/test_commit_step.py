"""The commit is found by what a request does, not by what its button says."""

from __future__ import annotations

import pytest

from subterminator_tui.browser.interception import InterceptedRequest
from subterminator_tui.rules.commit import commit_in_names, commit_in_path
from subterminator_tui.rules.defaults import DEFAULT_CHECKPOINTS
from subterminator_tui.rules.requests import classify

SITE = "http://127.0.0.1:8000"


def _posted(
    path: str, body: str = "", content_type: str = "application/x-www-form-urlencoded"
) -> InterceptedRequest:
    return InterceptedRequest(
        request_id=f"r-{path}",
        method="POST",
        url=SITE + path,
        resource_type="Document",
        headers={"Content-Type": content_type},
        body=body.encode(),
        target_type="page",
        top_level=True,
    )


@pytest.mark.parametrize(
    "path",
    [
        "/premium/cancel",
        "/account/subscription/cancel",
        "/api/v2/plans/42/cancel",
        "/cancel/confirm",
        "/cancel/finish",
        "/membership/terminate",
        "/endSubscription",
        "/account/close-account",
        "/unsubscribe",
    ],
)
def test_a_path_that_finishes_the_operation_is_the_commit(path: str) -> None:
    """The last part of the path (ids left out) names ending the subscription."""
    assert commit_in_path(path) is not None


@pytest.mark.parametrize(
    "path",
    [
        "/cancel/survey",
        "/cancel/start",
        "/survey/end",
        "/next",
        "/cancel/reason/continue",
        "/account",
    ],
)
def test_a_path_that_only_passes_through_the_flow_is_not(path: str) -> None:
    """A survey answer, a "Next", the flow's first step: not the commit (``end`` alone never)."""
    assert commit_in_path(path) is None


def test_an_operation_name_counts_a_sentence_does_not() -> None:
    """``cancelSubscription`` names the operation; a reason that mentions it does not."""
    assert commit_in_names(["cancelSubscription"]) == "cancel subscription"
    assert commit_in_names(["reason", "I want to cancel because of the price"]) is None


def test_a_cancel_premium_form_post_no_rule_names_is_gated_as_the_commit() -> None:
    """POST /premium/cancel (the button said "Cancel Premium", which no checkpoint names)."""
    judged = classify(_posted("/premium/cancel", "plan=premium"), DEFAULT_CHECKPOINTS, {}.get)
    assert judged.kind == "gated" and judged.commit, judged


def test_a_graphql_mutation_that_cancels_is_the_commit() -> None:
    """A GraphQL ``cancelMembership`` mutation posted to /graphql."""
    body = (
        '{"operationName":"CancelMembership",'
        '"query":"mutation CancelMembership { cancelMembership(id: 1) { ok } }"}'
    )
    judged = classify(_posted("/graphql", body, "application/json"), DEFAULT_CHECKPOINTS, {}.get)
    assert judged.kind == "gated", judged


def test_a_survey_post_to_an_end_path_is_not_asked() -> None:
    """POST /survey/end with an answer: state-changing, never gated for saying ``end``."""
    judged = classify(_posted("/survey/end", "answer=price"), DEFAULT_CHECKPOINTS, {}.get)
    assert judged.kind == "state_changing", judged
