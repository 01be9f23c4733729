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
   unimportant controls, then minor headings: each stretch left out becomes
   one line that counts what it held ("... 40 texts, 12 links not shown"),
   so the model knows the page has more and the full tree still has it.
6. Some things are never left out, whatever the budget: a control whose name
   is about the account, a subscription, membership, plan, billing, payment,
   cancelling, signing in or settings (in English, German, French, Spanish,
   Italian, Dutch and Portuguese), every form field, everything inside a
   dialog, and the focused element.
7. Every single text is cut to a bound (names, values, text, link targets), so
   no one element, however long, can blow up the model's input.

Nothing is guessed: every kept line is an element of the real snapshot with
its real ref, so a ref the model picks is checked by the guard as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.pilots.control_words import (
    CANCEL_WORDS,
    ESSENTIAL_WORDS,
    FORM_ROLES,
    KEYWORDS,
)
from subterminator_tui.pilots.landmarks import fold_repeated_landmarks

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
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
_STATE_ORDER = ("checked", "disabled", "expanded", "selected", "pressed", "required")
#: Runs of similar siblings longer than this are shortened.
RUN_LIMIT = 6
RUN_KEEP = 3
TEXT_CONTEXT_CHARS = 90
#: Bounds of single texts: an accessible name, a field's value, a link target.
NAME_CHARS = 100
VALUE_CHARS = 60
URL_CHARS = 100
#: The default budget of a compact tree, in estimated tokens.
DEFAULT_BUDGET = 350


def estimate_tokens(text: str) -> int:
    """A rough token count (four characters a token), used for budgets and reports."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class _Line:
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


#: A line of the compact tree, for the passes that fold what a page repeats (landmarks.py).
CompactLine = _Line


def compact_snapshot(snapshot: NormalizedSnapshot, budget_tokens: int = DEFAULT_BUDGET) -> str:
    """The page's elements that matter, one per line, within ``budget_tokens`` where possible."""
    return compact_page(snapshot, budget_tokens).text


@dataclass(frozen=True)
class CompactPage:
    """A compact tree, and what its landmarks held (to fold them on the next page)."""

    text: str
    landmarks: frozenset[str]


def compact_page(
    snapshot: NormalizedSnapshot,
    budget_tokens: int = DEFAULT_BUDGET,
    seen_landmarks: Collection[str] = (),
) -> CompactPage:
    """The compact tree; a landmark that holds the same as one of ``seen_landmarks`` (the
    last page's) and nothing that is always kept is one line, its ref opening it."""
    lines, landmarks = fold_repeated_landmarks(_select(snapshot.elements), seen_landmarks)
    for drop_from in (3, 2, 1):
        if estimate_tokens(_render(lines)) <= budget_tokens:
            break
        lines = _collapse(lines, drop_from)
    return CompactPage(_render(lines), landmarks)


def _render(lines: list[_Line]) -> str:
    return "\n".join("  " * line.depth + "- " + line.text for line in lines)


def _collapse(lines: list[_Line], drop_from: int) -> list[_Line]:
    """Each stretch of lines of ``drop_from`` or less importance becomes one counting line."""
    result: list[_Line] = []
    stretch: list[_Line] = []

    def close() -> None:
        if not stretch:
            return
        counts: Counter[str] = Counter()
        for line in stretch:
            if line.counts:
                counts.update(dict(line.counts))
            else:
                counts[line.kind] += 1
        summary = ", ".join(f"{n} {_plural(kind, n)}" for kind, n in counts.most_common())
        depth = min(line.depth for line in stretch)
        result.append(
            _Line(
                depth, f"... {summary} not shown", drop_from - 1, "summary", tuple(counts.items())
            )
        )
        stretch.clear()

    for line in lines:
        if line.priority >= drop_from:
            stretch.append(line)
        else:
            close()
            result.append(line)
    close()
    return result


def _plural(kind: str, count: int) -> str:
    return kind if count == 1 or kind.endswith("s") else kind + "s"


