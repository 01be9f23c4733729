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
from subterminator_tui.pilots.compact_lines import (
    INTERACTIVE_ROLES,
    PERIPHERAL_ROLES,
    TEXT_CONTEXT_CHARS,
    TEXT_ROLES,
    CompactLine,
    bounded,
    describe_node,
    importance_of,
)
from subterminator_tui.pilots.landmarks import fold_repeated_landmarks
from subterminator_tui.pilots.long_runs import RUN_LIMIT, end_of_run, parent_ref, shorten_run

_CONTAINER_ROLES = frozenset({"dialog", "alertdialog", "alert", "form", "iframe", "status"})
_NAMED_WRAPPERS = frozenset({"generic", "group", "region"})
_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})
#: The default budget of a compact tree, in estimated tokens.
DEFAULT_BUDGET = 350


def estimate_tokens(text: str) -> int:
    """A rough token count (four characters a token), used for budgets and reports."""
    return (len(text) + 3) // 4


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


def _render(lines: list[CompactLine]) -> str:
    return "\n".join("  " * line.depth + "- " + line.text for line in lines)


def _collapse(lines: list[CompactLine], drop_from: int) -> list[CompactLine]:
    """Each stretch of lines of ``drop_from`` or less importance becomes one counting line."""
    result: list[CompactLine] = []
    stretch: list[CompactLine] = []

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
            CompactLine(
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


def _select(elements: tuple[SnapshotElement, ...]) -> list[CompactLine]:
    lines: list[CompactLine] = []
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
        run_end, siblings = end_of_run(elements, index)
        if siblings > RUN_LIMIT and peripheral is None and not in_dialog:
            holder = parent_ref(elements, index)
            lines.extend(shorten_run(elements[index:run_end], out_depth, holder))
            index = run_end
            continue
        if element.role in PERIPHERAL_ROLES and not in_dialog:
            label = (
                f"{element.role} '{bounded(element.name, 40)}'" if element.name else element.role
            )
            ref = element.ref or ""
            lines.append(CompactLine(out_depth, label, 2, element.role, ref=ref, label=label))
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
            lines.append(CompactLine(out_depth, describe_node(element), priority, element.role))
            stack.append((element.depth, out_depth, peripheral, in_dialog or opens_dialog))
        elif element.role in INTERACTIVE_ROLES and element.ref:
            importance = importance_of(element, in_dialog)
            if peripheral is not None and importance > 1:
                summaries[peripheral].append(element.role)
            else:
                lines.append(
                    CompactLine(out_depth, describe_node(element), importance, element.role)
                )
            stack.append((element.depth, out_depth, peripheral, in_dialog))
        elif (
            element.role in _NAMED_WRAPPERS and element.name and element.ref and peripheral is None
        ):
            # A named generic is how Playwright shows a <summary> (an accordion's
            # header): clickable, and often the way to a buried cancel button.
            priority = min(2, importance_of(element, in_dialog))
            lines.append(CompactLine(out_depth, describe_node(element), priority, "section"))
            stack.append((element.depth, out_depth, peripheral, in_dialog))
        elif element.role == "option" and peripheral is None:
            # A dropdown's choices, so browser_select_option has values to pick.
            lines.append(
                CompactLine(out_depth, describe_node(element), 0 if in_dialog else 2, "option")
            )
        elif element.role in TEXT_ROLES and (element.text or element.name) and peripheral is None:
            text = bounded(element.text or element.name, TEXT_CONTEXT_CHARS)
            # A label's text repeats the control it labels: say it once.
            if not any(f'"{text}"' in line.text for line in lines[-2:]):
                lines.append(CompactLine(out_depth, f"text: {text}", 1 if in_dialog else 3, "text"))
        index += 1
    return _with_summaries(lines, summaries)


def _with_summaries(lines: list[CompactLine], summaries: dict[int, list[str]]) -> list[CompactLine]:
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
            result[position] = CompactLine(
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
