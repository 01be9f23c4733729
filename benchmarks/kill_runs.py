"""Exactly once under SIGKILL: kill a cancellation at random moments, re-run it, count the cancels.

    .venv/bin/python benchmarks/kill_runs.py [--trials 50] [--seed 1]

Each trial starts a practice site whose state outlives the runs (``subterminator
practice demoflix``), runs ``subterminator cancel demoflix --practice-url ...``,
approves the final step, and SIGKILLs the run at a random moment: half the trials
within 0-300 ms after the approval, the rest anywhere from start to end. Then it
runs the same cancellation again to its end. The practice server's own state is the
ground truth: exactly one cancellation request in every trial, and the second run's
report must match it (completed and verified, exit 0). It also counts browser and
Node processes left on the trial's profile (orphans) and sign-in prompts on re-runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.browser.processes import (  # noqa: E402
    kill_browser_processes,
    processes_using_profile,
)

PROMPT = b"Approve? [y/N"
SUBTERMINATOR = [sys.executable, "-m", "subterminator_tui"]


@dataclass
class Trial:
    """What one trial measured."""

    index: int
    kill_mode: str
    killed_after: float
    cancel_requests: int
    rerun_exit: int
    rerun_line: str
    orphans: int
    sign_in_prompts: int

    @property
    def correct(self) -> bool:
        """Exactly one cancellation, reported as completed and verified."""
        return self.cancel_requests == 1 and self.rerun_exit == 0


def free_port() -> int:
    """A port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def state(base: str) -> dict[str, object]:
    """The practice server's ground truth."""
    with urllib.request.urlopen(f"{base}/__state", timeout=5) as answer:
        data: dict[str, object] = json.load(answer)
    return data


def start_site(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    """``subterminator practice demoflix`` on a free port, signed in (remembered)."""
    port = free_port()
    site = subprocess.Popen(
        [*SUBTERMINATOR, "practice", "demoflix", "--variant", "remembered", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert site.stdout is not None
    site.stdout.readline()  # "demoflix is running at ..." once it listens
    return site, f"http://127.0.0.1:{port}"


def cancel_args(base: str, profile: Path) -> list[str]:
    """The run under test."""
    return [
        *SUBTERMINATOR,
        "cancel",
        "demoflix",
        "--no-tui",
        "--headless",
        "--profile-dir",
        str(profile),
        "--practice-url",
        base,
    ]


def run_and_kill(args: list[str], env: dict[str, str], mode: str, rng: random.Random) -> float:
    """Start a run, approve, SIGKILL it at the chosen moment; seconds from approval (or start)."""
    child = subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert child.stdin is not None and child.stdout is not None
    started = time.monotonic()
    deadline = started + (rng.uniform(0.0, 8.0) if mode == "anytime" else 60.0)
    output = b""
    approved_at: float | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline and child.poll() is None:
            if not selector.select(max(0.0, deadline - time.monotonic())):
                break
            chunk = os.read(child.stdout.fileno(), 4096)
            if not chunk:
                break
            output += chunk
            if approved_at is None and PROMPT in output:
                child.stdin.write(b"y\n")
                child.stdin.flush()
                approved_at = time.monotonic()
                if mode == "after_approval":
                    deadline = approved_at + rng.uniform(0.0, 0.3)
    child.send_signal(signal.SIGKILL)
    child.wait()
    for stream in (child.stdin, child.stdout):
        stream.close()
    return time.monotonic() - (approved_at or started)


def run_to_end(args: list[str], env: dict[str, str]) -> tuple[int, str, int]:
    """The re-run: approve whatever it asks; exit code, result line, sign-in prompts seen."""
    child = subprocess.run(
        args, input=b"y\ny\ny\n", capture_output=True, env=env, timeout=180, check=False
    )
    out = child.stdout.decode(errors="replace")
    lines = [line for line in out.splitlines() if line.startswith(("✓", "✗"))]
    return child.returncode, (lines[-1] if lines else out[-200:]), out.count("Sign-in needed")


def trial(index: int, rng: random.Random, workdir: Path, env: dict[str, str]) -> Trial:
    """One kill and one re-run against one practice site."""
    profile = workdir / f"profile-{index}"
    site, base = start_site(env)
    try:
        mode = "after_approval" if index % 2 == 0 else "anytime"
        killed_after = run_and_kill(cancel_args(base, profile), env, mode, rng)
        exit_code, line, prompts = run_to_end(cancel_args(base, profile), env)
        truth = state(base)
    finally:
        site.send_signal(signal.SIGINT)
        site.wait(timeout=10)
    left = processes_using_profile(profile)
    if left:
        kill_browser_processes(profile)
    return Trial(
        index,
        mode,
        killed_after,
        int(str(truth["cancel_requests"])),
        exit_code,
        line,
        len(left),
        prompts,
    )


def main() -> int:
    """Run the trials and print the figures; exit 1 when any trial was wrong."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="subterminator-kills-") as tmp:
        home = Path(tmp)
        config = home / "config.toml"
        config.write_text("", encoding="utf-8")
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("SUBTERMINATOR_")},
            "SUBTERMINATOR_CONFIG": str(config),
            "XDG_STATE_HOME": str(home / "state"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
        }
        env.pop("ANTHROPIC_API_KEY", None)
        env.pop("OPENAI_API_KEY", None)
        trials = []
        for index in range(args.trials):
            result = trial(index, rng, home, env)
            trials.append(result)
            print(
                f"{index:3d} {result.kill_mode:15s} killed +{result.killed_after:5.2f}s "
                f"cancels={result.cancel_requests} rerun={result.rerun_exit} "
                f"orphans={result.orphans} sign-ins={result.sign_in_prompts} {result.rerun_line}",
                flush=True,
            )
    wrong = [t for t in trials if not t.correct]
    print(
        f"\n{len(trials)} trials: {len(trials) - len(wrong)} exactly once and reported right, "
        f"{len(wrong)} wrong; orphans {sum(t.orphans for t in trials)}; "
        f"sign-in prompts on re-runs {sum(t.sign_in_prompts for t in trials)}"
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
