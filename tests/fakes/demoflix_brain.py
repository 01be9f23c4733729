"""A scripted "model" that plays the practice site's intended path from the page it is shown.

It reads refs out of the latest page text the orchestrator sent (exactly what
a real model reads), so the decisions are scripted but every byte travels
through the real SDKs, the real loop and the real browser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from subterminator_bench.scripted_brain import page_elements
from tests.fakes.fake_model import FakeRequest, FakeTurn

_URL = re.compile(r"^URL: (?P<url>\S+)", re.MULTILINE)


def find_ref(text: str, role: str, name: str) -> str | None:
    """The ref of the element with this role and exact name in the newest page of ``text``."""
    found = (e.ref for e in page_elements(text) if e.role == role and e.name == name)
    return next(found, None)


def page_url(text: str) -> str | None:
    """The URL line of the newest page in ``text``."""
    page = text.rsplit("Current page:", 1)[-1]
    match = _URL.search(page)
    return match["url"] if match else None


def click(ref: str, element: str) -> FakeTurn:
    """A click on ``ref``."""
    return FakeTurn(
        text=f"Clicking {element}.",
        tool_calls=[("browser_click", {"target": ref, "element": element})],
    )


@dataclass
class DemoflixBrain:
    """Plays demoflix: cancel, answer the survey, decline the offer, finish, complete.

    Knobs let a test make it misbehave the way models do.
    """

    #: How the model describes the Finish button in its ``element`` argument.
    finish_description: str = "Finish cancellation button"
    #: Extra tool calls appended to every reply (only the first may run).
    extra_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: Claim success this many times before the done page (the rules must refuse).
    premature_claims: int = 0
    seen: list[str] = field(default_factory=list)

    def __call__(self, request: FakeRequest) -> FakeTurn:
        text = request.latest_text
        self.seen.append(text)
        turn = self._decide(text)
        if self.extra_calls and turn.tool_calls:
            return FakeTurn(turn.text, [*turn.tool_calls, *self.extra_calls])
        return turn

    def _decide(self, text: str) -> FakeTurn:
        if self.premature_claims > 0 and "Cancellation confirmed" not in text:
            self.premature_claims -= 1
            return FakeTurn(
                tool_calls=[("complete_task", {"status": "success", "reason": "Done, I think."})]
            )
        if 'heading "Cancellation confirmed"' in text.rsplit("Current page:", 1)[-1]:
            return FakeTurn(
                text="The page confirms it.",
                tool_calls=[
                    ("complete_task", {"status": "success", "reason": "Cancellation confirmed."})
                ],
            )
        if 'heading "Something went wrong"' in text:
            url = page_url(text) or ""
            return FakeTurn(
                tool_calls=[("browser_navigate", {"url": url.split("/error")[0] + "/account"})]
            )
        steps = (
            ("button", "Cancel membership", "Cancel membership button"),
            ("button", "Continue to cancel", "Continue to cancel button"),
            ("button", "Finish cancellation", self.finish_description),
        )
        for role, name, description in steps:
            ref = find_ref(text, role, name)
            if ref:
                return click(ref, description)
        continue_ref = find_ref(text, "button", "Continue")
        if continue_ref:
            return click(continue_ref, "Continue button")
        return FakeTurn(text="I do not know what to do on this page.")
