"""Snapshot normalization judged on REAL Playwright MCP answers from Demoflix.

Each ``tests/fixtures/snapshots/demoflix/<page>.md`` is the raw ``browser_snapshot``
answer captured through the gateway (tests/fixtures/demoflix_walk.py), ``<page>.yml``
its accessibility tree and ``<page>.json`` its URL and title.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from subterminator_tui.browser.snapshot import (
    normalize_snapshot,
    parse_elements,
)
from subterminator_tui.browser.tools import REF_PATTERN
from subterminator_tui.errors import SnapshotValidationError
from tests.fixtures.pages import SNAPSHOTS, page
from tests.fixtures.pages import raw_page as raw

PAGES = sorted(path.stem for path in SNAPSHOTS.glob("*.md"))
INTERACTIVE_ROLES = frozenset({"button", "link", "textbox", "radio", "checkbox", "combobox"})


def meta(page: str) -> dict[str, str]:
    """The captured URL and title for ``page``."""
    data: dict[str, str] = json.loads((SNAPSHOTS / f"{page}.json").read_text(encoding="utf-8"))
    return data


def without_line(text: str, prefix: str) -> str:
    """``text`` with every line starting with ``prefix`` removed."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(prefix))


def test_every_demoflix_page_was_captured() -> None:
    """The fixture set covers the main flow and every variant page the walker visits."""
    assert set(PAGES) >= {
        "login",
        "account",
        "survey",
        "survey_answered",
        "offer",
        "confirm",
        "done",
        "already_cancelled",
        "offer_accepted",
        "verify",
        "captcha",
        "error",
        "session_expired",
    }


# --- Every captured page normalizes -----------------------------------------------


@pytest.mark.parametrize("name", PAGES)
def test_captured_page_normalizes_to_its_url_and_title(name: str) -> None:
    """The URL and title come out exactly as recorded in the page's .json."""
    snapshot = page(name)
    assert (snapshot.url, snapshot.title) == (meta(name)["url"], meta(name)["title"])


@pytest.mark.parametrize("name", PAGES)
def test_captured_page_content_is_its_accessibility_tree(name: str) -> None:
    """The content is the non-empty YAML tree, identical to the captured .yml."""
    snapshot = page(name)
    assert snapshot.content.strip()
    assert snapshot.content == (SNAPSHOTS / f"{name}.yml").read_text(encoding="utf-8").rstrip("\n")


@pytest.mark.parametrize("name", PAGES)
def test_every_node_but_text_carries_a_ref_in_playwright_form(name: str) -> None:
    """Each parsed node has a role, and each non-text node a unique ``e12``/``f1e3`` ref."""
    elements = page(name).elements
    assert elements
    refs = [element.ref for element in elements if element.role != "text"]
    assert all(element.role for element in elements)
    assert all(ref is not None and re.fullmatch(REF_PATTERN, ref) for ref in refs)
    assert len(refs) == len(set(refs))


@pytest.mark.parametrize("name", PAGES)
def test_interactive_elements_have_a_bounding_box(name: str) -> None:
    """``--snapshot-boxes`` gives every button, link and field a box of positive size."""
    interactive = [e for e in page(name).elements if e.role in INTERACTIVE_ROLES]
    assert interactive
    for element in interactive:
        assert element.box is not None, element
        assert element.box.width > 0 and element.box.height > 0, element


@pytest.mark.parametrize("name", PAGES)
def test_captured_pages_have_no_extra_sections(name: str) -> None:
    """A plain ``browser_snapshot`` answer has only Page and Snapshot, so no notes."""
    assert page(name).notes == {}


def test_login_page_names_its_fields_and_button() -> None:
    """Roles and accessible names are parsed from ``- role "name" [ref=..]`` lines."""
    login = page("login")
    assert [(e.role, e.name) for e in login.find("textbox")] == [
        ("textbox", "Username"),
        ("textbox", "Password"),
    ]
    assert login.ref_of("button", "Sign in") == "e23"


def test_inline_text_is_kept_on_its_node() -> None:
    """``- paragraph [..]: text`` keeps the text on the paragraph, quotes removed."""
    account = page("account")
    paragraphs = [e.text for e in account.elements if e.role == "paragraph"]
    assert "Premium plan · $22.99/month" in paragraphs


def test_quoted_inline_text_with_a_colon_is_unquoted() -> None:
    """A real double-quoted value containing ``: `` (account page) is read as one text."""
    account = page("account")
    billing = [e for e in account.elements if e.text.startswith("Next billing date")]
    assert len(billing) == 1
    assert re.fullmatch(r"Next billing date: \w+ \d{1,2}, \d{4}", billing[0].text)


