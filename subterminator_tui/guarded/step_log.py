"""Where a guarded call's facts are written: the journal's side of the pipeline.

The run's ledger and serve's call records both implement :class:`StepLog`, so both
front ends journal the same rows. It sits apart from the pipeline so the request
gate, which writes a held request's question and answer through it too, does not
need the pipeline that holds the gate.
"""

from __future__ import annotations

from typing import Protocol

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import SnapshotElement

#: Roles whose inline text is what was typed into them, not what they are called.
_FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})


def target_facts(target: SnapshotElement | None) -> tuple[str, str] | None:
    """``(role, name)`` of a call's target for the journal; a field's contents never."""
    if target is None:
        return None
    name = target.name if target.role in _FIELD_ROLES else target.label
    return target.role, name


class StepLog(Protocol):
    """Where a guarded call's facts are written, each before what it announces happens."""

    def intent(self, turn: int, call: ToolCall, target: tuple[str, str] | None) -> int | None:
        """The call is about to be judged: its row (None when nothing is journaled)."""
        ...

    def question(self, turn: int, why: str, action: str, url: str) -> int | None:
        """Someone is about to be asked before an irreversible step: the step's id."""
        ...

    def decision(self, step: int | None, verdict: str) -> None:
        """approve, reject or guidance; never the person's words."""
        ...

    def dispatch(self, step: int | None) -> None:
        """The approved step goes out now; when this cannot be written, it does not."""
        ...

    def step_outcome(self, step: int | None, outcome: str) -> None:
        """done, failed or unknown."""
        ...
