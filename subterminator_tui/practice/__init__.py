"""Practice services: local, realistic sites to rehearse a cancellation on safely."""

from subterminator_tui.practice.demoflix import VARIANTS, DemoflixServer, DemoflixState

__all__ = ["VARIANTS", "DemoflixServer", "DemoflixState"]
