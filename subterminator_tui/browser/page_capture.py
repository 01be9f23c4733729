"""Pictures of the page: screenshots saved in the run's folder, JPEG frames for a live view.

A front end that shows the page as it is (the app's live pane, serve's live view)
needs only :class:`LiveFrames`; the gateway is one, through its :class:`PageCapture`.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Protocol

import mcp_types as types

from subterminator_tui.browser.answers import Dispatch
from subterminator_tui.browser.mcp_process import ServerStopped
from subterminator_tui.errors import MCPConnectionError, MCPToolError, OutcomeUnknownError

_SUFFIXES = {"image/jpeg": ".jpg", "image/webp": ".webp"}


class LiveFrames(Protocol):
    """A page shown as it is, one JPEG frame at a time (a live view's source)."""

    async def jpeg_frame(self) -> bytes | None:
        """The viewport as JPEG bytes, or None when there is no picture to give now."""
        ...


class PageCapture:
    """Saves the images a call's answer carries, and takes frames that are never saved."""

    def __init__(self, dispatch: Dispatch, folder: Path) -> None:
        self._dispatch = dispatch
        #: Where screenshots go (``<run>/screenshots``), made on the first one.
        self.folder = folder
        self._saved = 0

    def save_images(self, result: types.CallToolResult) -> Path | None:
        """Write every image of ``result`` as ``screenshot-NNN.png`` (or .jpg, .webp); the
        path of the last one, or None when the answer had none."""
        saved: Path | None = None
        for block in result.content:
            if isinstance(block, types.ImageContent):
                self._saved += 1
                self.folder.mkdir(exist_ok=True)
                suffix = _SUFFIXES.get(block.mime_type, ".png")
                saved = self.folder / f"screenshot-{self._saved:03d}{suffix}"
                saved.write_bytes(base64.b64decode(block.data))
        return saved

    async def jpeg_frame(self) -> bytes | None:
        """The viewport as JPEG bytes, for a live view: nothing saved, no snapshot taken.

        None when the browser gives no image (a dialog is open, it is restarting).
        """
        try:
            result = await self._dispatch("browser_take_screenshot", {"type": "jpeg"})
        except (MCPToolError, MCPConnectionError, ServerStopped, OutcomeUnknownError):
            return None
        for block in result.content:
            if isinstance(block, types.ImageContent) and not result.is_error:
                return base64.b64decode(block.data)
        return None
