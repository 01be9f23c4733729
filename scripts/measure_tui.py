"""Measure the app with a 5,000-element page (not a test: tests never assert on speed).

    .venv/bin/python scripts/measure_tui.py [--elements 5000] [--repeats 5] [--keys 30]

Builds the app through the CLI's factory with a scripted session whose first
page has ``--elements`` elements (the captured demoflix account page plus a
generated list, parsed by the real parser), then prints:

- ``show_snapshot``: rebuilding the snapshot tree for that page (median, max);
- the tree's paint: rendering its visible lines right after a rebuild;
- a keypress: from a ``down`` key reaching the app to the tree's cursor having
  moved, and to the frame showing it having been composed and written.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the scripted session lives in tests/fakes

from textual import events  # noqa: E402
from textual.geometry import Region  # noqa: E402

from subterminator_tui.settings import load_settings  # noqa: E402
from subterminator_tui.tui.run_app import create_app  # noqa: E402
from subterminator_tui.tui.widgets.snapshot_tree import SnapshotTree  # noqa: E402
from tests.fakes.scripted_session import (  # noqa: E402
    ScriptedSession,
    freeze_header_clock,
    long_snapshot,
)

SIZE = (140, 40)


def milliseconds(samples: list[float]) -> str:
    """``median / max ms`` of ``samples`` (seconds)."""
    return f"{statistics.median(samples) * 1000:8.1f} ms median, {max(samples) * 1000:8.1f} ms max"


async def until(condition: object, limit: float = 30.0) -> None:
    """Yield to the event loop until ``condition()`` holds (no sleep, so no added delay)."""
    deadline = time.perf_counter() + limit
    while not condition():  # type: ignore[operator]
        if time.perf_counter() > deadline:
            raise TimeoutError("the app did not get there")
        await asyncio.sleep(0)


async def measure(elements: int, repeats: int, keys: int) -> None:
    """Run the app headless and print the figures."""
    page = long_snapshot(elements)
    session = ScriptedSession(start_page=page, hold_at_turn=0)
    freeze_header_clock()
    app = create_app(load_settings(image_previews=False), session)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(SnapshotTree)
        await until(lambda: tree.snapshot is page)
        await pilot.pause()
        print(f"page: {len(page.elements):,} elements, tree: {tree.last_line + 1:,} lines")

        rebuilds, paints = [], []
        for _ in range(repeats):
            started = time.perf_counter()
            tree.show_snapshot(page)
            rebuilds.append(time.perf_counter() - started)
            started = time.perf_counter()
            tree.render_lines(Region(0, 0, tree.size.width, tree.size.height))
            paints.append(time.perf_counter() - started)
            await pilot.pause()
        print(f"show_snapshot:          {milliseconds(rebuilds)}")
        print(f"paint visible lines:    {milliseconds(paints)}")

        tree.focus()
        await pilot.pause()
        moved, framed = [], []
        for _ in range(keys):
            before = tree.cursor_line
            started = time.perf_counter()
            key = events.Key("down", None)
            assert app._driver is not None
            app._driver.send_message(key)
            await until(lambda: tree.cursor_line == before + 1)  # noqa: B023
            moved.append(time.perf_counter() - started)
            # Compose and write the frame now rather than at the next refresh tick.
            app.screen._on_timer_update()
            framed.append(time.perf_counter() - started)
            await pilot.pause()
        print(f"key down -> cursor:     {milliseconds(moved)}")
        print(f"key down -> frame out:  {milliseconds(framed)}")


def main() -> None:
    """Parse the arguments and measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keys", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        # The person's own config (a keymap, say) must not change what is measured.
        config = Path(home) / "config.toml"
        config.write_text("", encoding="utf-8")
        os.environ["SUBTERMINATOR_CONFIG"] = str(config)
        asyncio.run(measure(args.elements, args.repeats, args.keys))


if __name__ == "__main__":
    main()
