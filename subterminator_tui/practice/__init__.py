"""Practice services: local, realistic sites to rehearse a cancellation on safely.

- ``services.toml``  the practice services (Demoflix and its variants, the portal and
  its variants), shipped beside the sites they drive and loaded after the real ones
- ``demoflix/``      a streaming service with a deliberately hard-to-cancel flow
- ``portal/``        a service signed in through a practice identity provider
- ``sites``          the sites by the name a service's ``practice`` key uses (the bench's
  gauntlet is found in a source checkout only)
- ``server``         a site's router served over HTTP from a daemon thread
- ``http``           the sites' HTTP vocabulary: a parsed request in, a response out
- ``websocket``      the smallest WebSocket a practice page needs
"""

from subterminator_tui.practice.demoflix import VARIANTS, DemoflixServer, DemoflixState

__all__ = ["VARIANTS", "DemoflixServer", "DemoflixState"]
