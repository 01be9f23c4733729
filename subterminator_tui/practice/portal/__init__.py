"""The practice portal: a small service signed in through a practice identity provider.

- ``state``    sessions, one-time codes, the plan, the provider's request log
- ``identity`` the practice identity provider on 127.0.0.2 (sign-in form, redirect back)
- ``pages``    the portal's HTML, with the endings the web cannot finish
- ``router``   the portal's routes
- ``server``   both served together
"""

from subterminator_tui.practice.portal.server import PortalServer
from subterminator_tui.practice.portal.state import PortalState

__all__ = ["PortalServer", "PortalState"]
