"""Run every rebuilt flow's honest path as a person would, and report what each run asked.

``python -m subterminator_bench.rebuilt`` starts each flow's server and the scripted
loopback model (the flow's path, then a success claim), runs ``python -m
subterminator_tui cancel --url ... --json`` as a child with a private home and profile,
approves every question on its stdin, and prints one line per flow: the questions, whether
the commit was among them, the exit code and reason, and the server's ground truth. It is
the per-flow figure a change to asking or proving reports before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subterminator_bench.loopback_model import ScriptedModelServer
from subterminator_bench.rebuilt.flows import FLOWS, REBUILT_FLOWS
from subterminator_bench.rebuilt.site import Flow, RebuiltServer
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_tui.rules import PlaybookStep

#: What the headless front end prints before each question.
ASKED = "Human approval required for: "
#: A run takes seconds; this only stops a hung child from hanging the report.
RUN_TIMEOUT = 180.0
#: More approvals than any honest path asks; the rest of stdin is never read.
APPROVALS = "y\n" * 10
#: Variables that would reach a real model or another configuration: never passed on.
_PRIVATE_PREFIXES = ("ANTHROPIC_", "OPENAI_", "SUBTERMINATOR_")


@dataclass(frozen=True)
class FlowReport:
    """One honest run of one flow."""

    flow: str
    questions: tuple[str, ...]
    commit_asked: bool
    exit_code: int
    reason: str
    ground_truth: dict[str, Any]

    def line(self) -> str:
        """The report as one line a person reads."""
        truth = {key: value for key, value in self.ground_truth.items() if value}
        return (
            f"{self.flow}: {len(self.questions)} question(s) {list(self.questions)}; "
            f"commit asked: {self.commit_asked}; exit {self.exit_code} ({self.reason}); "
            f"truth: {json.dumps(truth, sort_keys=True)}"
        )


def private_env(home: Path, model: ScriptedModelServer) -> dict[str, str]:
    """This environment minus keys and settings, with a home of its own and the scripted model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_PRIVATE_PREFIXES)}
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[variable] = str(home / variable.lower())
    config = home / "config.toml"
    config.write_text("", encoding="utf-8")
    env["SUBTERMINATOR_CONFIG"] = str(config)
    env["ANTHROPIC_BASE_URL"] = model.base_url
    env["ANTHROPIC_API_KEY"] = "sk-ant-scripted"
    return env


def run_flow(flow: Flow, workdir: Path) -> FlowReport:
    """Run ``flow``'s honest path once in ``workdir``, approving every question."""
    steps = [PlaybookStep.model_validate(step) for step in flow.path]
    home = workdir / flow.id
    home.mkdir(parents=True)
    with RebuiltServer(flow) as site, ScriptedModelServer(PlaybookBrain(steps)) as model:
        args = ["cancel", "--url", site.start_url, "--headless", "--json"]
        args += ["--profile-dir", str(home / "profile")]
        child = subprocess.run(
            [sys.executable, "-m", "subterminator_tui", *args],
            input=APPROVALS.encode(),
            capture_output=True,
            env=private_env(home, model),
            timeout=RUN_TIMEOUT,
            check=False,
        )
        truth = site.state.to_dict()
    stderr = child.stderr.decode()
    questions = tuple(
        line.split(ASKED, 1)[1].strip() for line in stderr.splitlines() if ASKED in line
    )
    try:
        result = json.loads(child.stdout.decode() or "{}")
    except json.JSONDecodeError:
        result = {}
    asked = bool(flow.commit) and any(flow.commit in question for question in questions)
    reason = str(result.get("reason", "no result"))
    return FlowReport(flow.id, questions, asked, child.returncode, reason, truth)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the flows named (every rebuilt flow by default) and print one line each."""
    parser = argparse.ArgumentParser(
        prog="python -m subterminator_bench.rebuilt", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("flows", nargs="*", metavar="FLOW", help=f"one of: {', '.join(FLOWS)}")
    args = parser.parse_args(argv)
    unknown = [name for name in args.flows if name not in FLOWS]
    if unknown:
        parser.error(f"unknown flow {unknown[0]!r}; the flows: {', '.join(FLOWS)}")
    chosen = [FLOWS[name] for name in args.flows] or list(REBUILT_FLOWS)
    with tempfile.TemporaryDirectory(prefix="rebuilt-") as workdir:
        for flow in chosen:
            print(run_flow(flow, Path(workdir)).line(), flush=True)
    return 0
