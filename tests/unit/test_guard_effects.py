"""The guard judges what a call will really do (issue: safety that holds on any site).

Each bypass a page or a model could use against an ordinary rule for the final
button (``tool = ["browser_click"]``, ``target_any = ["cancel my plan"]``) is
tried here on a synthetic page, with the DOM facts the gateway would read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.inspection import ControlFacts, FormFacts, PageFacts
from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.browser.tools import ALLOWED_TOOLS
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.rules import ServiceConfig, load_services

URL = "http://127.0.0.1:8000/cancel/confirm"

FINAL_FORM = """- main [ref=e1]:
  - heading "Last step" [level=1] [ref=e2]
  - textbox "Reason" [ref=e3]
  - combobox "Why are you leaving?" [ref=e4]
  - button "Keep my plan" [ref=e5]
  - button "Cancel my plan" [ref=e6]
  - link "Finish cancellation" [ref=e7]:
    - /url: /cancel/finish
"""

SUBMIT = ControlFacts(tag="button", type="submit", text="Cancel my plan", form=0)
FORM = FormFacts(action="http://127.0.0.1:8000/cancel/finish", method="post", submits=(SUBMIT,))


def snapshot(content: str, url: str = URL) -> NormalizedSnapshot:
    """A page as the gateway would normalise it."""
    return NormalizedSnapshot(
        url=url, title="Cancel", content=content, elements=tuple(parse_elements(content))
    )


def ordinary_service(tmp_path: Path, *, defaults: bool = True) -> ServiceConfig:
    """A service gating the final button the ordinary way, as a new user would write it."""
    path = tmp_path / "services.toml"
    path.write_text(
        f"""[services.plain]
name = "Plain"
start_url = "http://127.0.0.1:8000/account"
allowed_domains = ["http://127.0.0.1:8000"]
goal = "Cancel."
default_checkpoints = {"true" if defaults else "false"}

[[services.plain.checkpoint]]
why = "The final button"
tool = ["browser_click"]
target_any = ["cancel my plan"]
""",
        encoding="utf-8",
    )
    return load_services([path], user_file=None).get("plain")


@pytest.fixture
def guard(tmp_path: Path) -> Guard:
    """A guard for the ordinary service."""
    return Guard(ordinary_service(tmp_path), offered_tools=ALLOWED_TOOLS)


def call(name: str, **arguments: object) -> ToolCall:
    """A pending call."""
    return ToolCall("call-1", name, dict(arguments))


def focused(ref: str) -> NormalizedSnapshot:
    """The final form with ``ref`` marked as focused, as Playwright marks it."""
    return snapshot(FINAL_FORM.replace(f"[ref={ref}]", f"[active] [ref={ref}]"))


@pytest.mark.parametrize("key", ["Enter", "Space", " ", "NumpadEnter"])
def test_an_activation_key_on_the_focused_final_button_asks(guard: Guard, key: str) -> None:
    """Enter or Space on the focused "Cancel my plan" is judged as clicking it."""
    judged = guard.judge(call("browser_press_key", key=key), focused("e6"))
    assert judged is not None and judged.rule.why == "The final button"
    assert "Cancel my plan" in judged.effect()


def test_enter_on_a_harmless_focused_button_does_not_ask(guard: Guard) -> None:
    """Enter on "Keep my plan" activates that button only: no ask."""
    assert guard.judge(call("browser_press_key", key="Enter"), focused("e5")) is None


def test_typing_with_submit_into_the_final_form_asks(guard: Guard) -> None:
    """``browser_type`` with submit=true submits the field's form: its submit button counts."""
    facts = PageFacts(target=ControlFacts(tag="input", type="text", form=0), forms=(FORM,))
    typed = call("browser_type", target="e3", text="bye", submit=True)
    judged = guard.judge(typed, snapshot(FINAL_FORM), facts)
    assert judged is not None and "submits the form" in judged.effect()


