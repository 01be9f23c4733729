"""The journal under SIGKILL: kill a writer 200 times at random moments, then check the file.

    .venv/bin/python benchmarks/journal_kills.py [--kills 200] [--seed 1]

A writer process runs what a run writes (a run, turn intents and outcomes, the
facts of irreversible steps) through the real Journal, printing each row's id the
moment the write returned (acknowledged). A reader process lists runs and steps
the whole time, as ``subterminator runs`` would, on the same file. The writer is
SIGKILLed after a random 0-150 ms, 200 times, reopening the same file each time.
Then ``PRAGMA integrity_check`` must say ok and every acknowledged row must exist.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import apsw

ROOT = Path(__file__).resolve().parents[1]

WRITER = """
import sys
from pathlib import Path
from subterminator_tui.journal.store import Journal
journal = Journal(Path(sys.argv[1]))
while True:
    run = journal.start_run("demoflix", None, "playbook")
    print(f"run {run}", flush=True)
    for turn in range(1, 6):
        row = journal.record_intent(run, turn, "playbook", "browser_click", {"target": "e1"})
        print(f"turn {row}", flush=True)
        step = journal.record_question(run, turn, "Irreversible", "Click", "http://x/")
        print(f"step {step}", flush=True)
        journal.record_decision(step, "approve")
        journal.record_dispatch(step)
        journal.record_step_outcome(step, "done")
        journal.record_outcome(row, outcome="ok", error=None, url="http://x/", title="X",
                               snapshot="- main" * 50, latency=0.1, input_tokens=1,
                               output_tokens=1)
"""

READER = """
import sys
from pathlib import Path
from subterminator_tui.journal.store import Journal
while True:
    with Journal(Path(sys.argv[1])) as journal:
        for run in journal.recent_runs(5):
            journal.steps(run.id)
        journal.interrupted_runs("demoflix")
"""


def main() -> int:
    """Kill, reopen, check; print the figures; exit 1 on any loss or damage."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory(prefix="subterminator-journal-") as tmp:
        path = Path(tmp) / "journal.sqlite3"
        acknowledged: dict[str, set[int]] = {"run": set(), "turn": set(), "step": set()}
        reader = subprocess.Popen([sys.executable, "-c", READER, str(path)], env=env)
        started = time.monotonic()
        try:
            for _kill in range(args.kills):
                writer = subprocess.Popen(
                    [sys.executable, "-c", WRITER, str(path)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
                assert writer.stdout is not None
                first = writer.stdout.readline()  # the writer is up and writing
                time.sleep(rng.uniform(0.0, 0.15))  # the random moment is the point here
                writer.send_signal(signal.SIGKILL)
                rest = writer.stdout.read()
                writer.wait()
                writer.stdout.close()
                for line in (first + rest).decode().splitlines():
                    kind, _, number = line.partition(" ")
                    if kind in acknowledged and number.isdigit():
                        acknowledged[kind].add(int(number))
        finally:
            reader.send_signal(signal.SIGKILL)
            reader.wait()
        db = apsw.Connection(str(path))
        integrity = db.execute("PRAGMA integrity_check").fetchall()
        present = {
            "run": {row[0] for row in db.execute("SELECT id FROM runs")},
            "turn": {row[0] for row in db.execute("SELECT id FROM turns")},
            "step": {row[0] for row in db.execute("SELECT id FROM steps")},
        }
        lost = {kind: sorted(ids - present[kind]) for kind, ids in acknowledged.items()}
        total = sum(len(ids) for ids in acknowledged.values())
        print(
            f"{args.kills} SIGKILLs in {time.monotonic() - started:.0f} s; integrity_check: "
            f"{integrity}; acknowledged rows: {total}; lost: "
            f"{sum(len(ids) for ids in lost.values())} {lost if any(lost.values()) else ''}"
        )
        ok = integrity == [("ok",)] and not any(lost.values())
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
