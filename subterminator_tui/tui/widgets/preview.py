"""A terminal preview of a screenshot.

textual-image draws with the terminal's graphics protocol (Kitty, Sixel)
when it has one and falls back to Unicode half blocks elsewhere.
"""

from __future__ import annotations

from pathlib import Path

from textual.widget import Widget


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