def test_text_nodes_become_text_elements_without_refs() -> None:
    """``- text: Too expensive`` is a text element (no ref), so ``find`` skips it."""
    survey = page("survey")
    texts = [e.text for e in survey.elements if e.role == "text"]
    # The survey's four answers, then the footer's "Questions?" before its Contact us link.
    assert texts == [
        "Too expensive",
        "Not watching enough",
        "Technical problems",
        "Something else",
        "Questions?",
    ]
    assert all(e.role != "text" for e in survey.find(name="Too expensive"))


def test_depth_follows_the_yaml_indentation() -> None:
    """Depth is the nesting level: the FAQ link sits inside its paragraph, inside main."""
    offer = page("offer")
    by_name = {e.name: e for e in offer.elements if e.name}
    main = next(e for e in offer.elements if e.role == "main")
    faq = by_name["Questions? Read the FAQ"]
    assert (offer.elements[0].depth, main.depth, faq.depth) == (0, 1, 3)


# --- states, headings ----------------------------------------------------------------------


def test_answered_survey_has_exactly_the_chosen_radio_checked() -> None:
    """After the click, ``[checked]`` is parsed on "Too expensive" and on no other radio."""
    answered = page("survey_answered")
    assert [e.name for e in answered.find("radio") if "checked" in e.states] == ["Too expensive"]


def test_unanswered_survey_has_no_checked_radio() -> None:
    """Before any click, none of the four radios carries a state."""
    radios = page("survey").find("radio")
    assert len(radios) == 4
    assert all(e.states == frozenset() for e in radios)


def test_cursor_and_aria_hidden_are_not_states() -> None:
    """``[cursor=pointer]`` is dropped and ``[aria-hidden]`` is an attribute, not a state."""
    account = page("account")
    button = account.element_by_ref(account.ref_of("button", "Cancel membership"))
    logo = next(e for e in account.elements if e.text == "DEMOFLIX")
    assert button is not None
    assert button.states == frozenset() and button.attributes == ()
    assert ("aria-hidden", "true") in logo.attributes and logo.states == frozenset()


def test_headings_come_with_their_levels_in_document_order() -> None:
    """``[level=n]`` gives each heading its level; ``headings`` keeps page order."""
    assert [(h.name, h.level) for h in page("account").headings] == [
        ("Account", 1),
        ("Membership", 2),
        ("Settings", 2),
    ]


def test_box_is_parsed_into_numbers() -> None:
    """``[box=x,y,w,h]`` becomes a Box with those four numbers."""
    login = page("login")
    button = login.element_by_ref(login.ref_of("button", "Sign in"))
    assert button is not None and button.box is not None
    assert (button.box.x, button.box.y, button.box.width, button.box.height) == (320, 383, 93, 43)


# --- link targets are kept but never visible --------------------------------------------------


def test_link_target_is_kept_on_the_link() -> None:
    """A link's ``/url:`` child becomes the link's ``url``, not an element of its own."""
    offer = page("offer")
    faq = offer.element_by_ref(offer.ref_of("link", "Questions? Read the FAQ"))
    assert faq is not None and faq.url is not None
    assert "rejoin" in faq.url
    assert all(not e.role.startswith("/") for e in offer.elements)


def test_link_target_is_not_visible_text() -> None:
    """On the offer page "rejoin" appears only in an href, so ``visible_text`` lacks it."""
    offer = page("offer")
    assert "rejoin" in offer.content
    assert "rejoin" not in offer.visible_text.lower()


def test_visible_text_has_the_title_names_and_inline_text() -> None:
    """``visible_text`` holds what a person reads: title, names and inline text."""
    text = page("offer").visible_text
    assert text.splitlines()[0] == "Before you go - Demoflix"
    for expected in ("Accept 50% off", "Stay and get 50% off your next 3 months."):
        assert expected in text.splitlines()


def test_visible_text_leaves_out_refs_and_boxes() -> None:
    """Refs and bounding boxes never leak into the text that rules match."""
    text = page("offer").visible_text
    assert "ref=" not in text and "box=" not in text and "f3e12" not in text


# --- find / ref_of / element_by_ref ----------------------------------------------------------


def test_find_matches_role_exactly_and_name_by_substring() -> None:
    """``find`` takes an exact role and a case-insensitive part of the name."""
    account = page("account")
    assert [e.name for e in account.find("link", "CHANGE")] == ["Change plan"]
    assert [e.name for e in account.find(name="payment")] == ["Update payment method"]


