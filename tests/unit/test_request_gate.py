"""The request gate's judgement of one paused request: classified, held, journaled, logged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from subterminator_tui.browser.interception import InterceptedRequest
from subterminator_tui.browser.page_links import PageLink, links_of
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.guarded.request_gate import HeldRequest, RequestGate
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal
from subterminator_tui.rules import ServiceConfig
from subterminator_tui.rules.defaults import DEFAULT_CHECKPOINTS
from subterminator_tui.rules.requests import classify, is_speculative

SITE = "http://127.0.0.1:8000"


def service() -> ServiceConfig:
    """A service on the loopback site with the built-in checkpoints."""
    return ServiceConfig.model_validate(
        {
            "id": "svc",
            "source": Path("services.toml"),
            "name": "Svc",
            "start_url": f"{SITE}/account",
            "allowed_domains": [SITE],
            "goal": "Cancel Svc.",
        }
    )


def request(
    method: str,
    path: str,
    body: str = "",
    *,
    content_type: str = "application/x-www-form-urlencoded",
    resource_type: str = "XHR",
    top_level: bool = False,
    headers: dict[str, str] | None = None,
) -> InterceptedRequest:
    """A paused request to the site."""
    return InterceptedRequest(
        request_id=f"r-{method}-{path}",
        method=method,
        url=path if path.startswith("http") else SITE + path,
        resource_type=resource_type,
        headers={"Content-Type": content_type, **(headers or {})},
        body=body.encode(),
        target_type="page",
        top_level=top_level,
    )


def kind(req: InterceptedRequest, gated: dict[str, str] | None = None) -> str:
    """The class the rules give ``req``."""
    return classify(req, DEFAULT_CHECKPOINTS, (gated or {}).get).kind


def test_a_post_that_names_a_gated_word_in_its_path_is_gated() -> None:
    """POST /cancel/finish says "finish": gated, whatever its body."""
    assert kind(request("POST", "/cancel/finish", "x=1")) == "gated"


def test_a_graphql_operation_name_counts() -> None:
    """A GraphQL mutation named ConfirmCancellation is gated; a plain query is not."""
    body = json.dumps({"operationName": "ConfirmCancellation", "query": "mutation X { a }"})
    assert kind(request("POST", "/graphql", body, content_type="application/json")) == "gated"
    read = json.dumps({"operationName": "AccountPlans", "query": "query AccountPlans { a }"})
    assert kind(request("POST", "/graphql", read, content_type="application/json")) == (
        "state_changing"
    )


def test_a_json_action_field_counts_but_typed_sentences_do_not() -> None:
    """{"action": "finish_cancellation"} is gated; a free-text answer saying "pause" is not."""
    gated = json.dumps({"action": "finish_cancellation"})
    survey = json.dumps({"answer": "I may pause it later", "step": "survey"})
    assert kind(request("POST", "/api/step", gated, content_type="application/json")) == "gated"
    assert kind(request("POST", "/api/step", survey, content_type="application/json")) == (
        "state_changing"
    )


def test_an_address_in_a_field_is_not_an_operation() -> None:
    """A sign-in POST with next=/cancel/confirm is not a confirmation."""
    sign_in = request("POST", "/login", "next=/cancel/confirm&username=a&password=b")
    assert kind(sign_in) == "state_changing"
    assert kind(request("POST", "/login?next=/cancel/confirm", "username=a")) == "state_changing"


def test_words_are_read_in_every_language_the_rules_know() -> None:
    """kuendigung-bestaetigen / bestätigen: the German built-in rule reads the request too."""
    assert kind(request("POST", "/konto/kündigung-bestätigen")) == "gated"


def test_a_get_is_gated_only_at_a_gated_address() -> None:
    """GET /cancel/confirm is an ordinary page; GET at a gated link's address (query ignored)
    is gated."""
    assert kind(request("GET", "/cancel/confirm", resource_type="Document")) == "safe"
    gated = {f"{SITE}/cancel/finish": "the address of 'Finish cancellation'"}
    assert kind(request("GET", "/cancel/finish?now=1", resource_type="Image"), gated) == "gated"


def test_speculative_loads_are_recognised() -> None:
    """A prefetch (its resource type or its Sec-Purpose header) is speculative."""
    assert is_speculative(request("GET", "/x", resource_type="Prefetch"))
    prerender = request(
        "GET", "/x", resource_type="Document", headers={"Sec-Purpose": "prefetch;prerender"}
    )
    assert is_speculative(prerender)
    assert not is_speculative(request("GET", "/x", resource_type="Document"))


def test_links_are_read_through_closed_shadow_roots_and_frames() -> None:
    """A link inside a closed shadow root of a frame's document is found, with its name."""
    document = {
        "nodeName": "#document",
        "documentURL": f"{SITE}/page",
        "children": [
            {
                "nodeName": "IFRAME",
                "attributes": [],
                "contentDocument": {
                    "nodeName": "#document",
                    "documentURL": f"{SITE}/frame",
                    "children": [
                        {
                            "nodeName": "DIV",
                            "shadowRoots": [
                                {
                                    "nodeName": "#document-fragment",
                                    "children": [
                                        {
                                            "nodeName": "A",
                                            "attributes": ["href", "/cancel/finish"],
                                            "children": [
                                                {"nodeType": 3, "nodeValue": "Finish cancellation"}
                                            ],
                                        }
                                    ],
                                }
                            ],
                        }
                    ],
                },
            }
        ],
    }
    (link,) = links_of(document)
    assert link.url == f"{SITE}/cancel/finish"
    assert link.labels == ("Finish cancellation",)


