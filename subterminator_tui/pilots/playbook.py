"""The playbook pilot: replays a service's recorded steps against the live page, no model.

Each step is matched by role and accessible name against the latest
snapshot, so the call goes through the same guard, checkpoints and
verification as a model's. A step that is not on the page (and is not
optional) ends the playbook: the auto pilot then hands over to the AI.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, Protocol, TypeVar
from urllib.parse import urljoin

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.pilots.base import PilotTurn
from subterminator_tui.pilots.virtual_tools import COMPLETE_TASK
from subterminator_tui.rules import PlaybookStep, ServiceConfig, verify_completion


def describe_step(step: PlaybookStep) -> str:
    """A step in words, e.g. ``click button 'Finish cancellation'``."""
    target = step.name or (step.name_regex.pattern if step.name_regex else "")
    role = f"{step.role} " if step.role else ""
    detail = step.key or step.url or (f"{step.seconds} s" if step.seconds else "")
    if step.action == "dialog":
        detail = "accept" if step.accept in (None, True) else "dismiss"
    what = f"{role}'{target}'" if target else detail
    return f"{step.action} {what}".strip()


class Labelled(Protocol):
    """Anything with a role and an accessible name: a snapshot element, a line of page text."""

    @property
    def role(self) -> str:
        """The ARIA role."""
        ...

    @property
    def label(self) -> str:
        """The accessible name."""
        ...


LabelledT = TypeVar("LabelledT", bound=Labelled)


def step_targets(step: PlaybookStep, elements: Iterable[LabelledT]) -> list[LabelledT]:
    """The elements a step could act on, by role and name; an exact name match comes first."""
    candidates = [e for e in elements if not step.role or e.role == step.role]
    if step.name_regex is not None:
        pattern = step.name_regex
        return [e for e in candidates if pattern.search(e.label)]
    wanted = (step.name or "").casefold()
    found = [e for e in candidates if wanted in e.label.casefold()]
    return sorted(found, key=lambda e: e.label.casefold() != wanted)


def matching_elements(step: PlaybookStep, snapshot: NormalizedSnapshot) -> list[SnapshotElement]:
    """Elements on the page the step could act on; an exact name match comes first."""
    return step_targets(step, (e for e in snapshot.elements if e.ref))


#: The browser tool each step that acts on an element becomes.
ELEMENT_STEP_TOOLS = {
    "click": "browser_click",
    "type": "browser_type",
    "select": "browser_select_option",
}


def element_step_call(step: PlaybookStep, ref: str) -> tuple[str, dict[str, Any]]:
    """The tool and arguments of a click, type or select step on the element ``ref``.

    The element's description is left to the caller: the playbook pilot always
    sends it, the scripted model only when the offered schema asks for it.
    """
    arguments: dict[str, Any] = {"target": ref}
    if step.action == "type":
        arguments["text"] = step.text
    elif step.action == "select":
        arguments["values"] = [step.value]
    return ELEMENT_STEP_TOOLS[step.action], arguments


class PlaybookPilot:
    """Replays ``service.playbook``."""

    name = "playbook"
    model_name: str | None = None

    def __init__(self, service: ServiceConfig, start_url: str) -> None:
        self.service = service
        self.start_url = start_url
        self.steps = list(service.playbook)
        self.index = 0
        self.diverged: str | None = None
        self._ids = itertools.count(1)
        #: The id of the one wait for a missing step's target (a page still drawing itself).
        self._waiting: tuple[int, str] | None = None

    def begin(self, snapshot: NormalizedSnapshot) -> None:
        """Nothing to prepare: the steps are the plan."""

    async def next_turn(self, snapshot: NormalizedSnapshot) -> PilotTurn:
        """The next step that fits the page, or complete_task when the rules confirm success."""
        if self.diverged:
            return PilotTurn(None, stop=self.diverged)
        if verify_completion(self.service, snapshot).verified:
            return self._complete("The page confirms the cancellation.")
        while self.index < len(self.steps):
            step = self.steps[self.index]
            call = self._call_for(step, snapshot)
            if call is not None:
                self.index += 1
                return PilotTurn(call, step.why or describe_step(step))
            if not step.optional:
                if step.name and step.action in ELEMENT_STEP_TOOLS and not self._waited(self.index):
                    # A page that draws itself after it loads (a single-page app) gets one
                    # wait for the target's text; a page without it at all ends the playbook.
                    wait = ToolCall(self._next_id(), "browser_wait_for", {"text": step.name})
                    self._waiting = (self.index, wait.id)
                    return PilotTurn(wait, f"wait for {describe_step(step)} to appear")
                self.diverged = (
                    f"step {self.index + 1} ({describe_step(step)}) is not on {snapshot.url}"
                )
                return PilotTurn(None, stop=self.diverged)
            self.index += 1
        return self._complete("Every playbook step is done.")

    def observe(
        self, call: ToolCall, status: dict[str, Any], snapshot: NormalizedSnapshot | None
    ) -> None:
        """A failed step, or an unverified finish, ends the playbook."""
        if self._waiting is not None and call.id == self._waiting[1]:
            return  # the wait timed out or not: the next look at the page decides
        if status.get("error") and not self.diverged:
            message = status.get("message", "it failed")
            self.diverged = f"step {self.index} ({call.name}) failed: {message}"

    def nudge(self, text: str) -> None:
        """A playbook always proposes a call or stops; nothing to nudge."""

    async def aclose(self) -> None:
        """Nothing to release."""

    def _waited(self, index: int) -> bool:
        return self._waiting is not None and self._waiting[0] == index

    def _complete(self, reason: str) -> PilotTurn:
        arguments = {"status": "success", "reason": reason}
        return PilotTurn(ToolCall(self._next_id(), COMPLETE_TASK, arguments), reason)

    def _next_id(self) -> str:
        return f"playbook-{next(self._ids)}"

    def _call_for(self, step: PlaybookStep, snapshot: NormalizedSnapshot) -> ToolCall | None:
        if step.action == "dialog":
            # Only when a dialog is really open; otherwise the step is "not on the page".
            if "Modal state" not in snapshot.notes:
                return None
            accept = True if step.accept is None else step.accept
            return ToolCall(self._next_id(), "browser_handle_dialog", {"accept": accept})
        if step.action == "navigate":
            url = urljoin(self.start_url, step.url or "")
            return ToolCall(self._next_id(), "browser_navigate", {"url": url})
        if step.action == "press":
            return ToolCall(self._next_id(), "browser_press_key", {"key": step.key})
        if step.action == "wait":
            return ToolCall(self._next_id(), "browser_wait_for", {"time": step.seconds})
        target = next(iter(matching_elements(step, snapshot)), None)
        if target is None or target.ref is None:
            return None
        tool, arguments = element_step_call(step, target.ref)
        return ToolCall(self._next_id(), tool, {**arguments, "element": target.describe()})
