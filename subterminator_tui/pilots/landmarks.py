"""Landmarks a page repeats from the last one become one line each.

A site's header, menu and footer come back on every page of a flow, unchanged but
for their refs; the model read them one page ago. When a landmark holds exactly what
it held on the last page and nothing that is always kept (no account, subscription,
cancel or sign-in control, no field, nothing in a dialog, not the focus), it is one
line with its ref and a count; ``show_region`` on that ref lists it in full.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from subterminator_tui.pilots.compact_lines import PERIPHERAL_ROLES as _PERIPHERAL

if TYPE_CHECKING:
    from subterminator_tui.pilots.compact_lines import CompactLine

_REF = re.compile(r" \[ref=[^\]]*\]")


def _signature(block: list[CompactLine]) -> str:
    """What a landmark holds, refs aside (they change from page to page)."""
    top = block[0].depth
    return "\n".join(f"{line.depth - top} {_REF.sub('', line.text)}" for line in block)


def _left_out(block: list[CompactLine]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for line in block:
        if line.counts:
            counts.update(dict(line.counts))
        else:
            counts[line.kind] += 1
    for kind in _PERIPHERAL:
        counts.pop(kind, None)
    return counts


def fold_repeated_landmarks(
    lines: list[CompactLine], seen: Collection[str]
) -> tuple[list[CompactLine], frozenset[str]]:
    """``lines`` with each landmark repeated from ``seen`` folded; this page's landmarks."""
    result: list[CompactLine] = []
    signatures: set[str] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.kind not in _PERIPHERAL or not line.label:
            result.append(line)
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].depth > line.depth:
            end += 1
        block = lines[index:end]
        signature = _signature(block)
        signatures.add(signature)
        if signature in seen and line.ref and all(part.priority > 0 for part in block):
            counts = _left_out(block)
            # The last page listed or counted what it holds: the model has read that once.
            text = f"{line.label} [ref={line.ref}] (as before, not shown)"
            result.append(replace(line, text=text, counts=tuple(counts.items())))
            index = end
            continue
        # Not folded whole: a landmark inside it may still be.
        result.append(line)
        index += 1
    return result, frozenset(signatures)
