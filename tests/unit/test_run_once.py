"""Values shared by the xdist workers of one test run (``tests/support/run_once.py``)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from tests.support.run_once import once_per_run


def worker_request(root: Path, worker: str, run: str | None) -> pytest.FixtureRequest:
    """A request as a worker of run ``run`` sees it (None: no xdist)."""
    basetemp = root / f"popen-{worker}"
    basetemp.mkdir(exist_ok=True)
    factory = SimpleNamespace(getbasetemp=lambda: basetemp)
    config = SimpleNamespace() if run is None else SimpleNamespace(workerinput={"testrunuid": run})
    request: Any = SimpleNamespace(config=config, getfixturevalue=lambda name: factory)
    return cast(pytest.FixtureRequest, request)


def test_the_workers_of_one_run_compute_once_and_another_run_again(tmp_path: Path) -> None:
    """The second worker reads the first's value; a later run never reads an earlier's."""
    calls: list[str] = []

    def compute(who: str) -> dict[str, str]:
        calls.append(who)
        return {"walked by": who}

    first = once_per_run(worker_request(tmp_path, "gw0", "run-1"), "walk", lambda: compute("gw0"))
    second = once_per_run(worker_request(tmp_path, "gw1", "run-1"), "walk", lambda: compute("gw1"))
    later = once_per_run(worker_request(tmp_path, "gw0", "run-2"), "walk", lambda: compute("run-2"))
    assert first == second == {"walked by": "gw0"}
    assert later == {"walked by": "run-2"}
    assert calls == ["gw0", "run-2"]


def test_without_workers_the_value_is_computed_each_time(tmp_path: Path) -> None:
    """One process: nothing to share, nothing stored."""
    calls: list[int] = []
    for _ in range(2):
        once_per_run(worker_request(tmp_path, "main", None), "walk", lambda: calls.append(1))
    assert calls == [1, 1]
    assert not list(tmp_path.glob("once-*"))
