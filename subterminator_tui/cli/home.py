"""``subterminator`` with no command, on a terminal: the subscriptions home.

It lists the subscriptions kept from statements and every service with a run in the
journal. Choosing to cancel, re-check or see a receipt closes the home and returns
that command's arguments, which the command line then runs as if typed.
"""

from __future__ import annotations

import sys

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.settings import load_settings


def run_home() -> int | tuple[str, ...]:
    """Show the home; the command chosen there, or an exit code when nothing is."""
    from subterminator_tui.tui.home import create_home

    try:
        home = create_home(load_settings())
    except SubTerminatorError as failure:
        print(f"error: {failure}", file=sys.stderr)
        return failure.exit_code
    choice = home.run()
    return choice.argv if choice is not None else 0
