"""The guard: rules, not the pilot, decide what may reach the browser (seed 001 FR6).

Before each dispatch a call must be on the offered tool list, every ref it
targets must exist in the latest snapshot (a stale ref would click whatever
now carries it), navigation must stay inside the service's domains, and the
service's checkpoint rules decide whether the human is asked first.
"""

from __future__ import annotations

from dataclasses import dataclass

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.browser.tools import ALLOWED_TOOLS
from subterminator_tui.rules import CheckpointRule, ServiceConfig, checkpoint_for, domain_allowed
from subterminator_tui.rules.matching import target_elements

# Tools whose arguments carry a URL the browser would open.
_URL_ARGUMENTS = {"browser_navigate": "url", "browser_tabs": "url"}


@dataclass(frozen=True)
class Refusal:
    """Why a call may not be dispatched; reported to the pilot as an error result."""

    message: str


class Guard:
    """Judges pending calls and fresh pages for one service."""

    def __init__(
        self,
        service: ServiceConfig,
        *,
        offered_tools: frozenset[str],
        checkpoints: bool = True,
    ) -> None:
        self.service = service
        self.offered_tools = offered_tools & ALLOWED_TOOLS
        self.checkpoints = checkpoints

    def refusal(self, call: ToolCall, snapshot: NormalizedSnapshot) -> Refusal | None:
        """A reason to refuse ``call`` outright, or None when it may go on."""
        if call.name not in self.offered_tools:
            offered = ", ".join(sorted(self.offered_tools))
            return Refusal(f"Tool '{call.name}' is not available. Use one of: {offered}.")
        stale = [ref for ref in call.target_refs() if snapshot.element_by_ref(ref) is None]
        if stale:
            return Refusal(
                f"Element ref {', '.join(stale)} is not on the current page (refs are valid for "
                "one snapshot). Nothing was clicked; pick a ref from the fresh page below."
            )
        key = _URL_ARGUMENTS.get(call.name)
        url = call.arguments.get(key) if key else None
        if isinstance(url, str) and not self.url_allowed(url):
            domains = ", ".join(self.service.allowed_domains)
            return Refusal(
                f"Navigation to {url} refused: {self.service.name} may only visit {domains}."
            )
        return None

    def checkpoint(self, call: ToolCall, snapshot: NormalizedSnapshot) -> CheckpointRule | None:
        """The checkpoint rule that asks the human before ``call``, when checkpoints are on."""
        if not self.checkpoints:
            return None
        return checkpoint_for(self.service.checkpoint, call, snapshot)

    def url_allowed(self, url: str) -> bool:
        """Whether the service may be at ``url``."""
        return domain_allowed(url, self.service.allowed_domains)

    @staticmethod
    def target_of(call: ToolCall, snapshot: NormalizedSnapshot) -> SnapshotElement | None:
        """The (first) element ``call`` acts on, from the snapshot, never the pilot's words."""
        found = target_elements(call, snapshot)
        return found[0] if found else None


def describe_action(call: ToolCall, target: SnapshotElement | None) -> str:
    """The pending action in words, from the real target: ``Click button 'Finish cancellation'``."""
    what = target.describe() if target else "the page"
    args = call.arguments
    if call.name == "browser_click":
        return f"Click {what}"
    if call.name == "browser_type":
        return f"Type into {what}"
    if call.name == "browser_select_option":
        return f"Choose {args.get('values')} in {what}"
    if call.name == "browser_press_key":
        return f"Press {args.get('key')}"
    if call.name == "browser_navigate":
        return f"Open {args.get('url')}"
    if call.name == "browser_handle_dialog":
        return "Accept the dialog" if args.get("accept") else "Dismiss the dialog"
    return f"{call.name} on {what}"
