"""Long runs of similar siblings (device lists, billing history) shortened to the rows that
matter, a sample, and a count of the rest."""

from __future__ import annotations

from collections import Counter

from subterminator_tui.browser.snapshot import SnapshotElement
from subterminator_tui.pilots.compact_lines import (
    INTERACTIVE_ROLES,
    PERIPHERAL_ROLES,
    CompactLine,
    bounded,
    describe_node,
    importance_of,
)
from subterminator_tui.pilots.control_words import CANCEL_WORDS, FORM_ROLES, KEYWORDS

#: Runs of similar siblings longer than this are shortened.
RUN_LIMIT = 6
RUN_KEEP = 3


def end_of_run(elements: tuple[SnapshotElement, ...], start: int) -> tuple[int, int]:
    """(end, sibling count) of the run of siblings shaped like ``elements[start]``.

    Siblings are same-depth elements with the same role; each brings its
    descendants along.
    """
    first = elements[start]
    if first.role == "heading" or first.role in PERIPHERAL_ROLES:
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


def parent_ref(elements: tuple[SnapshotElement, ...], index: int) -> str:
    """The ref of the element holding ``elements[index]`` ("" when none)."""
    depth = elements[index].depth
    for position in range(index - 1, -1, -1):
        if elements[position].depth < depth:
            return elements[position].ref or ""
    return ""


def shorten_run(
    run: tuple[SnapshotElement, ...], depth: int, parent_ref: str = ""
) -> list[CompactLine]:
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

    kept: list[CompactLine] = []
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
            line = describe_node(element)
            if labels[element.label] > 1:
                # Ten "Cancel subscription" buttons are told apart by their row.
                line += _row_context(item)
            importance = importance_of(element, in_dialog=False)
            priority = min(importance, 1) if matters(element) else max(importance, 2)
            if element.role in FORM_ROLES:
                priority = 0
            kind = element.role if element.role in INTERACTIVE_ROLES else "text"
            kept.append(CompactLine(depth, line, priority, kind))
    if hidden:
        role = run[0].role
        where = f" (in ref {parent_ref})" if parent_ref else ""
        summary = f"... {hidden} more {role} items not shown{where}"
        kept.append(CompactLine(depth, summary, 2, role, ((role, hidden),)))
    return kept


def _row_context(item: list[SnapshotElement]) -> str:
    """The first words of a row's own text, to tell its control from its neighbours'."""
    for element in item:
        if element.role not in INTERACTIVE_ROLES and (element.text or element.name):
            return f" (in: {bounded(element.text or element.name, 60)})"
    return ""


def _keywords(label: str) -> frozenset[str]:
    """The keywords in ``label``, lower-cased (empty when none)."""
    return frozenset(match.casefold() for match in KEYWORDS.findall(label))
