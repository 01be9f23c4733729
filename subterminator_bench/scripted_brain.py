"""A scripted model that plays a scenario's intended path from the page text it is sent.

It reads refs out of the latest page exactly as a real model would read them,
so when compaction drops an element the path needs, the scripted model cannot
find it either: that is how the benchmark measures what compaction loses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from subterminator_bench.loopback_model import ModelRequest, ScriptedTurn
from subterminator_tui.pilots.playbook import (
    ELEMENT_STEP_TOOLS,
    describe_step,
    element_step_call,
    step_targets,
)
from subterminator_tui.rules import PlaybookStep

_LINE = re.compile(r'^\s*- (?P<role>[a-z]+) "(?P<name>(?:[^"\\]|\\.)*)"(?P<rest>[^\n]*)$', re.M)
_REF = re.compile(r"\[ref=(?P<ref>\w+)\]")
_PAGE_MARK = "Current page:"
_PAGE_URL = re.compile(r"^URL: (\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class PageElement:
    """A control as the page text shows it."""

    role: str
    name: str
    ref: str

    @property
    def label(self) -> str:
        """The accessible name, as step matching reads it."""
        return self.name


def page_elements(text: str) -> list[PageElement]:
    """The controls (lines with a ref) of the newest page in ``text``."""
    page = text.rsplit(_PAGE_MARK, 1)[-1]
    found = []
    for match in _LINE.finditer(page):
        ref = _REF.search(match["rest"])
        if ref:
            name = match["name"].replace('\\"', '"').replace("\\\\", "\\")
            found.append(PageElement(match["role"], name, ref["ref"]))
    return found


@dataclass
class PlaybookBrain:
    """Answers each request with the next step of ``steps`` that is on the page."""

    steps: Sequence[PlaybookStep]
    index: int = 0
    #: Steps the path needed but the page text did not show (what compaction lost).
    lost: list[str] = field(default_factory=list)
    _last_step: int | None = None
    #: The step already waited for once: a page may draw its controls after it loads.
    _waited_for: int | None = None

    def __call__(self, request: ModelRequest) -> ScriptedTurn:
        text = request.latest_text
        if text.startswith('{"error": true') and self._last_step is not None:
            # The last call failed (refused, stale): try that step again on the fresh page.
            self.index = self._last_step
        dialog_open = "Modal state" in text.rsplit(_PAGE_MARK, 1)[-1]
        if dialog_open and not self._next_is_dialog():
            # A dialog the path does not expect: answer it as a careful person would.
            self._last_step = None
            return _call("browser_handle_dialog", {"accept": True}, "Accepting the dialog.")
        elements = page_elements(text)
        while self.index < len(self.steps):
            step = self.steps[self.index]
            turn = self._turn_for(step, elements, dialog_open, request)
            if turn is not None:
                self._last_step = self.index
                self.index += 1
                return turn
            if (
                not step.optional
                and step.name
                and step.action in ELEMENT_STEP_TOOLS
                and self._waited_for != self.index
            ):
                # As a careful model would, and as the playbook does: wait once for the
                # control's text before calling it missing.
                self._waited_for = self.index
                self._last_step = None
                return _call("browser_wait_for", {"text": step.name}, "Waiting for the page.")
            if not step.optional:
                self.lost.append(describe_step(step))
                return ScriptedTurn(text=f"I cannot find {describe_step(step)} on this page.")
            self.index += 1
        self._last_step = None
        return _call(
            "complete_task",
            {"status": "success", "reason": "The intended path is done."},
            "Done.",
        )

    def _next_is_dialog(self) -> bool:
        return self.index < len(self.steps) and self.steps[self.index].action == "dialog"

    def _turn_for(
        self,
        step: PlaybookStep,
        elements: list[PageElement],
        dialog_open: bool,
        request: ModelRequest,
    ) -> ScriptedTurn | None:
        if step.action == "dialog":
            if not dialog_open:
                return None
            return _call("browser_handle_dialog", {"accept": step.accept is not False})
        if step.action == "navigate":
            # As a model would: a path is relative to the page it is on.
            return _call("browser_navigate", {"url": urljoin(_page_url(request), step.url or "")})
        if step.action == "press":
            return _call("browser_press_key", {"key": step.key})
        if step.action == "wait":
            return _call("browser_wait_for", {"time": step.seconds})
        candidates = step_targets(step, elements)
        if not candidates:
            return None
        target = candidates[0]
        tool, arguments = element_step_call(step, target.ref)
        # Playwright's own schemas ask for a description of the element; ours do not,
        # and a model follows the schema it is offered.
        if "element" in request.tool_arguments(tool):
            arguments["element"] = f"{target.role} {target.name}"
        return _call(tool, arguments)


def _page_url(request: ModelRequest) -> str:
    """The URL of the newest page the model was shown ("" before the first page)."""
    found = _PAGE_URL.findall(request.latest_text)
    return found[-1] if found else ""


def _call(name: str, arguments: dict[str, Any], text: str = "") -> ScriptedTurn:
    return ScriptedTurn(text=text, tool_calls=[(name, arguments)])
