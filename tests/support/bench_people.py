"""A bench person who approves every question, for the tests that need the step to happen.

The bench's own person refuses a purchase that is not the cancellation; a test that
proves how a purchase or a decoy taken is scored needs one who says yes to everything.
"""

from __future__ import annotations

import pytest

from subterminator_bench.ground_truth import read_ground_truth
from subterminator_bench.runner import BenchGate
from subterminator_tui.guarded.gates import CheckpointRequest, Decision


def approve_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the bench's person approve every question, purchases included."""

    async def approve_all(gate: BenchGate, request: CheckpointRequest) -> Decision:
        gate.held_requests += request.kind == "held_request"
        gate.approvals_at.append(len(read_ground_truth(gate.state).irreversible))
        return Decision("approve")

    monkeypatch.setattr(BenchGate, "approve", approve_all)