def test_enter_in_a_field_of_the_final_form_asks(guard: Guard) -> None:
    """Typing, then Enter in the field: the form's submit button is what Enter activates."""
    facts = PageFacts(active=ControlFacts(tag="input", type="text", form=0), forms=(FORM,))
    assert guard.judge(call("browser_press_key", key="Enter"), focused("e3"), facts) is not None


def test_typing_without_submit_does_not_ask(guard: Guard) -> None:
    """Plain typing into a field of no form activates nothing."""
    facts = PageFacts(target=ControlFacts(tag="input", type="text", form=-1), forms=(FORM,))
    typed = call("browser_type", target="e3", text="bye")
    assert guard.judge(typed, snapshot(FINAL_FORM), facts) is None


def test_navigating_to_a_gated_links_url_asks(tmp_path: Path) -> None:
    """A navigation to a link seen on any page of the run is judged as clicking the link."""
    service = ordinary_service(tmp_path)
    path = tmp_path / "more.toml"
    path.write_text(
        '[services.plain2]\nextends = "plain"\nname = "P2"\n\n[[services.plain2.checkpoint]]\n'
        'why = "Finishing"\ntool = ["browser_click"]\ntarget_any = ["finish cancellation"]\n',
        encoding="utf-8",
    )
    del service
    guard = Guard(
        load_services([tmp_path / "services.toml", path], user_file=None).get("plain2"),
        offered_tools=ALLOWED_TOOLS,
    )
    guard.learn(snapshot(FINAL_FORM))
    elsewhere = snapshot(
        '- main [ref=e1]:\n  - heading "Help" [ref=e2]\n', url="http://127.0.0.1:8000/help"
    )
    judged = guard.judge(call("browser_navigate", url="/cancel/finish"), elsewhere)
    assert judged is not None and judged.rule.why == "Finishing"


def test_navigating_to_a_forms_action_asks(guard: Guard) -> None:
    """A navigation to a form's action is judged as pressing its submit button."""
    guard.learn(snapshot(FINAL_FORM), PageFacts(forms=(FORM,)))
    judged = guard.judge(call("browser_navigate", url=FORM.action), snapshot(FINAL_FORM))
    assert judged is not None and judged.rule.why == "The final button"


def test_url_conditions_match_the_destination(tmp_path: Path) -> None:
    """``url_any`` holds for a navigation whose destination matches, not only the current page."""
    path = tmp_path / "services.toml"
    path.write_text(
        '[services.u]\nname = "U"\nstart_url = "http://127.0.0.1:8000/account"\n'
        'allowed_domains = ["http://127.0.0.1:8000"]\ngoal = "Cancel."\n\n'
        "[[services.u.checkpoint]]\n"
        'why = "Finishing URL"\nurl_any = ["/cancel/finish"]\n',
        encoding="utf-8",
    )
    guard = Guard(load_services([path], user_file=None).get("u"), offered_tools=ALLOWED_TOOLS)
    judged = guard.judge(call("browser_navigate", url="/cancel/finish?now=1"), snapshot(FINAL_FORM))
    assert judged is not None and judged.rule.why == "Finishing URL"


def test_a_select_that_submits_its_form_asks(guard: Guard) -> None:
    """Choosing an option can submit the form on change: its submit buttons count."""
    facts = PageFacts(target=ControlFacts(tag="select", form=0), forms=(FORM,))
    chosen = call("browser_select_option", target="e4", values=["Too expensive"])
    assert guard.judge(chosen, snapshot(FINAL_FORM), facts) is not None


def test_an_aria_label_cannot_hide_the_visible_text(guard: Guard) -> None:
    """``aria-label="Continue"`` on a button showing "Cancel my plan" still asks."""
    page = snapshot('- main [ref=e1]:\n  - button "Continue" [ref=e9]\n')
    facts = PageFacts(target=ControlFacts(tag="button", text="Cancel my plan", label="Continue"))
    judged = guard.judge(call("browser_click", target="e9"), page, facts)
    assert judged is not None and "Cancel my plan" in judged.effect()


