"""Run a command's coroutine with the exit codes and signal handling the README documents."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.exit_codes import INTERRUPTED, TERMINATED

#: The signals that stop a command cleanly.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_command(main: Callable[[], Coroutine[Any, Any, int]]) -> int:
    """Run ``main`` to completion; Ctrl+C and SIGHUP exit 130, SIGTERM 143, after cleanup.

    Each signal cancels the main task, so every ``async with`` (the browser
    gateway above all) unwinds and no browser process is left behind. SIGHUP is
    the terminal window closing: the person left, as with Ctrl+C.
    """

    async def guarded() -> int:
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        received: list[int] = []

        def on_signal(signum: int) -> None:
            received.append(signum)
            task.cancel()

        for signum in STOP_SIGNALS:
            loop.add_signal_handler(signum, on_signal, signum)
        try:
            return await main()
        except asyncio.CancelledError:
            if not received:
                raise
            first = received[0]
            return TERMINATED if first == signal.SIGTERM else INTERRUPTED
        finally:
            for signum in STOP_SIGNALS:
                loop.remove_signal_handler(signum)

    try:
        return asyncio.run(guarded())
    except SubTerminatorError as failure:
        # Diagnostics go to stderr, never stdout (which scripts parse).
        print(f"error: {failure}", file=sys.stderr)
        return failure.exit_code
    except KeyboardInterrupt:
        return INTERRUPTED
