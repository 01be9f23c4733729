"""The live page: the browser's viewport as it is now, one JPEG frame at a time.

The cancel app shows a frame after each action; the operator console (``serve --tui``)
follows the selected session's frames (the same stream as the HTTP live view). Drawn
with textual-image (Kitty, Sixel, or Unicode half blocks), shown only when the
``image_previews`` setting is on.
"""

from __future__ import annotations

import io

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static


class LivePage(Vertical):
    """The latest frame of the page; a note until the first one comes."""

    DEFAULT_CSS = """
    LivePage {
        height: 1fr;
        border: round $accent;
        border-title-color: $text;
    }
    LivePage > .live-frame {
        width: auto;
        height: 1fr;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Live view"
        #: How many frames this pane has drawn (the tests' handle on it).
        self.frames_shown = 0

    def compose(self) -> ComposeResult:
        """The note until there is a frame."""
        yield Static("No page yet", classes="live-note")

    def show_frame(self, jpeg: bytes) -> None:
        """Draw ``jpeg`` in place of the previous frame; a frame that does not decode is skipped."""
        from PIL import Image as PILImage
        from PIL import UnidentifiedImageError

        try:
            picture = PILImage.open(io.BytesIO(jpeg))
            picture.load()
        except (OSError, UnidentifiedImageError):
            return
        from textual_image.widget import Image

        shown = self.query(".live-frame")
        if shown:
            frame = shown.first(Image)
            frame.image = picture
        else:
            self.query(".live-note").remove()
            self.mount(Image(picture, classes="live-frame"))
        self.frames_shown += 1

    def clear(self, note: str = "No page yet") -> None:
        """Back to a note (the watched session went away or changed)."""
        self.query(".live-frame").remove()
        self.query(".live-note").remove()
        self.mount(Static(note, classes="live-note"))