class Answers:
    """A person who answers held requests from a list (None: never answers)."""

    def __init__(self, *answers: bool | None) -> None:
        self.answers = list(answers)
        self.asked: list[HeldRequest] = []

    async def __call__(self, held: HeldRequest) -> bool:
        self.asked.append(held)
        answer = self.answers.pop(0)
        if answer is None:
            await asyncio.Event().wait()
        return bool(answer)


class StepLogOf:
    """The journal's steps, written as the loop's ledger writes them."""

    def __init__(self, journal: Journal, run_id: int) -> None:
        self.journal, self.run_id = journal, run_id

    def intent(self, turn: int, call: object, target: object) -> int | None:
        return None

    def question(self, turn: int, why: str, action: str, url: str) -> int:
        return self.journal.record_question(self.run_id, turn, why, action, url)

    def decision(self, step: int | None, verdict: str) -> None:
        if step is not None:
            self.journal.record_decision(step, verdict)

    def dispatch(self, step: int | None) -> None:
        if step is not None:
            self.journal.record_dispatch(step)

    def step_outcome(self, step: int | None, outcome: str) -> None:
        if step is not None:
            self.journal.record_step_outcome(step, outcome)


def gate_on(
    tmp_path: Path, answers: Answers, timeout: float = 5.0
) -> tuple[RequestGate, Journal, int]:
    """A gate for a fresh run of a fresh journal."""
    journal = Journal(tmp_path / "journal.sqlite3")
    run_id = journal.start_run("svc", None, "test")
    gate = RequestGate(
        Guard(service(), offered_tools=frozenset({"browser_click"})),
        StepLogOf(journal, run_id),
        answers,
        scrub=lambda text: text.replace("hunter2", "[secret]"),
        request_log=RequestLog(journal),
        run_id=run_id,
        timeout=timeout,
    )
    gate.call_starts(1, "Click button 'Continue'", approved=False)
    return gate, journal, run_id


async def test_an_unpredicted_gated_request_is_held_and_refused_on_no(tmp_path: Path) -> None:
    """n: the request fails, the step says rejected, the log says failed, the pilot is told."""
    answers = Answers(False)
    gate, journal, run_id = gate_on(tmp_path, answers)
    verdict = await gate.judge(request("POST", "/cancel/finish", "password=hunter2&confirm=yes"))
    assert verdict == "fail"
    (held,) = answers.asked
    assert "POST 127.0.0.1/cancel/finish" in held.action and "password=•••" in held.action
    assert "after: Click button 'Continue'" in held.action
    (step,) = journal.steps(run_id)
    assert step.state == "rejected" and "hunter2" not in step.action
    (logged,) = journal.requests(run_id)
    assert (logged.verdict, logged.kind, logged.fields) == (
        "failed",
        "gated",
        ("password", "confirm"),
    )
    assert not logged.reached_service
    assert any("not sent" in note for note in gate.take_notes())


