"""The operator's terminal: stray keys never approve, page text never controls the screen.

A real pseudo-terminal: the test holds the operator's side (the master end).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from subterminator_tui.serve.oversight.approvals import Approval, ApprovalDesk, approval_code
from subterminator_tui.serve.oversight.terminal_operator import TerminalOperator

WAIT = 10.0


@dataclass
class Terminal:
    """The operator's side of the pty, and the server's operator reading the other side."""

    master: int
    desk: ApprovalDesk
    screen: str = ""

    def type(self, keys: str) -> None:
        """Type ``keys`` at the terminal."""
        os.write(self.master, keys.encode())

    async def shown(self, words: str) -> str:
        """Read the screen until ``words`` appear; everything shown since the last read."""
        loop = asyncio.get_running_loop()
        start = len(self.screen)
        async with asyncio.timeout(WAIT):
            while words not in self.screen[start:]:
                readable = asyncio.Event()
                loop.add_reader(self.master, readable.set)
                try:
                    await readable.wait()
                finally:
                    loop.remove_reader(self.master)
                self.screen += os.read(self.master, 4096).decode("utf-8", "replace")
        return self.screen[start:]

    def hold(self, action: str = "Click button 'Finish cancellation'") -> Approval:
        """A call held for the operator."""
        return self.desk.submit("agent", "main", action=action, why="Final step", url="http://x/")

    async def decision(self, approval: Approval) -> str:
        """The operator's decision on ``approval``."""
        async with asyncio.timeout(WAIT):
            return await approval.decided()


@pytest.fixture
async def terminal() -> AsyncIterator[Terminal]:
    """A TerminalOperator asking on a fresh pty."""
    master, slave = os.openpty()
    desk = ApprovalDesk()
    operator = TerminalOperator(desk, slave)
    task = asyncio.create_task(operator.run())
    try:
        yield Terminal(master, desk)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        os.close(master)
        os.close(slave)


async def test_keys_typed_before_the_question_never_answer_it(terminal: Terminal) -> None:
    """A 'y' typed ahead (key repeat, paste) is dropped; the answer typed after it counts."""
    first = terminal.hold()
    await terminal.shown("to approve")
    terminal.type(approval_code(first.id) + "\n")
    assert await terminal.decision(first) == "approved"
    terminal.type("y\ny\n" + approval_code("x" * 16) + "\n")  # stray keys, nothing asked
    second = terminal.hold()
    await terminal.shown(second.id)
    terminal.type("no\n")
    assert await terminal.decision(second) == "rejected"


async def test_a_lone_y_does_not_approve(terminal: Terminal) -> None:
    """Approving takes the code shown in the question; 'y' only asks again."""
    held = terminal.hold()
    question = await terminal.shown("to approve")
    code = approval_code(held.id)
    assert f"Type {code} to approve" in question
    terminal.type("y\n")
    await terminal.shown("a lone y is not enough")
    assert held.decision == "pending"
    terminal.type("n\n")
    assert await terminal.decision(held) == "rejected"


async def test_escape_sequences_in_the_question_are_not_written(terminal: Terminal) -> None:
    """A label with clear-screen and colour sequences is shown as plain text."""
    held = terminal.hold("Click button 'Read FAQ\x1b[2J\x1b[H\x1b[32mSAFE: reading\x9b31m'")
    question = await terminal.shown("to approve")
    assert "\x1b" not in question and "\x9b" not in question
    assert "Read FAQSAFE: reading" in question
    terminal.type("\n")
    assert await terminal.decision(held) == "rejected"
