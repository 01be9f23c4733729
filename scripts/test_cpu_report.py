"""Sum the CPU ledger the tests wrote (tests/support/cpu_ledger.py): top tests and files.

Usage: SUBTERMINATOR_TEST_CPU_LOG=/tmp/cpu .venv/bin/pytest ...; then
python scripts/test_cpu_report.py /tmp/cpu [--top 30]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path


def main() -> None:
    """Print the tests and the files that spent the most CPU."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--top", type=int, default=30)
    arguments = parser.parse_args()
    tests: dict[str, tuple[float, float]] = {}
    for ledger in sorted(arguments.directory.glob("cpu-*.tsv")):
        for line in ledger.read_text(encoding="utf-8").splitlines():
            nodeid, cpu, wall = line.rsplit("\t", 2)
            tests[nodeid] = (float(cpu), float(wall))
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for nodeid, (cpu, wall) in tests.items():
        figures = files[nodeid.split("::", 1)[0]]
        figures[0] += cpu
        figures[1] += wall
        figures[2] += 1
    total = sum(cpu for cpu, _ in tests.values())
    print(f"{len(tests)} tests, {total:.0f} CPU s in all\n")
    print(f"Top {arguments.top} tests by CPU s (wall s):")
    ranked = sorted(tests.items(), key=lambda item: -item[1][0])
    for nodeid, (cpu, wall) in ranked[: arguments.top]:
        print(f"{cpu:8.1f} {wall:8.1f}  {nodeid}")
    print(f"\nTop {arguments.top} files by CPU s (wall s, tests):")
    for path, (cpu, wall, count) in sorted(files.items(), key=lambda item: -item[1][0])[
        : arguments.top
    ]:
        print(f"{cpu:8.1f} {wall:8.1f} {int(count):5d}  {path}")


if __name__ == "__main__":
    main()
