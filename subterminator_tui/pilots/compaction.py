"""Compact snapshots: what a model needs from a page, in a few hundred tokens.

Real account pages send 50-540 KB accessibility trees; a model needs the
controls it can act on, the headings and text that say where it is, and any
dialog. The rules here, in order:

1. Structure-only nodes (generic containers, lists, decoration) are dropped;
   their children move up.
2. Interactive elements keep their ref and state; headings keep their level;
   text keeps its first words as context.
3. Navigation, footers and side panels are summarized ("navigation 'Main':
   214 links") except for the controls whose names matter to a cancellation
   (account, membership, cancel, billing, settings, ...), which stay.
4. Long runs of similar siblings (device lists, billing history) keep their
   first few items and the ones that matter, then "... N more". A keyword
   most rows repeat ("Sign out device 1", "Sign out device 2", ...) does not
   make a row matter, except a cancelling word: in a list of subscriptions
   every "Cancel" stays, with its row's first words to tell them apart.
   Inside navigation and footers a run is only counted.
5. When the result is still over budget, context text goes first, then
   unimportant links, so controls survive longest.

Nothing is guessed: every kept line is an element of the real snapshot with
its real ref, so a ref the model picks is checked by the guard as before.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement

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
_CONTAINER_ROLES = frozenset({"dialog", "alertdialog", "alert", "form", "iframe", "status"})
_TEXT_ROLES = frozenset({"text", "paragraph", "cell", "listitem", "strong", "emphasis", "status"})
_PERIPHERAL = frozenset({"navigation", "contentinfo", "complementary", "banner"})
_NAMED_WRAPPERS = frozenset({"generic", "group", "region"})
#: Words that make a control matter wherever it is on the page.
KEYWORDS = re.compile(
    r"cancel|membership|subscription|account|billing|plan|settings|manage|end |unsubscribe|"
    r"close account|stop|pause|continue|confirm|finish|decline|no thanks|keep|reject|accept|"
    r"cookie|more options|menu|offer|survey|reason|sign|log ?in|password|code|verify",
    re.IGNORECASE,
)
#: Words that make a control matter even when many rows repeat them.
CANCEL_WORDS = re.compile(r"cancel|unsubscribe|end (?:my )?membership|close account", re.I)
_STATE_ORDER = ("checked", "disabled", "expanded", "selected", "pressed", "required")
#: Runs of similar siblings longer than this are shortened.
RUN_LIMIT = 6
RUN_KEEP = 3
TEXT_CONTEXT_CHARS = 90


def estimate_tokens(text: str) -> int:
    """A rough token count (four characters a token), used for budgets and reports."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class _Line:
    depth: int
    text: str
    #: 0 = never dropped (controls that matter, dialogs), higher = dropped earlier.
    priority: int


def compact_snapshot(snapshot: NormalizedSnapshot, budget_tokens: int = 600) -> str:
    """The page's elements that matter, one per line, within ``budget_tokens`` where possible."""
    lines = _select(snapshot.elements)
    for drop_from in (3, 2):
        if estimate_tokens(_render(lines)) <= budget_tokens:
            break
        lines = [line for line in lines if line.priority < drop_from]
    return _render(lines)


def _render(lines: list[_Line]) -> str:
    return "\n".join("  " * line.depth + "- " + line.text for line in lines)


def _select(elements: tuple[SnapshotElement, ...]) -> list[_Line]:
    lines: list[_Line] = []
    # The chain of kept ancestors: (element depth, output depth, the line of the
    # innermost peripheral landmark they sit in, or None). Each entry inherits its
    # parent's landmark unless it is one, so the top of the stack always knows.
    stack: list[tuple[int, int, int | None]] = []
    summaries: dict[int, list[str]] = {}
    index = 0
    while index < len(elements):
        element = elements[index]
        while stack and stack[-1][0] >= element.depth:
            stack.pop()
        out_depth = stack[-1][1] + 1 if stack else 0
        peripheral = stack[-1][2] if stack else None
        run_end, siblings = _run_end(elements, index)
        if siblings > RUN_LIMIT and peripheral is None:
            lines.extend(_shorten_run(elements[index:run_end], out_depth))
            index = run_end
            continue
        if element.role in _PERIPHERAL:
            label = f"{element.role} '{element.name}'" if element.name else element.role
            lines.append(_Line(out_depth, label, 2))
            summaries[len(lines) - 1] = []
            stack.append((element.depth, out_depth, len(lines) - 1))
        elif element.role in _CONTAINER_ROLES or element.role == "heading":
            lines.append(_Line(out_depth, _describe(element), 0))
            stack.append((element.depth, out_depth, peripheral))
        elif element.role in INTERACTIVE_ROLES and element.ref:
            matters = bool(KEYWORDS.search(element.label))
            if peripheral is not None and not matters:
                summaries[peripheral].append(element.role)
            else:
                priority = 0 if matters or peripheral is None else 1
                lines.append(_Line(out_depth, _describe(element), priority if matters else 1))
            stack.append((element.depth, out_depth, peripheral))
        elif (
            element.role in _NAMED_WRAPPERS and element.name and element.ref and peripheral is None
        ):
            # A named generic is how Playwright shows a <summary> (an accordion's
            # header): clickable, and often the way to a buried cancel button.
            lines.append(_Line(out_depth, _describe(element), 1))
            stack.append((element.depth, out_depth, peripheral))
        elif element.role == "option" and peripheral is None:
            # A dropdown's choices, so browser_select_option has values to pick.
            lines.append(_Line(out_depth, _describe(element), 1))
        elif element.role in _TEXT_ROLES and (element.text or element.name) and peripheral is None:
            text = (element.text or element.name)[:TEXT_CONTEXT_CHARS]
            # A label's text repeats the control it labels: say it once.
            if not any(f'"{text}"' in line.text for line in lines[-2:]):
                lines.append(_Line(out_depth, f"text: {text}", 3))
        index += 1
    return _with_summaries(lines, summaries)


