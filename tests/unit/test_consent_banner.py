"""A cookie banner is recognised by its name in the tree and answered most privately."""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot, parse_elements
from subterminator_tui.rules.consent import consent_regions, private_choice


def _page(tree: str) -> NormalizedSnapshot:
    content = tree.strip() + "\n"
    return NormalizedSnapshot(
        url="http://127.0.0.1:8000/account",
        title="Account",
        content=content,
        elements=tuple(parse_elements(content)),
    )


ONETRUST = _page(
    '- region "Cookie banner" [ref=e1]:\n'
    "  - paragraph: We use cookies to improve your experience.\n"
    '  - button "Accept All Cookies" [ref=e2]\n'
    '- dialog "Privacy Preference Center" [ref=e3]:\n'
    '  - checkbox "Targeting cookies" [checked] [ref=e4]\n'
    '  - button "Confirm My Choices" [ref=e5]\n'
    '  - button "Reject All" [ref=e6]\n'
    '- heading "Membership" [level=1] [ref=e7]\n'
    '- link "Cancel membership" [ref=e8]\n'
)


def test_the_most_private_choice_of_a_preference_center_is_found() -> None:
    """ "Reject All", never "Accept All Cookies" or "Confirm My Choices" (both consent)."""
    choice = private_choice(ONETRUST)
    assert choice is not None and (choice.ref, choice.name) == ("e6", "Reject All")


def test_the_page_behind_the_banner_is_not_part_of_it() -> None:
    """The membership's own controls stay outside every consent region."""
    inside = {element.ref for region in consent_regions(ONETRUST) for element in region}
    assert "e8" not in inside and {"e2", "e6"} <= inside


def test_a_banner_in_another_language_is_answered_in_it() -> None:
    """A German banner's "Alle ablehnen"."""
    page = _page(
        '- dialog "Datenschutzeinstellungen" [ref=e1]:\n'
        '  - button "Alle akzeptieren" [ref=e2]\n'
        '  - button "Alle ablehnen" [ref=e3]\n'
    )
    choice = private_choice(page)
    assert choice is not None and choice.ref == "e3"


def test_a_reject_button_outside_any_banner_is_left_alone() -> None:
    """A "Reject all" offer on the page itself is the pilot's to read, not a banner's."""
    page = _page('- heading "Your offers" [level=1] [ref=e1]\n- button "Reject all" [ref=e2]\n')
    assert private_choice(page) is None
