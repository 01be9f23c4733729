"""The operator's terminal as the server writes to it: never blocking, never unbounded.

A terminal whose output is paused (Ctrl+S, a scrolled-back multiplexer, a closed
laptop lid over ssh) stops taking bytes; a blocking write to it would stop the whole
event loop, every principal and every unauthenticated request with it, and SIGTERM
too. So the descriptor is non-blocking: what the terminal does not take now waits in
a buffer of at most :data:`SCREEN_BUFFER_BYTES` and is written when it becomes
writable; past the bound, new text is dropped and a note says how much.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from subterminator_tui.inert_text import inert_text

#: What may wait for a paused terminal: dozens of questions, nothing an agent can grow.
SCREEN_BUFFER_BYTES = 64 * 1024

#: Our own sequences (never text from a page or an agent): erase the current line, and
#: move up one line and erase it.
ERASE_LINE = "\r\x1b[2K"
ERASE_LINE_ABOVE = "\x1b[1A\x1b[2K"


class TerminalScreen:
    """Writes to a terminal descriptor from the event loop without ever waiting on it."""

    def __init__(self, fd: int, limit: int = SCREEN_BUFFER_BYTES) -> None:
        self.fd = fd
        self.limit = limit
        self._pending = bytearray()
        self._dropped = 0
        self._waiting = False
        with contextlib.suppress(OSError):
            os.set_blocking(fd, False)

    @property
    def waiting_bytes(self) -> int:
        """Bytes the terminal has not taken yet."""
        return len(self._pending)

    def write(self, text: str) -> None:
        """Show ``text`` (made inert: no sequence from anyone reaches the terminal)."""
        self._send(inert_text(text).encode("utf-8", "replace"))

    def erase_lines(self, count: int) -> None:
        """Erase the current line and the ``count`` lines above it (the cursor ends there)."""
        self._send((ERASE_LINE + ERASE_LINE_ABOVE * count).encode("ascii"))

    def _send(self, data: bytes) -> None:
        if len(self._pending) + len(data) > self.limit:
            self._dropped += len(data)
            return
        self._pending += data
        self._flush()

    def _flush(self) -> None:
        try:
            while self._pending:
                written = os.write(self.fd, self._pending)
                del self._pending[:written]
        except BlockingIOError:
            pass
        except OSError:
            # The terminal is gone; the reader sees that and stops asking.
            self._pending.clear()
        if self._pending:
            self._wait_for_room()
            return
        self._stop_waiting()
        if self._dropped:
            dropped, self._dropped = self._dropped, 0
            self._send(f"\n({dropped} bytes not shown: the terminal was not reading)\n".encode())

    def _wait_for_room(self) -> None:
        if not self._waiting:
            asyncio.get_running_loop().add_writer(self.fd, self._flush)
            self._waiting = True

    def _stop_waiting(self) -> None:
        if self._waiting:
            with contextlib.suppress(RuntimeError, ValueError, OSError):
                asyncio.get_running_loop().remove_writer(self.fd)
            self._waiting = False

    def close(self) -> None:
        """Stop writing (what waits is dropped: nobody reads it any more)."""
        self._stop_waiting()
        self._pending.clear()