def _importance(element: SnapshotElement, in_dialog: bool) -> int:
    """0 for what is never left out, 1 for what likely matters, 2 for the other controls."""
    if (
        in_dialog
        or element.role in FORM_ROLES
        or "active" in element.states
        or ESSENTIAL_WORDS.search(element.label)
    ):
        return 0
    return 1 if KEYWORDS.search(element.label) else 2


def _select(elements: tuple[SnapshotElement, ...]) -> list[_Line]:
    lines: list[_Line] = []
    # The chain of kept ancestors: (element depth, output depth, the line of the
    # innermost peripheral landmark they sit in or None, inside a dialog). Each entry
    # inherits its parent's landmark and dialog, so the top of the stack always knows.
    stack: list[tuple[int, int, int | None, bool]] = []
    summaries: dict[int, list[str]] = {}
    index = 0
    while index < len(elements):
        element = elements[index]
        while stack and stack[-1][0] >= element.depth:
            stack.pop()
        out_depth = stack[-1][1] + 1 if stack else 0
        peripheral = stack[-1][2] if stack else None
        in_dialog = stack[-1][3] if stack else False
        run_end, siblings = _run_end(elements, index)
        if siblings > RUN_LIMIT and peripheral is None and not in_dialog:
            holder = _parent_ref(elements, index)
            lines.extend(_shorten_run(elements[index:run_end], out_depth, holder))
            index = run_end
            continue
        if element.role in _PERIPHERAL and not in_dialog:
            label = (
                f"{element.role} '{_bounded(element.name, 40)}'" if element.name else element.role
            )
            ref = element.ref or ""
            lines.append(_Line(out_depth, label, 2, element.role, ref=ref, label=label))
            summaries[len(lines) - 1] = []
            stack.append((element.depth, out_depth, len(lines) - 1, in_dialog))
        elif element.role in _CONTAINER_ROLES or element.role == "heading":
            opens_dialog = element.role in _DIALOG_ROLES
            if opens_dialog or in_dialog:
                priority = 0
            elif element.role == "heading":
                priority = 1 if (element.level or 1) <= 2 else 2
            else:
                priority = 1
            lines.append(_Line(out_depth, _describe(element), priority, element.role))
            stack.append((element.depth, out_depth, peripheral, in_dialog or opens_dialog))
        elif element.role in INTERACTIVE_ROLES and element.ref:
            importance = _importance(element, in_dialog)
            if peripheral is not None and importance > 1:
                summaries[peripheral].append(element.role)
            else:
                lines.append(_Line(out_depth, _describe(element), importance, element.role))
            stack.append((element.depth, out_depth, peripheral, in_dialog))
        elif (
            element.role in _NAMED_WRAPPERS and element.name and element.ref and peripheral is None
        ):
            # A named generic is how Playwright shows a <summary> (an accordion's
            # header): clickable, and often the way to a buried cancel button.
            priority = min(2, _importance(element, in_dialog))
            lines.append(_Line(out_depth, _describe(element), priority, "section"))
            stack.append((element.depth, out_depth, peripheral, in_dialog))
        elif element.role == "option" and peripheral is None:
            # A dropdown's choices, so browser_select_option has values to pick.
            lines.append(_Line(out_depth, _describe(element), 0 if in_dialog else 2, "option"))
        elif element.role in _TEXT_ROLES and (element.text or element.name) and peripheral is None:
            text = _bounded(element.text or element.name, TEXT_CONTEXT_CHARS)
            # A label's text repeats the control it labels: say it once.
            if not any(f'"{text}"' in line.text for line in lines[-2:]):
                lines.append(_Line(out_depth, f"text: {text}", 1 if in_dialog else 3, "text"))
        index += 1
    return _with_summaries(lines, summaries)


