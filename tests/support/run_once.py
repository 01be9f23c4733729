"""A value computed once per test run, shared by the pytest-xdist workers.

A module-scoped fixture runs again on every worker that takes one of its module's tests
(work stealing spreads a module over all of them). Where the value is the same for all
(a walk of the practice pages through a real browser), the first worker computes it
under a file lock and the others read what it left.
"""

from __future__ import annotations

import fcntl
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def once_per_run(request: pytest.FixtureRequest, name: str, compute: Callable[[], T]) -> T:
    """``compute()``, run by one worker of this test run; the others load its result.

    Without xdist (one process) it is simply called. The file lives in the run's shared
    temporary root, named by the run's id, so no earlier run's value is ever read.
    """
    workerinput = getattr(request.config, "workerinput", None)
    if workerinput is None:
        return compute()
    factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    # Each worker's basetemp is <root>/popen-gwN: the root is the run's, shared.
    shared = Path(factory.getbasetemp()).parent / f"once-{workerinput['testrunuid']}"
    shared.mkdir(exist_ok=True)
    stored = shared / f"{name}.pickle"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stored.exists():
            value: T = pickle.loads(stored.read_bytes())
            return value
        value = compute()
        temporary = stored.with_suffix(".partial")
        temporary.write_bytes(pickle.dumps(value))
        temporary.rename(stored)
        return value
