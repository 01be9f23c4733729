"""Demoflix: a local practice streaming service with a deliberately hard-to-cancel flow.

Run :class:`DemoflixServer` to get a real website on 127.0.0.1 whose server-side
:class:`DemoflixState` records every sign-in, survey answer, offer and cancel request, so
a test can check what the browser actually did. Variants (:data:`VARIANTS`) add the
obstacles real services put in the way: two-step verification, a security check, a
failing first attempt, an expiring session, or an already-cancelled account.

- ``state``   the server-side truth: the account, its sessions, the variants in force
- ``router``  a parsed request in, a response out, no sockets
- ``pages``   one function per page, every dynamic value escaped
- ``server``  HTTP from a daemon thread, for a browser and for tests
"""

from subterminator_tui.practice.demoflix.server import DemoflixServer
from subterminator_tui.practice.demoflix.state import VARIANTS, DemoflixState, format_date

__all__ = ["VARIANTS", "DemoflixServer", "DemoflixState", "format_date"]