def test_find_without_arguments_lists_every_element_with_a_ref() -> None:
    """With no filter, ``find`` returns every ref-bearing element in order."""
    survey = page("survey")
    assert survey.find() == [e for e in survey.elements if e.ref is not None]


def test_ref_of_is_case_insensitive_on_the_whole_name() -> None:
    """``ref_of`` matches the whole name regardless of case."""
    assert page("account").ref_of("button", "cancel MEMBERSHIP") == "f1e22"


def test_ref_of_a_missing_element_lists_what_the_page_has() -> None:
    """LookupError names the wanted element and the elements of that role on the page."""
    account = page("account")
    with pytest.raises(LookupError) as caught:
        account.ref_of("button", "Delete account")
    message = str(caught.value)
    assert "'Delete account'" in message
    assert "button 'Cancel membership'" in message
    assert account.url in message


def test_ref_of_refuses_a_partial_name() -> None:
    """A substring is not enough for ``ref_of``: "Cancel" is not "Cancel membership"."""
    with pytest.raises(LookupError, match="0 button named 'Cancel'"):
        page("account").ref_of("button", "Cancel")


def test_element_by_ref_returns_the_element_or_none() -> None:
    """A known ref gives its element; a stale ref gives None."""
    survey = page("survey")
    element = survey.element_by_ref("f2e21")
    assert element is not None and (element.role, element.name) == ("radio", "Too expensive")
    assert survey.element_by_ref("e999") is None


# --- Missing fields fail loudly -------------------------------------------------------


def test_missing_url_line_is_a_validation_error() -> None:
    """A real answer without its URL line names that field."""
    broken = without_line(raw("account"), "- Page URL:")
    with pytest.raises(SnapshotValidationError) as caught:
        normalize_snapshot(broken, Path("/nonexistent-workspace"))
    assert caught.value.missing == ["url"]
    assert "has no url;" in str(caught.value)
    assert caught.value.raw_output == broken


def test_a_page_without_a_title_is_a_page() -> None:
    """JSON, plain text and many real pages have no <title>: no title line, still a page."""
    page = normalize_snapshot(
        without_line(raw("account"), "- Page Title:"), Path("/nonexistent-workspace")
    )
    assert page.title == ""
    assert page.elements


def test_escape_sequences_and_controls_in_a_snapshot_are_removed() -> None:
    """Labels, text, title and URL lose escape sequences, raw or JSON-escaped, when read."""
    answer = (
        "### Page\n- Page URL: http://x.test/\u009b2J\n- Page Title: FAQ\x1b]0;owned\x07\n"
        "### Snapshot\n```yaml\n"
        '- button "Read FAQ\\u001b[2J\\u001b[32mSAFE" [ref=e1]\n'
        '- text: "line\\u0007\\u202eevil"\n'
        "- paragraph [ref=e2]: plain\x1b[31m red\n```\n"
    )
    page = normalize_snapshot(answer, Path("/nonexistent-workspace"))
    shown = [page.url, page.title, page.content, *(e.label for e in page.elements)]
    for text in shown:
        assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in text), text
        assert "\u202e" not in text
    assert page.title == "FAQ"
    assert page.find("button", "Read FAQSAFE")


def test_missing_snapshot_section_is_a_validation_error() -> None:
    """A real answer cut before ``### Snapshot`` names the missing content."""
    broken = raw("account").split("### Snapshot", 1)[0]
    with pytest.raises(SnapshotValidationError) as caught:
        normalize_snapshot(broken, Path("/nonexistent-workspace"))
    assert caught.value.missing == ["content"]
    assert "has no content;" in str(caught.value)


def test_every_missing_field_is_named_at_once() -> None:
    """Without URL line and tree, both are named, in that order."""
    broken = without_line(raw("login"), "- Page URL:").split("### Snapshot", 1)[0]
    with pytest.raises(SnapshotValidationError) as caught:
        normalize_snapshot(broken, Path("/nonexistent-workspace"))
    assert caught.value.missing == ["url", "content"]
    assert "has no url, content;" in str(caught.value)


def test_snapshot_section_without_tree_is_a_validation_error() -> None:
    """A Snapshot section holding neither a YAML block nor a .yml link has no content."""
    head = raw("login").split("### Snapshot", 1)[0]
    with pytest.raises(SnapshotValidationError) as caught:
        normalize_snapshot(head + "### Snapshot\n(nothing here)\n", Path("/nonexistent"))
    assert caught.value.missing == ["content"]


# --- the linked-file form that action results use ----------------------------------------------


