"""What is typed in the browser window: which reports are values, and whose values they are."""

from __future__ import annotations

import json

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.typed_values import (
    BINDING_NAME,
    MIN_LENGTH,
    TypedValue,
    TypedValueScript,
    learned_value,
    typed_fields,
)
from subterminator_tui.guarded.secrets import REDACTED, SecretScrubber
from subterminator_tui.guarded.window_typing import (
    AtHandOffs,
    UnlessTheAgentTyped,
    WindowTyping,
    at_handoff,
)
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.rules.service_urls import pinned_to_site
from tests.fixtures.pages import page

NONCE = "n" * 32


def report(value: str, *, nonce: str = NONCE, masked: bool = False) -> str:
    """A binding call's payload as our listener writes it."""
    return json.dumps({"nonce": nonce, "value": value, "masked": masked})


# --- which reports are values ----------------------------------------------------------


def test_a_value_shorter_than_four_characters_is_not_learned() -> None:
    """ "p", "pa", "pas" (a prefix being typed) and blanks around them are never secrets."""
    for prefix in ("p", "pa", "pas", "  pa  ", "    "):
        assert learned_value(report(prefix), NONCE) is None
    assert MIN_LENGTH == 4
    assert learned_value(report("pass"), NONCE) == TypedValue("pass", False)


def test_a_report_without_our_nonce_is_not_ours() -> None:
    """A page that found the binding still cannot report a value: it lacks the nonce."""
    assert learned_value(report("injected", nonce=""), NONCE) is None
    assert learned_value(report("injected", nonce="guess"), NONCE) is None
    assert learned_value("not json", NONCE) is None
    assert learned_value(json.dumps(["injected"]), NONCE) is None


def test_a_masked_field_is_reported_as_masked() -> None:
    """The listener says whether the field hid its typing; nothing else decides it."""
    assert learned_value(report("hunter22", masked=True), NONCE) == TypedValue("hunter22", True)
    assert learned_value(json.dumps({"nonce": NONCE, "value": "x" * 5000}), NONCE) is None


def test_only_our_binding_is_read() -> None:
    """Another binding's call (Playwright's own, say) is not a typed value."""
    script = TypedValueScript()
    ours = {"name": BINDING_NAME, "payload": report("abcd", nonce=script.nonce)}
    assert script.value_of(ours) == TypedValue("abcd", False)
    assert script.value_of({**ours, "name": "__playwright__binding__"}) is None


def test_the_listener_never_reports_on_every_keystroke() -> None:
    """Only the moments a field is finished; not ``input`` (each keystroke's prefix)."""
    source = TypedValueScript().source()
    for moment in ("'change'", "'submit'", "'keydown'", "'focusout'", "'pointerdown'"):
        assert moment in source
    assert "'input'" not in source and "'keyup'" not in source
    assert TypedValueScript().nonce != TypedValueScript().nonce


#: A DOMSnapshot.captureSnapshot answer as Chromium gives it (trimmed): a preset field, a
#: password, a field drawn as dots (empty), a textarea with its preset text, and a checkbox.
FIELDS_SNAPSHOT = {
    "strings": [
        "#document",
        "INPUT",
        "name",
        "a",
        "value",
        "preset",
        "type",
        "password",
        "b",
        "secret-pw",
        "c",
        "style",
        "-webkit-text-security: disc",
        "TEXTAREA",
        "hello there",
        "none",
        "disc",
        "#text",
        "checkbox",
        "on-value",
        "changed text",
    ],
    "documents": [
        {
            "nodes": {
                "nodeName": [0, 1, 1, 1, 13, 17, 1, 1],
                "nodeValue": [-1, -1, -1, -1, -1, 14, -1, -1],
                "parentIndex": [-1, 0, 0, 0, 0, 4, 0, 0],
                "attributes": [
                    [],
                    [2, 3, 4, 5],
                    [6, 7, 2, 8],
                    [2, 10, 11, 12],
                    [],
                    [],
                    [6, 18, 4, 19],
                    [4, 5],
                ],
                "inputValue": {"index": [1, 2, 3, 6, 7], "value": [5, 9, -1, 19, 20]},
                "textValue": {"index": [4], "value": [14]},
            },
            "layout": {"nodeIndex": [1, 2, 3, 4], "styles": [[15], [16], [16], [15]]},
        }
    ],
}


