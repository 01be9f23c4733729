"""Measure the live view (not a test: no speed asserts): how soon a frame follows an action.

    .venv/bin/python benchmarks/live_view_latency.py [--actions 20] [--json F]

One ``serve --http 127.0.0.1:0 --no-auth`` child on a practice site; one SDK client
opens a session and a live view (``GET /sessions/NAME/screenshots``), then navigates
between two pages ``--actions`` times. For each action it records the time from the
tool's answer to the first frame showing the new page (a frame whose bytes differ
from the one before the action), and from the call's start. It then watches the idle
page for 5 s and reports the gap between idle frames.

Goal from the issue: a frame within 1 s of an action; at most 1 frame per second idle.
Other processes on the machine skew every figure: say what else ran.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.practice.demoflix import DemoflixServer  # noqa: E402
from tests.support.serve_clients import ServeChild  # noqa: E402


async def frame_events(lines: AsyncIterator[str]) -> AsyncIterator[tuple[float, bytes]]:
    """(arrival time, JPEG bytes) of each screenshot event."""
    event = ""
    async for line in lines:
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == "screenshot":
            data = json.loads(line.split(":", 1)[1])
            yield time.perf_counter(), base64.b64decode(data["image"])


def percentile(values: list[float], share: float) -> float:
    """The ``share`` percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def measure(url: str, actions: int) -> dict[str, Any]:
    """The figures of one run."""
    base = url.removesuffix("/mcp")
    after_answer: list[float] = []
    after_start: list[float] = []
    async with Client(streamable_http_client(url)) as client:
        await client.call_tool("session_open", {"name": "live", "service": "demoflix"})
        await client.call_tool("navigate", {"session": "live", "url": "/account"})
        async with (
            httpx2.AsyncClient(timeout=60) as http,
            http.stream("GET", f"{base}/sessions/live/screenshots") as answer,
        ):
            frames = frame_events(answer.aiter_lines())
            _, shown = await anext(frames)
            pages = ["/cancel", "/account"]
            for i in range(actions):
                started = time.perf_counter()
                await client.call_tool("navigate", {"session": "live", "url": pages[i % 2]})
                answered = time.perf_counter()
                while True:
                    arrived, frame = await anext(frames)
                    if frame != shown:
                        break
                shown = frame
                after_answer.append(arrived - answered)
                after_start.append(arrived - started)
            idle: list[float] = []
            last, _ = await anext(frames)
            until = time.perf_counter() + 5.0
            while time.perf_counter() < until:
                arrived, _ = await anext(frames)
                idle.append(arrived - last)
                last = arrived
        await client.call_tool("session_close", {"name": "live"})
    return {
        "actions": actions,
        "frame_after_answer_s": {
            "p50": statistics.median(after_answer),
            "p95": percentile(after_answer, 0.95),
            "max": max(after_answer),
        },
        "frame_after_call_start_s": {
            "p50": statistics.median(after_start),
            "p95": percentile(after_start, 0.95),
            "max": max(after_start),
        },
        "idle_gap_s": {"min": min(idle), "mean": statistics.mean(idle), "frames": len(idle)},
    }


async def main() -> None:
    """Run the server, measure, print (and write --json)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actions", type=int, default=20)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="live-bench-") as tmp,
        DemoflixServer(["remembered"]) as site,
    ):
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            env[variable] = str(home / variable.lower())
        env.pop("SUBTERMINATOR_CONFIG", None)
        child = ServeChild(
            [
                *("--http", "127.0.0.1:0", "--no-auth", "--operator-tty", "none"),
                *("--practice-url", site.base_url, "--profile-root", str(home / "profiles")),
            ],
            env,
        )
        try:
            report = await measure(child.wait_listening(), args.actions)
        finally:
            child.stop()
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
