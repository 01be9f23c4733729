"""Measure the egress proxy's overhead per turn (not a test: tests never assert on speed).

    .venv/bin/python benchmarks/egress_overhead.py [--turns 40] [--rounds 3]

A turn is what the loop does with the browser on every step: one
``browser_navigate`` to a practice page and one ``browser_snapshot``. The same
turns run in a browser started without the proxy and in one started behind it
(rounds alternate, so a warm cache favours neither); the script prints the
median turn of each and the difference, and how many requests the proxy let
through and blocked.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from subterminator_tui.browser.egress import EgressPolicy, EgressProxy, egress_filter
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import plan_launch
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.settings import load_settings

PAGES = ("/login", "/account", "/cancel/survey")


async def turns(
    workdir: Path, site: DemoflixServer, count: int, proxy: EgressProxy | None
) -> list[float]:
    """Seconds per navigate+snapshot turn, after one warm-up turn."""
    plan = plan_launch(
        load_settings(),
        headless=True,
        profile_dir=workdir / "profile",
        runs_root=workdir,
        proxy_server=proxy.url if proxy else None,
    )
    timings = []
    async with BrowserGateway(plan) as gateway:
        await gateway.call("browser_navigate", {"url": f"{site.base_url}/login"})
        for index in range(count):
            started = time.perf_counter()
            url = site.base_url + PAGES[index % len(PAGES)]
            await gateway.call("browser_navigate", {"url": url})
            await gateway.snapshot()
            timings.append(time.perf_counter() - started)
    return timings


async def main(count: int, rounds: int) -> None:
    """Run the rounds and print the figures."""
    direct: list[float] = []
    proxied: list[float] = []
    policy = EgressPolicy.for_domains(["127.0.0.1"])
    with DemoflixServer() as site, tempfile.TemporaryDirectory() as tmp:
        async with egress_filter(policy) as proxy:
            for index in range(rounds):
                direct += await turns(Path(tmp) / f"direct-{index}", site, count, None)
                proxied += await turns(Path(tmp) / f"proxied-{index}", site, count, proxy)
            allowed, blocked = proxy.counters.allowed_total, len(proxy.counters.blocked)
    without, with_proxy = statistics.median(direct), statistics.median(proxied)
    print(f"turns: {len(direct)} without the proxy, {len(proxied)} with it")
    print(f"median turn without the proxy: {without * 1000:.1f} ms")
    print(f"median turn with the proxy:    {with_proxy * 1000:.1f} ms")
    print(f"overhead per turn (median):    {(with_proxy - without) * 1000:+.1f} ms")
    print(f"proxy: {allowed} connections allowed, {blocked} blocked")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.turns, arguments.rounds))
