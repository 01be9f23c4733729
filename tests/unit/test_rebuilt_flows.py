"""The rebuilt flows as data: each names its record, its path is a valid playbook that
reaches its commit, and every page a path starts from is served."""

from __future__ import annotations

import json
import urllib.request

import pytest

from subterminator_bench.rebuilt import FLOWS, HOSTILE_FLOWS, REBUILT_FLOWS, RebuiltServer
from subterminator_bench.rebuilt.report import main
from subterminator_tui.rules import PlaybookStep


@pytest.mark.parametrize("flow_id", [flow.id for flow in REBUILT_FLOWS])
def test_a_rebuilt_flow_names_its_record_and_its_path_reaches_its_commit(flow_id: str) -> None:
    """A source, a path of valid playbook steps, and the commit as the path's last step."""
    found = FLOWS[flow_id]
    assert found.source and found.path, found.id
    steps = [PlaybookStep.model_validate(step) for step in found.path]
    if found.commit:
        assert steps[-1].name == found.commit, found.id


def test_the_hostile_pages_are_flows_too() -> None:
    """Every hostile page is served by id like the rebuilt flows."""
    assert all(FLOWS[flow.id] is flow for flow in HOSTILE_FLOWS)
    assert len(FLOWS) == len(REBUILT_FLOWS) + len(HOSTILE_FLOWS)


@pytest.mark.parametrize("flow_id", sorted(FLOWS))
def test_the_start_page_is_served_and_nothing_has_happened(flow_id: str) -> None:
    """The account page answers 200, and the ground truth starts with nothing done."""
    with RebuiltServer(FLOWS[flow_id]) as site:
        with urllib.request.urlopen(site.start_url, timeout=10) as response:
            assert response.status == 200
        with urllib.request.urlopen(site.base_url + "/__state", timeout=10) as response:
            truth = json.loads(response.read())
    assert truth["cancelled"] is False and truth["effects"] == [] and truth["charges"] == []


def test_the_report_refuses_an_unknown_flow(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown name is an error that lists the flows (nothing is started)."""
    with pytest.raises(SystemExit) as stopped:
        main(["no-such-flow"])
    assert stopped.value.code == 2
    assert "retention-maze" in capsys.readouterr().err
