"""A terminal preview of a screenshot.

textual-image draws with the terminal's graphics protocol (Kitty, Sixel)
when it has one and falls back to Unicode half blocks elsewhere.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from textual.widget import Widget


def prepare_terminal_graphics() -> None:
    """Let textual-image ask the terminal what it can draw, before Textual owns the terminal.

    textual-image queries the terminal (cell size, Sixel, Kitty graphics) when first
    imported. Imported from inside the running app (the first checkpoint's preview), it
    raced Textual's input thread for the answer and could block the event loop forever in
    a read of stdin: the app froze before the checkpoint modal appeared (seen under tmux).
    """
    with contextlib.suppress(ImportError):
        import textual_image.widget  # noqa: F401


def screenshot_preview(path: Path) -> Widget:
    """A widget showing ``path``, or a note when the image cannot be read."""
    from textual.widgets import Static

    try:
        from textual_image.widget import Image
    except ImportError:  # pragma: no cover - textual-image is a dependency
        return Static(f"(preview unavailable: {path.name})", classes="preview")
    try:
        return Image(path, classes="preview")
    except (OSError, ValueError) as error:
        return Static(f"(preview unavailable: {error})", classes="preview")