def linked_answer(name: str, link: str) -> str:
    """The real answer for ``name`` with its inline tree replaced by ``- [Snapshot](link)``."""
    head = raw(name).split("### Snapshot", 1)[0]
    return f"{head}### Snapshot\n- [Snapshot]({link})"


def test_relative_linked_snapshot_is_read_from_the_workspace(tmp_path: Path) -> None:
    """A relative ``.yml`` link is resolved against the workspace and parsed like inline YAML."""
    (tmp_path / "output").mkdir()
    captured = (SNAPSHOTS / "survey_answered.yml").read_text(encoding="utf-8")
    (tmp_path / "output" / "page-1.yml").write_text(captured, encoding="utf-8")
    snapshot = normalize_snapshot(linked_answer("survey_answered", "output/page-1.yml"), tmp_path)
    assert snapshot.content == captured
    assert snapshot.title == meta("survey_answered")["title"]
    assert [e.name for e in snapshot.find("radio") if "checked" in e.states] == ["Too expensive"]


def test_absolute_linked_snapshot_is_read_as_is(tmp_path: Path) -> None:
    """An absolute ``.yml`` link (``--file-paths absolute``) is read from that path."""
    captured = (SNAPSHOTS / "offer.yml").read_text(encoding="utf-8")
    file = tmp_path / "elsewhere" / "page-2.yml"
    file.parent.mkdir()
    file.write_text(captured, encoding="utf-8")
    snapshot = normalize_snapshot(linked_answer("offer", str(file)), tmp_path / "workspace")
    assert snapshot.ref_of("button", "Continue to cancel") == "f3e22"


def test_screenshot_path_is_carried_through(tmp_path: Path) -> None:
    """The screenshot path given by the gateway is kept on the snapshot."""
    snapshot = normalize_snapshot(raw("login"), tmp_path, screenshot_path="/runs/x/shot.png")
    assert snapshot.screenshot_path == "/runs/x/shot.png"


def test_linked_snapshot_file_that_is_gone_is_a_validation_error(tmp_path: Path) -> None:
    """A ``.yml`` link to a file that does not exist is missing content, not an OSError."""
    answer = linked_answer("login", "output/page-gone.yml")
    with pytest.raises(SnapshotValidationError) as caught:
        normalize_snapshot(answer, tmp_path)
    assert caught.value.missing == ["content"]


def test_extra_sections_become_notes() -> None:
    """An extra section (here a ``### Modal state`` appended to a real answer) lands in notes.

    The section text is built in Playwright MCP's wording; no captured page has a dialog.
    """
    modal = (
        '- ["confirm" dialog with message "Really cancel?"]: can be handled by '
        "browser_handle_dialog"
    )
    snapshot = normalize_snapshot(
        raw("confirm") + "\n### Modal state\n" + modal + "\n", Path("/nonexistent")
    )
    assert snapshot.notes == {"Modal state": modal}
    assert snapshot.title == meta("confirm")["title"]


# --- single-quoted YAML keys --------------------------------------------------------------------


def captcha_image_line() -> str:
    """The real captured line whose key Playwright single-quoted (its name has ``: ``)."""
    lines = [line for line in raw("captcha").splitlines() if line.lstrip().startswith("- '")]
    assert len(lines) == 1
    return lines[0]


def test_single_quoted_key_with_a_colon_in_the_name_parses() -> None:
    """The captured ``- 'img "Characters to type: K7PX2" [ref=..]': K7PX2`` line parses whole."""
    (image,) = parse_elements(captcha_image_line())
    assert (image.role, image.name, image.ref, image.text) == (
        "img",
        "Characters to type: K7PX2",
        "f2e18",
        "K7PX2",
    )
    assert image.box is not None and image.box.width == 208


def test_single_quoted_key_is_found_in_the_whole_page() -> None:
    """On the captured CAPTCHA page the quoted image is an ordinary element of the tree."""
    captcha = page("captcha")
    assert [e.name for e in captcha.find("img")] == ["Characters to type: K7PX2"]
    assert captcha.ref_of("textbox", "Characters") == "f2e21"


def test_doubled_quote_inside_a_single_quoted_key_is_one_quote() -> None:
    """YAML's ``''`` escape inside a quoted key reads as ``'``.

    Built from the real CAPTCHA line by putting an apostrophe into its name, as
    YAML would quote it; no captured page has such a name.
    """
    line = captcha_image_line().replace("Characters to type", "Don''t type")
    (image,) = parse_elements(line)
    assert (image.name, image.ref, image.text) == ("Don't type: K7PX2", "f2e18", "K7PX2")
