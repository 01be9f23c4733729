"""The floor under serve's click figure: the same walk on bare Playwright MCP (not a test).

    .venv/bin/python benchmarks/click_floor.py [--sessions 8] [--rounds 3] [--json F]

`serve_sessions.py` times a guarded click: a fresh snapshot, the guard's DOM read,
the click with its fresh page, the console read, the journal. This script runs the
demoflix walk's four clicks with none of that: N browsers (one Playwright MCP each,
no egress filter, no guard, no journal), each click answered with the page
Playwright MCP returns. The sessions click in lockstep, as the serve benchmark's
agents do, so the figure is what this machine can do at best for N at once.
Playwright MCP's own settle wait is whatever SubTerminator launches it with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.browser.gateway import BrowserGateway  # noqa: E402
from subterminator_tui.browser.launch import plan_launch  # noqa: E402
from subterminator_tui.browser.snapshot import NormalizedSnapshot  # noqa: E402
from subterminator_tui.practice.demoflix.server import DemoflixServer  # noqa: E402
from subterminator_tui.settings import load_settings  # noqa: E402

WALK = (
    ("button", "Cancel membership"),
    ("radio", "Too expensive"),
    ("button", "Continue"),
    ("button", "Continue to cancel"),
)


def ref_of(page: NormalizedSnapshot, role: str, name: str) -> str:
    """The ref of ``role "name"`` on the page."""
    for element in page.find(role=role, name=name):
        if element.ref:
            return element.ref
    raise LookupError(f'{role} "{name}" is not on {page.url}')


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank), as serve_sessions.py computes it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


async def walk(gateway: BrowserGateway, barrier: asyncio.Barrier, clicks: list[float]) -> None:
    """The four clicks of the walk on a fresh practice site, each once every session is ready."""
    with DemoflixServer(variants=("remembered",)) as site:
        opened = await gateway.call("browser_navigate", {"url": site.base_url + "/account"})
        page = opened.snapshot
        for role, name in WALK:
            ref = ref_of(page, role, name)
            await barrier.wait()
            started = time.perf_counter()
            page = (await gateway.call("browser_click", {"target": ref})).snapshot
            clicks.append(time.perf_counter() - started)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    clicks: list[float] = []
    with tempfile.TemporaryDirectory(prefix="click-floor-") as tmp:
        home = Path(tmp)
        async with AsyncExitStack() as browsers:
            gateways = [
                await browsers.enter_async_context(
                    BrowserGateway(
                        plan_launch(
                            load_settings(),
                            headless=True,
                            profile_dir=home / f"profile-{index}",
                            runs_root=home / "runs",
                        )
                    )
                )
                for index in range(args.sessions)
            ]
            for _ in range(args.rounds):
                barrier = asyncio.Barrier(len(gateways))
                await asyncio.gather(*(walk(gateway, barrier, clicks) for gateway in gateways))
    report = {
        "sessions": args.sessions,
        "clicks": len(clicks),
        "click_p50_ms": round(statistics.median(clicks) * 1000),
        "click_p95_ms": round(percentile(clicks, 0.95) * 1000),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
