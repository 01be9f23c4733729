"""The commit is found by what a request does, not by what its button says."""

from __future__ import annotations

import pytest

from subterminator_tui.browser.interception import InterceptedRequest
from subterminator_tui.rules.commit import (
    commit_in_fields,
    commit_in_labels,
    commit_in_names,
    commit_in_path,
    kept_fields,
    says_finish,
)
from subterminator_tui.rules.defaults import DEFAULT_CHECKPOINTS
from subterminator_tui.rules.language_words import languages
from subterminator_tui.rules.requests import classify

SITE = "http://127.0.0.1:8000"


def _posted(
    path: str,
    body: str = "",
    content_type: str = "application/x-www-form-urlencoded",
    method: str = "POST",
) -> InterceptedRequest:
    return InterceptedRequest(
        request_id=f"r-{path}",
        method=method,
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


#: A commit address in each language the rules claim, as services spell them (accented
#: words arrive percent-encoded; many services write them without accents).
COMMIT_BY_LANGUAGE = {
    "en": "/account/subscription/cancel",
    "de": "/vertrag/k%C3%BCndigung",
    "fr": "/abonnement/resilier",
    "es": "/suscripcion/dar-de-baja",
    "pt": "/conta/assinatura/cancelamento",
    "it": "/abbonamento/disdetta",
    "nl": "/lidmaatschap/opzeggen",
    "pl": "/konto/rezygnacja",
    "sv": "/medlemskap/sag-upp",
    "da": "/abonnement/opsigelse",
    "nb": "/abonnement/si-opp",
    "fi": "/tilaus/irtisano",
    "cs": "/predplatne/zrusit",
    "tr": "/abonelik/iptal",
    "ru": "/podpiska/otmenit",
    "ja": "/plan/%E8%A7%A3%E7%B4%84",
    "ko": "/subscription/%ED%95%B4%EC%A7%80",
    "zh-Hans": "/member/%E5%8F%96%E6%B6%88%E8%AE%A2%E9%98%85",
    "zh-Hant": "/member/%E9%80%80%E8%A8%82",
    "ar": "/account/%D8%A5%D9%84%D8%BA%D8%A7%D8%A1",
    "he": "/account/%D7%91%D7%99%D7%98%D7%95%D7%9C",
    "hi": "/plan/%E0%A4%B0%E0%A4%A6%E0%A5%8D%E0%A4%A6",
    "id": "/langganan/batalkan",
    "vi": "/goi/huy",
    "th": "/member/%E0%B8%A2%E0%B8%81%E0%B9%80%E0%B8%A5%E0%B8%B4%E0%B8%81",
    "el": "/syndromi/akyrosi",
}


def test_every_claimed_language_names_a_commit_address() -> None:
    """Each language table's commit words read that language's own cancel address."""
    assert set(COMMIT_BY_LANGUAGE) == set(languages())
    missed = {tag: path for tag, path in COMMIT_BY_LANGUAGE.items() if not commit_in_path(path)}
    assert missed == {}


@pytest.mark.parametrize(
    "path",
    ["/kuendigung/bestaetigen", "/resiliation/confirmer", "/cancelar/confirmar", "/解約/確認"],
)
def test_a_finishing_word_of_any_language_after_the_operation_is_the_commit(path: str) -> None:
    """`/kuendigung/bestaetigen` finishes like `/cancel/confirm` does."""
    assert commit_in_path(path) is not None


@pytest.mark.parametrize("path", ["/konto/abmelden", "/ucet/odhlasit", "/umfrage/ende"])
def test_signing_out_or_a_survey_in_another_language_is_no_commit(path: str) -> None:
    """A German or Czech sign-out and a German survey's end are not the commit."""
    assert commit_in_path(path) is None


@pytest.mark.parametrize(
    ("pairs", "path"),
    [
        ([("status", "cancelled")], "/api/subscriptions/7"),
        ([("subscription[state]", "canceled")], "/subscriptions/7"),
        ([("cancel_at_period_end", "true")], "/api/subscription/update"),
        ([("auto_renew", "false")], "/api/membership"),
        ([("amount", "0.00"), ("period", "monthly")], "/~alice/tip"),
        ([("amount", "0")], "/donations/42"),
        ([("_method", "delete")], "/memberships/12"),
        ([("_formid", "pledge-delete"), ("delete", "")], "/pledge/snowdrift"),
    ],
)
def test_fields_that_end_the_subscription_make_the_commit(
    pairs: list[tuple[str, str]], path: str
) -> None:
    """An ended status, an operation flag on, auto-renewal off, a recurring amount of 0,
    a DELETE of the subscription through ``_method``, a bare "delete" on a pledge."""
    assert commit_in_fields(pairs, path) is not None


@pytest.mark.parametrize(
    ("pairs", "path"),
    [
        ([("cancel_at_period_end", "false")], "/api/subscription/update"),
        ([("cancel_reason", "1")], "/cancel/survey"),
        ([("cancellation_feedback", "")], "/cancel/survey"),
        ([("status", "active")], "/api/subscriptions/7"),
        ([("auto_renewal", "no"), ("amount", "5.00")], "/~alice/tip"),
        ([("amount", "0")], "/cart/items"),
        ([("_method", "delete")], "/payment_methods/pm_9aB7xZ"),
        ([("delete", "")], "/payment-info"),
    ],
)
def test_fields_that_keep_or_answer_are_not_the_commit(
    pairs: list[tuple[str, str]], path: str
) -> None:
    """Resuming (the flag off), a survey answer (even an empty one or a numbered reason),
    a status still active, renewal by hand beside an amount, a zero that recurs nowhere,
    a card deleted: none ends the subscription."""
    assert commit_in_fields(pairs, path) is None


def test_an_operation_flag_set_off_keeps_and_is_not_read_as_words() -> None:
    """``cancel_at_period_end=false`` resumes: not asked for its name's "end" either; the
    same flag set on is the commit."""
    assert kept_fields([("cancel_at_period_end", "false")]) == {"cancel_at_period_end"}
    resume = _posted(
        "/api/subscription/update", '{"cancel_at_period_end": false}', "application/json"
    )
    assert classify(resume, DEFAULT_CHECKPOINTS, {}.get).kind == "state_changing"
    cancel = _posted(
        "/api/subscription/update", '{"cancel_at_period_end": true}', "application/json"
    )
    assert classify(cancel, DEFAULT_CHECKPOINTS, {}.get).kind == "gated"


@pytest.mark.parametrize(
    ("method", "path", "commit"),
    [
        ("DELETE", "/v1/subscriptions/sub_1P5atYC1Uv10wqU", True),
        ("DELETE", "/api/account", True),
        ("DELETE", "/payment_methods/pm_9aB7xZ", False),
        ("DELETE", "/session", False),
        ("POST", "/user/settings/account/delete", True),
        ("POST", "/me/memberships/subscriptions/123/auto_renew/disable", True),
        ("POST", "/notifications/disable", False),
    ],
)
def test_a_subject_deleted_or_ended_by_its_own_verb_is_the_commit(
    method: str, path: str, commit: bool
) -> None:
    """DELETE of the subscription or the account itself, and a subject's own ending verb
    (asked as the commit, or already by a built-in word): not a card, a session, or a verb
    on something else."""
    judged = classify(_posted(path, method=method), DEFAULT_CHECKPOINTS, {}.get)
    assert (judged.kind == "gated") == commit, judged


@pytest.mark.parametrize(
    "label",
    [
        "Cancel subscription",
        "Kündigen",
        "Opzeggen",
        "Unsubscribe",
        "Delete account",
        "Stop The Daily Bugle subscription.",
        "Unpledge from Snowdrift.coop",
    ],
)
def test_a_control_that_names_the_operation_names_the_commit(label: str) -> None:
    """A control's own words that end the subscription, in the languages the rules know."""
    assert commit_in_labels([label]) is not None


@pytest.mark.parametrize(
    "label",
    [
        "Cancel",
        "Keep my subscription",
        "Continue to cancel",
        "Pause subscription",
        "Resume subscription",
        "Remove this card from your account",
        "Save",
        "Next",
    ],
)
def test_a_control_that_keeps_declines_or_says_nothing_does_not(label: str) -> None:
    """A bare "Cancel" (dialogs use it), keeping, declining an offer, pausing, resuming, a
    card, a save, a next step: no operation of its own."""
    assert commit_in_labels([label]) is None


def test_a_form_post_whose_button_names_the_operation_is_the_commit() -> None:
    """A POST to an address that says nothing, from a button that says "Cancel subscription",
    is asked; the same button posting to the flow's first step only opens it."""
    named = {
        SITE + "/billing/7": "Cancel subscription",
        SITE + "/cancel/start": "Cancel subscription",
    }
    committing = classify(_posted("/billing/7", "x=1"), DEFAULT_CHECKPOINTS, {}.get, named.get)
    assert committing.kind == "gated" and committing.commit, committing
    opening = classify(_posted("/cancel/start", "x=1"), DEFAULT_CHECKPOINTS, {}.get, named.get)
    assert opening.kind == "state_changing", opening


@pytest.mark.parametrize(
    ("label", "finishes"),
    [
        ("Kündigung bestätigen", True),
        ("Confirmer la résiliation", True),
        ("解約を確定する", True),
        ("End membership", False),
        ("Si cancelas, pierdes tus listas", False),
        ("Abonnement kündigen", False),
    ],
)
def test_a_label_says_it_finishes_in_its_own_language(label: str, finishes: bool) -> None:
    """ "Kündigung bestätigen" finishes; "Abonnement kündigen" and a Spanish "if" do not."""
    assert says_finish([label]) is finishes
