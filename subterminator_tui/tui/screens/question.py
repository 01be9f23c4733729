"""The base of every screen that asks the person something and waits for a key.

A key answers a question only if it was pressed after the question was asked: a ``y``
typed a moment before a checkpoint came up was meant for something else.
"""

from __future__ import annotations

import time
from typing import ClassVar, TypeVar

from textual.binding import BindingType
from textual.screen import ModalScreen

from subterminator_tui.tui.actions import bindings

AnswerT = TypeVar("AnswerT")


class QuestionScreen(ModalScreen[AnswerT]):
    """A modal question; :meth:`answers_key` says whether a key event may answer it."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("question")  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        # Stamped when the question is made, just before it is shown: a key the person
        # pressed before it existed was meant for something else. (Stamping at paint time
        # instead raced keys pressed right after the paint but handled before the stamp.)
        self.asked_at = time.monotonic()

    def answers_key(self, pressed_at: float) -> bool:
        """True if a key pressed at ``pressed_at`` came after this question was asked.

        Textual stamps key events with the same monotonic clock.
        """
        return pressed_at >= self.asked_at
