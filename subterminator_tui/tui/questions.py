"""One question on screen at a time: the app's questions wait in line, oldest first.

The run's questions (a checkpoint, a hand-off) and the person's own (stop the run?)
go through one desk. A question asked while another is up waits behind it, never
on top; only the stop question goes first, taking the current one down until it is
answered (then that one is asked again, freshly painted).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

from textual import events
from textual.app import App

from subterminator_tui.tui.screens.question import QuestionScreen

AnswerT = TypeVar("AnswerT")


@dataclass(eq=False)
class Question(Generic[AnswerT]):
    """A question waiting or on screen: how to show it and who hears the answer."""

    make: Callable[[], QuestionScreen[AnswerT]]
    answered: Callable[[AnswerT | None], None]
    screen: QuestionScreen[AnswerT] | None = field(default=None, init=False)


class QuestionDesk:
    """Shows the app's questions one at a time."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self._waiting: deque[Question[Any]] = deque()
        self.current: Question[Any] | None = None

    @property
    def waiting_count(self) -> int:
        """How many questions wait behind the one on screen."""
        return len(self._waiting)

    def ask(
        self,
        make: Callable[[], QuestionScreen[AnswerT]],
        answered: Callable[[AnswerT | None], None],
        *,
        first: bool = False,
    ) -> Question[AnswerT]:
        """Queue a question (``first``: before every other, the one on screen taken down)."""
        question = Question(make, answered)
        if first:
            if self.current is not None:
                self._take_down(self.current)
                self._waiting.appendleft(self.current)
                self.current = None
            self._waiting.appendleft(question)
        else:
            self._waiting.append(question)
        self._show_next()
        return question

    async def answer(self, make: Callable[[], QuestionScreen[AnswerT]]) -> AnswerT | None:
        """Ask and wait for the answer (from the run's worker); cancelled, the question goes."""
        answer: asyncio.Future[AnswerT | None] = asyncio.get_running_loop().create_future()

        def answered(value: AnswerT | None) -> None:
            if not answer.done():
                answer.set_result(value)

        question = self.ask(make, answered)
        try:
            return await answer
        finally:
            self.withdraw(question)

    def withdraw(self, question: Question[Any]) -> None:
        """The question is no longer asked (answered, or its asker gave up)."""
        if question in self._waiting:
            self._waiting.remove(question)
        elif question is self.current:
            self._take_down(question)
            self.current = None
            self._show_next()

    def _show_next(self) -> None:
        if self.current is not None or not self._waiting:
            return
        question = self._waiting.popleft()
        self.current = question
        question.screen = question.make()
        self.app.push_screen(question.screen, partial(self._answered, question))

    def _answered(self, question: Question[Any], value: object) -> None:
        if question is not self.current:
            return
        self.current = None
        question.screen = None
        question.answered(value)
        self._show_next()

    def _take_down(self, question: Question[Any]) -> None:
        """Remove the question's screen (and anything over it) without answering it."""
        screen, question.screen = question.screen, None
        while screen is not None and screen in self.app.screen_stack:
            self.app.pop_screen()


def is_early_key(app: App[Any], key: events.Key) -> bool:
    """True for a key pressed before the question on screen was shown: it must not answer it.

    The app's own priority keys (stop, quit) still work then: they ask, they never answer.
    """
    screen = app.screen
    if key.is_forwarded or not isinstance(screen, QuestionScreen) or screen.answers_key(key.time):
        return False
    active = screen.active_bindings.get(key.key)
    return not (active is not None and active.node is app and active.binding.priority)