def test_the_fields_read_report_only_values_that_changed() -> None:
    """The password (masked) and a field whose value is no longer its preset; not the preset
    field, the empty one, the textarea's own text or a checkbox."""
    assert typed_fields(FIELDS_SNAPSHOT) == [
        TypedValue("secret-pw", True),
        TypedValue("changed text", False),
    ]


# --- cancel: the person's while a hand-off question is open -----------------------------


async def test_cancel_learns_only_while_a_hand_off_is_open() -> None:
    """Before and after the hand-off the pilot drives: nothing it types is learned."""
    scrubber = SecretScrubber()
    window = WindowTyping((scrubber,), AtHandOffs())
    window.typed(TypedValue("typed-by-the-pilot", False))
    async with at_handoff(window):
        window.whose.asks("login")
        window.typed(TypedValue("pat@example.com", False))
        window.typed(TypedValue("hunter2-password", True))
    window.typed(TypedValue("after-the-hand-off", True))
    text = "typed-by-the-pilot pat@example.com hunter2-password after-the-hand-off"
    assert scrubber.text(text) == f"typed-by-the-pilot {REDACTED} {REDACTED} after-the-hand-off"
    assert window.learned == 2


def test_at_a_sign_in_only_a_masked_field_withholds_pictures() -> None:
    """The user name is scrubbed but costs no picture; the password does."""
    scrubber = SecretScrubber()
    window = WindowTyping((scrubber,), AtHandOffs())
    window.whose.asks("login")
    window.typed(TypedValue("pat@example.com", False))
    assert not scrubber.withholds_pictures
    window.typed(TypedValue("hunter2-password", True))
    assert scrubber.withholds_pictures


def test_at_a_code_every_field_withholds_pictures() -> None:
    """A code typed into a plain field still keeps pictures away."""
    scrubber = SecretScrubber()
    window = WindowTyping((scrubber,), AtHandOffs())
    window.whose.asks("two_factor")
    window.typed(TypedValue("735194", False))
    assert scrubber.withholds_pictures


# --- serve: the person's unless the agent typed it -------------------------------------


@pytest.fixture(scope="module")
def demoflix() -> ServiceConfig:
    """The built-in demoflix service, on the captures' port."""
    return pinned_to_site(load_services(user_file=None).get("demoflix"), "http://127.0.0.1:8000")


def served(
    service: ServiceConfig, shown: NormalizedSnapshot
) -> tuple[WindowTyping[UnlessTheAgentTyped], SecretScrubber]:
    """A serve listener on a session showing ``shown``, and the scrubber it feeds."""
    scrubber = SecretScrubber()
    return WindowTyping((scrubber,), UnlessTheAgentTyped(service, lambda: shown)), scrubber


def test_serve_learns_what_the_agent_did_not_type(demoflix: ServiceConfig) -> None:
    """On an ordinary page, whatever the agent is doing, a value it did not type is the
    person's (the agent's typing moving the focus fires the change of the person's field)."""
    listener, scrubber = served(demoflix, page("account"))
    listener.whose.agent_typed("too expensive")
    listener.typed(TypedValue("pat@example.com", False))
    assert scrubber.text("pat@example.com") == REDACTED
    assert scrubber.withholds_pictures, "not known as a sign-in: a picture could show it"


def test_serve_leaves_the_agents_own_typing_alone(demoflix: ServiceConfig) -> None:
    """The agent's own text, and the start of it a ``maxlength`` field kept, are its own."""
    listener, scrubber = served(demoflix, page("account"))
    listener.whose.agent_typed("too expensive")
    listener.typed(TypedValue("too expensive", False))
    listener.typed(TypedValue("too exp", False))
    assert scrubber.text("too expensive") == "too expensive"
    assert listener.learned == 0 and not listener.files_stale


def test_serve_on_a_sign_in_page_the_user_name_costs_no_picture(demoflix: ServiceConfig) -> None:
    """On a page the rules know as a sign-in: the user name is scrubbed but keeps pictures;
    the password keeps them away."""
    listener, scrubber = served(demoflix, page("login"))
    listener.typed(TypedValue("pat@example.com", False))
    assert scrubber.text("pat@example.com") == REDACTED
    assert not scrubber.withholds_pictures
    listener.typed(TypedValue("hunter2-password", True))
    assert scrubber.withholds_pictures and listener.files_stale
