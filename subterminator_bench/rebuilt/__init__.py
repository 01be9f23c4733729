"""Multi-step cancellation flows rebuilt from public records, and hostile pages beside them.

Each flow is a small site :class:`RebuiltServer` serves on 127.0.0.1, signed in, with
its ground truth (:class:`FlowState`: cancelled, charged, paused, snoozed, the consent
answer, every request that changed something) readable by tests and at ``GET /__state``.
No services file names them: a run reaches one by its address (``cancel --url``), or a
test writes the entry it needs. They belong to the bench and stay in the source checkout.

- ``state``   the ground truth of one account
- ``site``    what a flow is made of, HTML helpers, and the server
- ``flows/``  the flows, one module each, the record each was rebuilt from at its top
- ``report``  ``python -m subterminator_bench.rebuilt``: each flow's honest run, what it asked
"""

from subterminator_bench.rebuilt.flows import FLOWS, HOSTILE_FLOWS, REBUILT_FLOWS
from subterminator_bench.rebuilt.site import Flow, RebuiltServer
from subterminator_bench.rebuilt.state import FlowState, day_text

__all__ = [
    "FLOWS",
    "HOSTILE_FLOWS",
    "REBUILT_FLOWS",
    "Flow",
    "FlowState",
    "RebuiltServer",
    "day_text",
]
