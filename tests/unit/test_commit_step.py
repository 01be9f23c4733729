"""The commit is found by what a request does, not by what its button says."""

from __future__ import annotations

import pytest

from subterminator_tui.browser.interception import InterceptedRequest
from subterminator_tui.rules.commit import commit_in_names, commit_in_path, says_finish
from subterminator_tui.rules.defaults import DEFAULT_CHECKPOINTS
from subterminator_tui.rules.language_words import languages
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