async def test_a_released_request_is_journaled_like_a_checkpoint(tmp_path: Path) -> None:
    """y: dispatched before it goes, done when the service answers 200."""
    gate, journal, run_id = gate_on(tmp_path, Answers(True))
    held = request("POST", "/cancel/finish", "confirm=yes")
    assert await gate.judge(held) == "observe"
    (step,) = journal.steps(run_id)
    assert step.state == "dispatched_outcome_unknown"
    gate.answered(held, 200)
    (step,) = journal.steps(run_id)
    assert step.state == "done"
    (logged,) = journal.requests(run_id)
    assert (logged.verdict, logged.status, logged.step_id) == ("approved", 200, step.id)


async def test_an_unanswered_held_request_fails(tmp_path: Path) -> None:
    """Nobody answers: the request fails after the timeout, nothing is sent."""
    gate, journal, run_id = gate_on(tmp_path, Answers(None), timeout=0.05)
    assert await gate.judge(request("POST", "/cancel/finish")) == "fail"
    (step,) = journal.steps(run_id)
    assert step.state == "rejected"


async def test_a_request_the_approved_call_predicted_goes_on_unasked(tmp_path: Path) -> None:
    """The call a person approved sends the gated POST: nobody is asked twice."""
    answers = Answers()
    gate, journal, run_id = gate_on(tmp_path, answers)
    gate.call_starts(2, "Click button 'Finish cancellation'", approved=True)
    assert await gate.judge(request("POST", "/cancel/finish")) == "observe"
    assert answers.asked == [] and journal.steps(run_id) == []
    (logged,) = journal.requests(run_id)
    assert logged.verdict == "predicted"
    gate.call_ends()
    assert not gate.approved_in_flight


async def test_other_state_changing_requests_are_logged_with_the_answer(tmp_path: Path) -> None:
    """A survey POST goes on, logged with its field names and the service's status."""
    gate, journal, run_id = gate_on(tmp_path, Answers())
    survey = request(
        "POST",
        "/api/survey",
        json.dumps({"reason": "too expensive"}),
        content_type="application/json",
    )
    assert await gate.judge(survey) == "observe"
    gate.answered(survey, 204)
    (logged,) = journal.requests(run_id)
    assert (logged.kind, logged.method, logged.path, logged.fields, logged.status) == (
        "state_changing",
        "POST",
        "/api/survey",
        ("reason",),
        204,
    )


async def test_a_top_level_navigation_off_the_domains_fails_before_it_is_sent(
    tmp_path: Path,
) -> None:
    """https://elsewhere.example/ as the tab's page: failed; an image from there is not a page."""
    gate, _journal, _run = gate_on(tmp_path, Answers())
    page = request("GET", "https://elsewhere.example/", resource_type="Document", top_level=True)
    assert await gate.judge(page) == "fail"
    assert any("outside" in note for note in gate.take_notes())
    image = request("GET", "https://elsewhere.example/a.png", resource_type="Image")
    assert await gate.judge(image) == "send"


async def test_a_form_whose_button_names_the_operation_is_held_as_the_commit(
    tmp_path: Path,
) -> None:
    """A form posting to /contract/42 (no word of the operation) under a button that says
    "Kündigen" is held as the commit; the same address behind a plain link, or a form
    posting to the flow's first step, is not."""
    answers = Answers(False)
    gate, _journal, _run_id = gate_on(tmp_path, answers)

    async def links() -> list[PageLink]:
        return [
            PageLink(f"{SITE}/contract/42", ("Kündigen",)),
            PageLink(f"{SITE}/cancel/start", ("Cancel subscription",)),
            PageLink(f"{SITE}/help/7", ("Cancel subscription",), plain=True),
        ]

    gate.links = links
    await gate.read_page()
    assert await gate.judge(request("POST", "/contract/42", "token=x")) == "fail"
    (held,) = answers.asked
    assert held.judgement.commit and "Kündigen" in held.judgement.why
    assert await gate.judge(request("POST", "/cancel/start", "token=x")) == "observe"
    assert await gate.judge(request("POST", "/help/7", "token=x")) == "observe"
    assert len(answers.asked) == 1
