"""A password typed at an identity provider, in the browser window, is the person's and is kept.

The practice portal signs people in at Practice ID (tests/integration/test_sign_in_domains.py
walks it); the person signs in there in the browser, in the tab or in a pop-up (a target
opened after the run began). While the sign-in hand-off is open the run's own DevTools
session learns the e-mail and the password, and the run's scrubber keeps them: the
password as masked (it keeps pictures away), the e-mail not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from subterminator_tui.browser.typed_values import TypedValue
from subterminator_tui.guarded.secrets import REDACTED
from subterminator_tui.guarded.window_typing import AtHandOffs, WindowTyping
from subterminator_tui.practice.portal.state import PROVIDER_EMAIL, PROVIDER_PASSWORD
from tests.support.sign_in_portals import run_portal

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("popup", [False, True], ids=["in the tab", "in a pop-up"])
async def test_what_is_typed_at_the_provider_is_learned_and_scrubbed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, popup: bool
) -> None:
    """The provider's e-mail and password reach the run's scrubber while the hand-off is open."""
    kept: dict[str, tuple[bool, str]] = {}
    original = WindowTyping.typed

    def noted(self: WindowTyping[AtHandOffs], value: TypedValue) -> None:
        original(self, value)
        kept[value.value] = (value.masked, self.scrubbers[0].text(value.value))

    monkeypatch.setattr(WindowTyping, "typed", noted)
    run = await run_portal("portal", tmp_path, popup=popup)
    assert run.result.reason == "completed", run.result
    assert kept.get(PROVIDER_PASSWORD) == (True, REDACTED), kept.keys()
    assert kept.get(PROVIDER_EMAIL) == (False, REDACTED), kept.keys()
    assert PROVIDER_PASSWORD.encode() not in run.journal_text
