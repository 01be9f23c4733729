"""The base of every screen that asks the person something and waits for a key.

A key answers a question only if it was pressed after the question was painted: a
``y`` typed a moment before a checkpoint came up was meant for something else.
"""

from __future__ import annotations

import time
from typing import TypeVar

from textual.screen import ModalScreen

AnswerT = TypeVar("AnswerT")


class QuestionScreen(ModalScreen[AnswerT]):
    """A modal question; :meth:`answers_key` says whether a key event may answer it."""

    #: When the question was last painted (monotonic seconds), None while not on screen.
    asked_at: float | None = None

    def on_screen_resume(self) -> None:
        """Shown (again): keys count from the next paint on."""
        self.asked_at = None
        self.call_after_refresh(self._painted)

    def on_screen_suspend(self) -> None:
        """Covered or taken down: no key answers it until it is shown again."""
        self.asked_at = None

    def _painted(self) -> None:
        # The clock Textual stamps events with (monotonic on every platform this runs on).
        self.asked_at = time.monotonic()

    def answers_key(self, pressed_at: float) -> bool:
        """True if a key pressed at ``pressed_at`` came after this question was shown."""
        return self.asked_at is not None and pressed_at >= self.asked_at