def test_a_target_renamed_since_the_pilot_saw_it_is_refused(guard: Guard) -> None:
    """The pilot saw "Continue"; right before dispatch the same ref reads "Cancel my plan"."""
    seen = snapshot('- main [ref=e1]:\n  - button "Continue" [ref=e9]\n')
    fresh = snapshot('- main [ref=e1]:\n  - button "Cancel my plan" [ref=e9]\n')
    refusal = guard.relabelled(call("browser_click", target="e9"), seen, fresh)
    assert refusal is not None and "changed from button 'Continue'" in refusal.message


def test_an_unchanged_target_passes(guard: Guard) -> None:
    """Same role and name before and after: no refusal."""
    page = snapshot(FINAL_FORM)
    assert guard.relabelled(call("browser_click", target="e5"), page, page) is None


def test_an_untraceable_key_asks_on_a_page_holding_a_gated_control(guard: Guard) -> None:
    """Tab (or any key a script may bind) on the final page: the fallback asks."""
    judged = guard.judge(call("browser_press_key", key="Tab"), snapshot(FINAL_FORM))
    assert judged is not None and judged.fallback


def test_an_untraceable_key_on_a_harmless_page_does_not_ask(guard: Guard) -> None:
    """Tab on a page with nothing gated goes on."""
    page = snapshot('- main [ref=e1]:\n  - link "Help" [ref=e2]\n')
    assert guard.judge(call("browser_press_key", key="Tab"), page) is None


@pytest.mark.parametrize(
    ("label", "asks"),
    [
        ("Confirm", True),
        ("Yes, cancel", True),
        ("Accept 50% off", True),
        ("Kündigung bestätigen", True),
        ("Confirmer la résiliation", True),
        ("Sí, cancelar", True),
        ("Cancel membership", False),
        ("Continue", False),
        ("Update payment method", False),
    ],
)
def test_the_built_in_words_ask_on_any_service(tmp_path: Path, label: str, asks: bool) -> None:
    """With no rule of its own for it, a service still asks before "Confirm" (not "Continue")."""
    guard = Guard(ordinary_service(tmp_path), offered_tools=ALLOWED_TOOLS)
    page = snapshot(f'- main [ref=e1]:\n  - button "{label}" [ref=e9]\n')
    assert (guard.judge(call("browser_click", target="e9"), page) is not None) is asks


def test_default_checkpoints_can_be_turned_off(tmp_path: Path) -> None:
    """``default_checkpoints = false``: only the service's own rules ask."""
    guard = Guard(ordinary_service(tmp_path, defaults=False), offered_tools=ALLOWED_TOOLS)
    page = snapshot('- main [ref=e1]:\n  - button "Confirm" [ref=e9]\n')
    assert guard.judge(call("browser_click", target="e9"), page) is None


def test_typing_into_a_form_whose_only_way_forward_is_gated_asks(guard: Guard) -> None:
    """The final form has one button, "Cancel my plan": typing into it asks first."""
    facts = PageFacts(target=ControlFacts(tag="input", type="text", form=0), forms=(FORM,))
    typed = call("browser_type", target="e3", text="bye")
    judged = guard.judge(typed, snapshot(FINAL_FORM), facts)
    assert judged is not None and "only way forward" in judged.effect()


def test_typing_into_a_form_with_a_choice_of_buttons_does_not_ask(guard: Guard) -> None:
    """Two submit buttons (keep or cancel): typing commits to neither."""
    keep = ControlFacts(tag="button", type="submit", text="Keep my plan", form=0)
    two_ways = FormFacts(action=FORM.action, method="post", submits=(keep, SUBMIT))
    facts = PageFacts(target=ControlFacts(tag="input", type="text", form=0), forms=(two_ways,))
    typed = call("browser_type", target="e3", text="bye")
    assert guard.judge(typed, snapshot(FINAL_FORM), facts) is None