def _with_summaries(lines: list[_Line], summaries: dict[int, list[str]]) -> list[_Line]:
    result = list(lines)
    empty = {
        position
        for position, roles in summaries.items()
        if not roles
        and (position + 1 >= len(result) or result[position + 1].depth <= result[position].depth)
    }
    for position, roles in summaries.items():
        if roles:
            hidden = ", ".join(
                f"{n} {role}{'s' if n > 1 else ''}" for role, n in Counter(roles).items()
            )
            line = result[position]
            result[position] = _Line(line.depth, f"{line.text} ({hidden} not shown)", line.priority)
    # A landmark with nothing kept and nothing hidden says nothing.
    return [line for position, line in enumerate(result) if position not in empty]


def _run_end(elements: tuple[SnapshotElement, ...], start: int) -> tuple[int, int]:
    """(end, sibling count) of the run of siblings shaped like ``elements[start]``.

    Siblings are same-depth elements with the same role; each brings its
    descendants along.
    """
    first = elements[start]
    if first.role == "heading" or first.role in _PERIPHERAL:
        return start + 1, 1
    siblings = 1
    end = start + 1
    while end < len(elements) and elements[end].depth > first.depth:
        end += 1
    while end < len(elements):
        element = elements[end]
        if element.depth != first.depth or element.role != first.role:
            break
        siblings += 1
        end += 1
        while end < len(elements) and elements[end].depth > first.depth:
            end += 1
    return end, siblings


def _shorten_run(run: tuple[SnapshotElement, ...], depth: int) -> list[_Line]:
    """The first few items of a long run, the ones that matter, and a count of the rest."""
    top = run[0].depth
    items: list[list[SnapshotElement]] = []
    for element in run:
        if element.depth == top:
            items.append([element])
        else:
            items[-1].append(element)
    controls = [[e for e in item if e.role in INTERACTIVE_ROLES and e.ref] for item in items]
    # A word every row repeats ("Sign out device 1", "Sign out device 2", ...) says
    # nothing about which row matters; only a word few rows carry singles one out.
    # Cancelling words are the exception: in a list of subscriptions, each with its
    # own "Cancel", every row may be the one the person means.
    frequency = Counter(
        words for row in controls for words in {_keywords(e.label) for e in row} - {frozenset()}
    )
    labels = Counter(element.label for row in controls for element in row)

    def matters(element: SnapshotElement) -> bool:
        if CANCEL_WORDS.search(element.label):
            return True
        words = _keywords(element.label)
        return bool(words) and frequency[words] <= RUN_KEEP

    kept: list[_Line] = []
    hidden = 0
    for position, item in enumerate(items):
        if position >= RUN_KEEP and not any(matters(e) for e in controls[position]):
            hidden += 1
            continue
        shown = controls[position] or [e for e in item if e.label][:1]
        for element in shown[:3]:
            line = _describe(element)
            if labels[element.label] > 1:
                # Ten "Cancel subscription" buttons are told apart by their row.
                line += _row_context(item)
            kept.append(_Line(depth, line, 0 if matters(element) else 2))
    if hidden:
        kept.append(_Line(depth, f"... {hidden} more {run[0].role} items not shown", 2))
    return kept


def _row_context(item: list[SnapshotElement]) -> str:
    """The first words of a row's own text, to tell its control from its neighbours'."""
    for element in item:
        if element.role not in INTERACTIVE_ROLES and (element.text or element.name):
            return f" (in: {(element.text or element.name)[:60]})"
    return ""


def _keywords(label: str) -> frozenset[str]:
    """The keywords in ``label``, lower-cased (empty when none)."""
    return frozenset(match.casefold() for match in KEYWORDS.findall(label))


def _describe(element: SnapshotElement) -> str:
    parts = [element.role]
    if element.label:
        parts.append(f'"{element.label[:120]}"')
    if element.level:
        parts.append(f"[level={element.level}]")
    for state in _STATE_ORDER:
        if state in element.states:
            parts.append(f"[{state}]")
    if element.ref:
        parts.append(f"[ref={element.ref}]")
    if element.name and element.text and element.role in ("textbox", "searchbox", "combobox"):
        parts.append(f'value="{element.text[:60]}"')
    if element.role == "link" and element.url and element.url.startswith(("http://", "https://")):
        parts.append(f"[url={element.url}]")
    return " ".join(parts)
