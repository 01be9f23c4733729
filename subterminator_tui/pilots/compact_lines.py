"""One element as one line of the compact tree: its words, their bounds, and how much it matters."""

from __future__ import annotations

from dataclasses import dataclass

from subterminator_tui.browser.snapshot import SnapshotElement
from subterminator_tui.pilots.control_words import ESSENTIAL_WORDS, FORM_ROLES, KEYWORDS

INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "tab",
        "switch",
        "slider",
        "spinbutton",
        "treeitem",
    }
)
#: Navigation, footers and side panels: summarized, not listed.
PERIPHERAL_ROLES = frozenset({"navigation", "contentinfo", "complementary", "banner"})
TEXT_ROLES = frozenset({"text", "paragraph", "cell", "listitem", "strong", "emphasis", "status"})
_STATE_ORDER = ("checked", "disabled", "expanded", "selected", "pressed", "required")
TEXT_CONTEXT_CHARS = 90
#: Bounds of single texts: an accessible name, a field's value, a link target.
NAME_CHARS = 100
VALUE_CHARS = 60
URL_CHARS = 100


@dataclass(frozen=True)
class CompactLine:
    """A line of the compact tree (landmarks.py folds what a page repeats with them)."""

    depth: int
    text: str
    #: 0 = never dropped (controls that matter, dialogs), higher = dropped earlier.
    priority: int
    #: What the line stands for, counted when it is left out ("link", "text", ...).
    kind: str = "element"
    #: For a line that already counts left-out lines: what it counts.
    counts: tuple[tuple[str, int], ...] = ()
    #: A landmark's ref and its own words (``navigation 'Footer'``), for its summary.
    ref: str = ""
    label: str = ""


def bounded(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def importance_of(element: SnapshotElement, in_dialog: bool) -> int:
    """0 for what is never left out, 1 for what likely matters, 2 for the other controls."""
    if (
        in_dialog
        or element.role in FORM_ROLES
        or "active" in element.states
        or ESSENTIAL_WORDS.search(element.label)
    ):
        return 0
    return 1 if KEYWORDS.search(element.label) else 2


def describe_element(element: SnapshotElement) -> str:
    """One element as a compact line shows it: role, name, state, ref, value, link target."""
    if element.role in TEXT_ROLES and not element.name and element.text:
        return f"text: {bounded(element.text, NAME_CHARS)}"
    return describe_node(element)


def describe_node(element: SnapshotElement) -> str:
    """Role, name, states, ref, a field's value and a link's target, on one line."""
    parts = [element.role]
    if element.label:
        parts.append(f'"{bounded(element.label, NAME_CHARS)}"')
    if element.level:
        parts.append(f"[level={element.level}]")
    for state in _STATE_ORDER:
        if state in element.states:
            parts.append(f"[{state}]")
    # A heading is read, not acted on: its ref would only cost tokens on every page.
    if element.ref and element.role != "heading":
        parts.append(f"[ref={element.ref}]")
    if element.name and element.text and element.role in ("textbox", "searchbox", "combobox"):
        parts.append(f'value="{bounded(element.text, VALUE_CHARS)}"')
    if element.role == "link" and element.url and element.url.startswith(("http://", "https://")):
        parts.append(f"[url={bounded(element.url, URL_CHARS)}]")
    return " ".join(parts)
