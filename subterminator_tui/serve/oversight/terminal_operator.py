"""The headless operator: each held call asked on a terminal, approved by typing its code.

Over stdio the server's stdin and stdout carry MCP, so the question goes to a
terminal device (the controlling terminal, ``/dev/tty``, by default). With no
terminal at all nobody could ever approve: every held call is then rejected at
once, with a message saying how to run the server with an operator.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import termios

from subterminator_tui.guarded.gates import Decision
from subterminator_tui.serve.errors import ServeConfigurationError
from subterminator_tui.serve.oversight.approvals import Approval, ApprovalDesk
from subterminator_tui.serve.oversight.question_text import describe_approval
from subterminator_tui.serve.oversight.terminal_screen import TerminalScreen

DEFAULT_TERMINAL = "/dev/tty"
#: The width a question is laid out for when the terminal does not say.
DEFAULT_COLUMNS = 80


def open_terminal(path: str) -> int:
    """A read-write descriptor on the terminal ``path``; ServeConfigurationError when none."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError as error:
        raise ServeConfigurationError(
            f"Cannot open the operator's terminal {path} ({error.strerror}). Run serve in a "
            "terminal, name one with --operator-tty, or pass --operator none (every "
            "irreversible step is then refused)."
        ) from None
    if not os.isatty(fd):
        os.close(fd)
        raise ServeConfigurationError(f"{path} is not a terminal; name one with --operator-tty.")
    return fd


class TerminalOperator:
    """Asks the operator about each held call, oldest first, on a terminal.

    Writes go through a :class:`TerminalScreen`, so a paused terminal never stops the
    server; a question withdrawn while it is asked (its session closed, its token
    revoked) is erased and the next one asked.
    """

    def __init__(self, desk: ApprovalDesk, fd: int) -> None:
        self.desk = desk
        self.fd = fd
        self.screen = TerminalScreen(fd)
        self._queue: asyncio.Queue[Approval] = asyncio.Queue()
        self._buffer = b""
        desk.subscribe(self._queue.put_nowait)

    def _say(self, text: str) -> None:
        # The last pass before the terminal: whatever reached here, no sequence is written.
        self.screen.write(text)

    def _width(self) -> int:
        try:
            return os.get_terminal_size(self.fd).columns or DEFAULT_COLUMNS
        except OSError:
            return DEFAULT_COLUMNS

    async def _read_line(self) -> str:
        loop = asyncio.get_running_loop()
        while b"\n" not in self._buffer:
            ready: asyncio.Event = asyncio.Event()
            loop.add_reader(self.fd, ready.set)
            try:
                await ready.wait()
            finally:
                loop.remove_reader(self.fd)
            try:
                chunk = os.read(self.fd, 1024)
            except BlockingIOError:
                continue
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace").strip()

    def _flush_input(self) -> None:
        """Drop every key typed so far: nothing typed before a question may answer it."""
        self._buffer = b""
        with contextlib.suppress(termios.error, OSError):
            termios.tcflush(self.fd, termios.TCIFLUSH)

    async def _ask(self, question: str, approval: Approval) -> str | None:
        """Show ``question`` on a clean input queue and read the line typed after it; None
        when ``approval`` was decided elsewhere first (withdrawn), the question erased."""
        # Dropped right before the question is written: anything read after it was typed
        # once it was on its way to the screen (a second flush after writing would race a
        # quick answer, and a person cannot answer faster than the write).
        self._flush_input()
        self._say(question)
        reading = asyncio.ensure_future(self._read_line())
        ended = asyncio.ensure_future(approval.decided())
        try:
            await asyncio.wait({reading, ended}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
            if not reading.done():
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reading
        if reading.cancelled():
            self.screen.erase_lines(question.count("\n"))
            return None
        return reading.result()

    async def _decide(self, approval: Approval) -> Decision | None:
        """Ask until the operator types the approval code (approve) or anything else (reject;
        other text is guidance, which rejects and reaches the agent as a note); None when
        the approval ended without the operator.

        A lone ``y`` neither approves nor rejects: key repeat, a paste or typing ahead
        produce it easily, so it only asks again, for the code.
        """
        code = approval.code
        question = describe_approval(approval, code, self._width())
        while True:
            answer = await self._ask(question, approval)
            if answer is None:
                return None
            if answer.lower() == code.lower():
                return Decision("approve")
            if answer.lower() in ("", "n", "no"):
                return Decision("reject")
            if answer.lower() not in ("y", "yes"):
                return Decision("guidance", guidance=answer)
            question = f"To approve, type {code} (a lone y is not enough); Enter rejects: "

    async def run(self) -> None:
        """Ask until cancelled; a closed terminal rejects what is left and stops asking."""
        try:
            while True:
                approval = await self._queue.get()
                if approval.decision != "pending":
                    continue
                decision = await self._decide(approval)
                if decision is None:
                    why = approval.withdrawn or "decided elsewhere"
                    self._say(f"(approval {approval.id} withdrawn: {why})\n")
                    continue
                approved = decision.verdict == "approve"
                decided = self.desk.decide(approval.id, decision)
                if decided.decision != ("approved" if approved else "rejected"):
                    self._say(f"(already {decided.decision}: the session closed)\n")
                else:
                    self._say("approved\n" if approved else "rejected\n")
        except (EOFError, OSError):
            self.desk.reject_all(why="the operator's terminal closed")
            self.desk.subscribe(self.desk.reject)
        finally:
            self.screen.close()


class NoOperator:
    """Nobody can approve: every held call is rejected as soon as it is held, saying why."""

    def __init__(self, desk: ApprovalDesk) -> None:
        desk.subscribe(self._reject)
        self.desk = desk

    def _reject(self, approval: Approval) -> None:
        self.desk.decide(approval.id, Decision("reject", guidance=NO_OPERATOR_NOTE))


NO_OPERATOR_NOTE = (
    "No operator is attached to this server, so nothing irreversible can be approved; ask "
    "the person to run `subterminator serve` in a terminal (or with --http --tui)."
)
