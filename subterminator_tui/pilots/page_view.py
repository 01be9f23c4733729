"""How a page is shown to a model: URL, title and a compacted accessibility tree.

Boxes and cursor hints help a person, not a model choosing by ref, so they
are dropped; earlier pages in the history are replaced by a one-line stub so
the context does not grow with every page.
"""

from __future__ import annotations

import re

from subterminator_tui.browser.snapshot import NormalizedSnapshot

_NOISE = re.compile(r" \[(?:box=[^\]]*|cursor=[^\]]*)\]")


def compact_tree(content: str) -> str:
    """The snapshot YAML without bounding boxes and cursor hints."""
    return _NOISE.sub("", content)


def page_for_model(snapshot: NormalizedSnapshot) -> str:
    """The fresh page as the model reads it."""
    lines = [f"URL: {snapshot.url}", f"Title: {snapshot.title}"]
    for name, body in snapshot.notes.items():
        lines.append(f"{name}:\n{body}")
    lines.append("Snapshot:")
    lines.append(compact_tree(snapshot.content))
    return "\n".join(lines)


def page_stub(snapshot: NormalizedSnapshot) -> str:
    """What replaces an earlier page in the history."""
    return (
        f"[earlier page omitted: '{snapshot.title}' at {snapshot.url}; "
        "a later result has the current page]"
    )
