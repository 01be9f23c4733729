"""The headless operator: each held call asked, y/n, on a terminal.

Over stdio the server's stdin and stdout carry MCP, so the question goes to a
terminal device (the controlling terminal, ``/dev/tty``, by default). With no
terminal at all nobody could ever approve: every held call is then rejected at
once, with a message saying how to run the server with an operator.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from subterminator_tui.serve.approvals import Approval, ApprovalDesk
from subterminator_tui.serve.errors import ServeConfigurationError

DEFAULT_TERMINAL = "/dev/tty"


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
    """Asks the operator about each held call, oldest first, on a terminal."""

    def __init__(self, desk: ApprovalDesk, fd: int) -> None:
        self.desk = desk
        self.fd = fd
        self._queue: asyncio.Queue[Approval] = asyncio.Queue()
        self._buffer = b""
        desk.subscribe(self._queue.put_nowait)

    def _say(self, text: str) -> None:
        with contextlib.suppress(OSError):
            os.write(self.fd, text.encode("utf-8", "replace"))

    async def _read_line(self) -> str:
        loop = asyncio.get_running_loop()
        while b"\n" not in self._buffer:
            ready: asyncio.Event = asyncio.Event()
            loop.add_reader(self.fd, ready.set)
            try:
                await ready.wait()
            finally:
                loop.remove_reader(self.fd)
            chunk = os.read(self.fd, 1024)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace").strip()

    async def run(self) -> None:
        """Ask until cancelled; a closed terminal rejects what is left and stops asking."""
        try:
            while True:
                approval = await self._queue.get()
                if approval.decision != "pending":
                    continue
                shot = (
                    f"\n  screenshot: {approval.screenshot_path}"
                    if approval.screenshot_path
                    else ""
                )
                self._say(
                    f"\n[{approval.principal}/{approval.session}] approval {approval.id}\n"
                    f"  {approval.action}\n  why: {approval.why}\n  page: {approval.url}{shot}\n"
                    "Approve? [y/N] (or type a note for the agent; it rejects) "
                )
                answer = await self._read_line()
                approved = answer.lower() in ("y", "yes")
                note = "" if answer.lower() in ("", "n", "no") else answer
                decided = self.desk.decide(approval.id, approved, note=note)
                if decided.decision != ("approved" if approved else "rejected"):
                    self._say(f"(already {decided.decision}: the session closed)\n")
                else:
                    self._say("approved\n" if approved else "rejected\n")
        except (EOFError, OSError):
            self.desk.reject_all()
            self.desk.subscribe(self.desk.reject)


class NoOperator:
    """Nobody can approve: every held call is rejected as soon as it is held, saying why."""

    def __init__(self, desk: ApprovalDesk) -> None:
        desk.subscribe(self._reject)
        self.desk = desk

    def _reject(self, approval: Approval) -> None:
        self.desk.decide(approval.id, approve=False, note=NO_OPERATOR_NOTE)


NO_OPERATOR_NOTE = (
    "No operator is attached to this server, so nothing irreversible can be approved; ask "
    "the person to run `subterminator serve` in a terminal (or with --http --tui)."
)
