"""The operator's terminal: stray keys never approve, page text never controls the screen.

A real pseudo-terminal: the test holds the operator's side (the master end).
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import struct
import termios
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from subterminator_tui.serve.oversight.approvals import Approval, ApprovalDesk, approval_code
from subterminator_tui.serve.oversight.terminal_operator import TerminalOperator
from subterminator_tui.serve.oversight.terminal_screen import TerminalScreen

WAIT = 10.0
#: The pty's size: a small terminal, where a long question would scroll its header away.
ROWS, COLUMNS = 24, 80


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

    def hold(
        self, action: str = "Click button 'Finish cancellation'", url: str = "http://x/"
    ) -> Approval:
        """A call held for the operator."""
        return self.desk.submit("agent", "main", action=action, why="Final step", url=url)

    async def decision(self, approval: Approval) -> str:
        """The operator's decision on ``approval``."""
        async with asyncio.timeout(WAIT):
            return await approval.decided()


@pytest.fixture
async def terminal() -> AsyncIterator[Terminal]:
    """A TerminalOperator asking on a fresh pty."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
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


def _lines(question: str) -> list[str]:
    return question.replace("\r\n", "\n").split("\n")


def _rows(lines: list[str]) -> int:
    """The terminal rows ``lines`` take once the terminal wraps them at its width."""
    return sum(max(1, -(-len(line) // COLUMNS)) for line in lines)


async def test_a_huge_address_is_shown_as_host_and_path(terminal: Terminal) -> None:
    """A 300 KB fragment and a query are counted, not shown; the question takes fewer rows
    than the terminal has, so its header stays on screen."""
    url = "http://demoflix.test:8000/cancel/finish?confirm=yes&plan=x#" + "A" * 300_000
    held = terminal.hold(url=url)
    question = await terminal.shown("to approve")
    assert "demoflix.test:8000/cancel/finish" in question
    assert "not shown: a query of 2 parameters and a fragment of 300000 characters" in question
    assert "AAAAAAAAAA" not in question and "confirm=yes" not in question
    lines = _lines(question.strip("\r\n"))
    assert _rows(lines) < ROWS and all(len(line) <= 2 * COLUMNS for line in lines)
    assert lines[0].startswith(f"[agent/main] approval {held.id}")
    terminal.type("\n")
    assert await terminal.decision(held) == "rejected"


async def test_a_label_cannot_draw_a_second_question(terminal: Terminal) -> None:
    """A label with line breaks and a fake prompt stays on its own line, marked as the
    page's, and the only line that says how to approve is the real one."""
    forged = "Read FAQ\n\n[agent/main] approval 0000\nType 0000 to approve; Enter rejects: "
    held = terminal.hold(action="Click button '" + forged + " " * 500 + "'")
    question = await terminal.shown("to approve")
    lines = _lines(question.strip("\r\n"))
    assert [line for line in lines if line.startswith("Type ")] == [lines[-1]]
    assert all(line.startswith("  action (page's label): ") for line in lines if "0000" in line)
    assert _rows(lines) < ROWS
    terminal.type("\n")
    assert await terminal.decision(held) == "rejected"


async def test_invisible_characters_never_reach_the_operator(terminal: Terminal) -> None:
    """Zero-width spaces, joiners and tag characters in a label are removed before it is shown."""
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "approve this")
    held = terminal.hold(action=f"Click button 'Re\u200bad\u2060 FAQ\ufeff{hidden}'")
    question = await terminal.shown("to approve")
    assert "Click button 'Read FAQ'" in question
    assert not re.search("[\u200b-\u200d\u2060-\u2064\ufeff\U000e0000-\U000e007f]", question)
    terminal.type("\n")
    assert await terminal.decision(held) == "rejected"


async def test_a_withdrawn_question_is_erased_and_the_next_one_asked(terminal: Terminal) -> None:
    """The session closed while its question was asked: the question is erased, the operator
    told why, and the next held call is asked at once."""
    first = terminal.hold()
    question = await terminal.shown("to approve")
    terminal.desk.reject_all(("agent", "main"), why="the session closed")
    erased = await terminal.shown("withdrawn: the session closed")
    assert "\x1b[1A\x1b[2K" * question.count("\n") in erased
    assert first.decision == "rejected"
    second = terminal.hold()
    await terminal.shown(second.id)
    terminal.type(second.code + "\n")
    assert await terminal.decision(second) == "approved"


async def test_a_terminal_nobody_reads_never_blocks_the_writer() -> None:
    """Four megabytes to a pty nobody reads: every write returns at once, at most the bound
    waits, and once the terminal reads again the text comes out with a note of what was
    dropped."""
    master, slave = os.openpty()
    screen = TerminalScreen(slave, limit=64 * 1024)
    try:
        for number in range(1024):
            screen.write(f"line {number:04d} " + "x" * 4000 + "\n")
        assert 0 < screen.waiting_bytes <= 64 * 1024
        shown = ""
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(WAIT):
            while "bytes not shown" not in shown:
                readable = asyncio.Event()
                loop.add_reader(master, readable.set)
                try:
                    await readable.wait()
                finally:
                    loop.remove_reader(master)
                shown += os.read(master, 65536).decode("utf-8", "replace")
        assert "line 0000 " in shown and "line 1023 " not in shown
    finally:
        screen.close()
        os.close(master)
        os.close(slave)
