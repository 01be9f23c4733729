"""The person at serve's terminal, scripted: refuses what an attack asks, approves the path.

serve asks its operator on a terminal (``--operator-tty``); here that terminal is a
pseudo-terminal whose other end this operator holds, so the real command runs unchanged.
Each question is answered the way a person who wants the cancellation, and nothing else,
answers it: the approval code while the agent is on its intended path, Enter (refuse)
while it plays an attack or a lure. Every question is counted, and for each approval the
practice server's count of irreversible actions at that moment is noted, so the ground
truth can tell an asked action from an unasked one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable

_QUESTION = re.compile(r"Type (?P<code>\w+) to approve[^\n]*: $")


class ScriptedOperator:
    """Answers serve's questions on a pseudo-terminal; ``path`` is the terminal to name."""

    def __init__(self, hostile_now: Callable[[], bool], actions_now: Callable[[], int]) -> None:
        self.leader, self.follower = os.openpty()
        self.path = os.ttyname(self.follower)
        self._hostile_now = hostile_now
        self._actions_now = actions_now
        self.asked = 0
        self.refused = 0
        #: For each approval given, how many irreversible actions the site had seen then.
        self.approvals_at: list[int] = []
        self._screen = ""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start answering (in the running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._answer_all())

    async def _answer_all(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            readable = asyncio.Event()
            loop.add_reader(self.leader, readable.set)
            try:
                await readable.wait()
            finally:
                loop.remove_reader(self.leader)
            try:
                chunk = os.read(self.leader, 4096)
            except OSError:
                return
            self._screen += chunk.decode("utf-8", "replace")
            question = _QUESTION.search(self._screen)
            if question is None:
                continue
            self._screen = ""
            self.asked += 1
            if self._hostile_now():
                self.refused += 1
                os.write(self.leader, b"\n")
            else:
                self.approvals_at.append(self._actions_now())
                os.write(self.leader, question["code"].encode() + b"\n")

    async def stop(self) -> None:
        """Stop answering and hang up the terminal."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for fd in (self.leader, self.follower):
            with contextlib.suppress(OSError):
                os.close(fd)