def _bounded(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


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
            # The landmark's ref opens what it left out (show_region).
            ref = f" [ref={line.ref}]" if line.ref else ""
            result[position] = _Line(
                line.depth,
                f"{line.text}{ref} ({hidden} not shown)",
                line.priority,
                line.kind,
                tuple(Counter([line.kind, *roles]).items()),
                line.ref,
                line.label,
            )
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


def _parent_ref(elements: tuple[SnapshotElement, ...], index: int) -> str:
    """The ref of the element holding ``elements[index]`` ("" when none)."""
    depth = elements[index].depth
    for position in range(index - 1, -1, -1):
        if elements[position].depth < depth:
            return elements[position].ref or ""
    return ""


def _shorten_run(run: tuple[SnapshotElement, ...], depth: int, parent_ref: str = "") -> list[_Line]:
    """The first few items of a long run, the ones that matter, and a count of the rest
    (with the ref of what holds them, which the pilot's show_region opens)."""
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
        if element.role in FORM_ROLES or CANCEL_WORDS.search(element.label):
            return True
        words = _keywords(element.label)
        return bool(words) and frequency[words] <= RUN_KEEP

    kept: list[_Line] = []
    hidden = 0
    for position, item in enumerate(items):
        if position >= RUN_KEEP and not any(matters(e) for e in controls[position]):
            hidden += 1
            continue
        # Every control that matters, wherever it sits in the row; in the first rows,
        # up to three others as a sample of what the run holds.
        sample = (
            [e for e in controls[position] if not matters(e)][:3] if position < RUN_KEEP else []
        )
        shown = [e for e in controls[position] if matters(e) or e in sample]
        for element in shown or [e for e in item if e.label][:1]:
            line = _describe(element)
            if labels[element.label] > 1:
                # Ten "Cancel subscription" buttons are told apart by their row.
                line += _row_context(item)
            importance = _importance(element, in_dialog=False)
            priority = min(importance, 1) if matters(element) else max(importance, 2)
            if element.role in FORM_ROLES:
                priority = 0
            kind = element.role if element.role in INTERACTIVE_ROLES else "text"
            kept.append(_Line(depth, line, priority, kind))
    if hidden:
        role = run[0].role
        where = f" (in ref {parent_ref})" if parent_ref else ""
        summary = f"... {hidden} more {role} items not shown{where}"
        kept.append(_Line(depth, summary, 2, role, ((role, hidden),)))
    return kept


def _row_context(item: list[SnapshotElement]) -> str:
    """The first words of a row's own text, to tell its control from its neighbours'."""
    for element in item:
        if element.role not in INTERACTIVE_ROLES and (element.text or element.name):
            return f" (in: {_bounded(element.text or element.name, 60)})"
    return ""


def _keywords(label: str) -> frozenset[str]:
    """The keywords in ``label``, lower-cased (empty when none)."""
    return frozenset(match.casefold() for match in KEYWORDS.findall(label))


def describe_element(element: SnapshotElement) -> str:
    """One element as a compact line shows it: role, name, state, ref, value, link target."""
    if element.role in _TEXT_ROLES and not element.name and element.text:
        return f"text: {_bounded(element.text, NAME_CHARS)}"
    return _describe(element)


def _describe(element: SnapshotElement) -> str:
    parts = [element.role]
    if element.label:
        parts.append(f'"{_bounded(element.label, NAME_CHARS)}"')
    if element.level:
        parts.append(f"[level={element.level}]")
    for state in _STATE_ORDER:
        if state in element.states:
            parts.append(f"[{state}]")
    # A heading is read, not acted on: its ref would only cost tokens on every page.
    if element.ref and element.role != "heading":
        parts.append(f"[ref={element.ref}]")
    if element.name and element.text and element.role in ("textbox", "searchbox", "combobox"):
        parts.append(f'value="{_bounded(element.text, VALUE_CHARS)}"')
    if element.role == "link" and element.url and element.url.startswith(("http://", "https://")):
        parts.append(f"[url={_bounded(element.url, URL_CHARS)}]")
    return " ".join(parts)
