"""Measure `subterminator serve` under N concurrent agents (not a test: no speed asserts).

    .venv/bin/python benchmarks/serve_sessions.py [--sessions 8] [--stdio-starts 3]
        [--free-running] [--json F]

One ``serve --http 127.0.0.1:0`` child; N SDK clients, each with its own session
(and so its own browser and practice site), run the demoflix flow at once:
open, cold snapshot, four clicks, the gated Finish (approved by an operator on a
pseudo-terminal the script answers), three snapshots, close. By default the
agents wait until every browser is open and then click together (lockstep: eight
page loads at once on two cores); ``--free-running`` lets each go on as soon as
its own browser is open, as independent agents would. While every browser
is open the script sums the proportional memory (PSS) of the processes using the
sessions' profiles. Separately it times how long a stdio server takes to be ready
(spawn to initialize answered). Prints p50/p95 per tool; writes JSON with --json.

Goals from the issue on a 2-core machine: 8 sessions held, p95 snapshot <= 500 ms,
click with fresh page p95 <= 1.5 s, <= 350 MiB per session, stdio ready <= 3 s.
Other processes on the machine skew every figure: say what else ran.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from subterminator_tui.browser.processes import process_table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.serve_clients import ServeChild, ref_in  # noqa: E402

SERVE = [sys.executable, "-m", "subterminator_tui", "serve"]
WALK = (
    ("button", "Cancel membership"),
    ("radio", "Too expensive"),
    ("button", "Continue"),
    ("button", "Continue to cancel"),
)


def text_of(result: types.CallToolResult) -> str:
    """The text blocks of a result."""
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


class AutoApprover(threading.Thread):
    """The operator at a pseudo-terminal who approves every question (typing its code)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.master, self.slave = os.openpty()
        self.path = os.ttyname(self.slave)
        self.answered = 0

    def run(self) -> None:
        screen = ""
        while True:
            try:
                screen += os.read(self.master, 4096).decode("utf-8", "replace")
            except OSError:
                return
            while (asked := re.search(r"Type (\w+) to approve.*?: ", screen)) is not None:
                screen = screen[asked.end() :]
                os.write(self.master, asked.group(1).encode() + b"\n")
                self.answered += 1


def pss_mib(root: Path) -> tuple[float, int]:
    """Proportional memory (MiB) of every process whose command line names ``root``."""
    total_kib = 0
    count = 0
    for proc in process_table():
        if not proc.alive or str(root) + "/" not in proc.cmdline:
            continue
        try:
            text = Path(f"/proc/{proc.pid}/smaps_rollup").read_text()
        except OSError:
            continue
        found = re.search(r"^Pss:\s+(\d+) kB", text, re.MULTILINE)
        if found:
            total_kib += int(found.group(1))
            count += 1
    return total_kib / 1024, count


class AllOpen:
    """Set once every session's browser is open; lockstep agents wait for it to click."""

    def __init__(self, sessions: int, *, lockstep: bool) -> None:
        self.left = sessions
        self.lockstep = lockstep
        self.event = asyncio.Event()

    async def opened(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.event.set()
        if self.lockstep:
            await self.event.wait()


async def one_agent(
    url: str, index: int, timings: dict[str, list[float]], all_open: AllOpen
) -> bool:
    """One agent's demoflix flow; True when the page confirms the cancellation."""
    name = f"bench-{index}"

    async def timed(client: Client, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        started = time.perf_counter()
        result = await client.call_tool(tool, arguments)
        timings[tool].append(time.perf_counter() - started)
        if result.is_error:
            raise RuntimeError(f"{tool} failed: {text_of(result)}")
        return result

    async with Client(url) as client:
        await timed(client, "session_open", {"name": name, "service": "demoflix"})
        started = time.perf_counter()
        page = text_of(await client.call_tool("snapshot", {"session": name}))
        timings["cold_open"].append(time.perf_counter() - started)
        await all_open.opened()
        for role, label in WALK:
            page = text_of(
                await timed(client, "click", {"session": name, "ref": ref_in(page, role, label)})
            )
        finish = ref_in(page, "button", "Finish cancellation")
        held = await timed(client, "click", {"session": name, "ref": finish})
        assert held.structured_content is not None
        approval = held.structured_content["approval_id"]
        done = await timed(
            client, "approval_wait", {"approval_id": approval, "timeout_seconds": 120}
        )
        assert done.structured_content is not None
        confirmed = "/cancel/done" in str(done.structured_content.get("url"))
        for _ in range(3):
            await timed(client, "snapshot", {"session": name})
        await timed(client, "session_close", {"name": name})
        return confirmed


async def stdio_ready(home: Path, env: dict[str, str]) -> float:
    """Seconds from spawning `serve` over stdio to its initialize answer."""
    params = StdioServerParameters(
        command=SERVE[0],
        args=[*SERVE[1:], "--operator-tty", "none", "--profile-root", str(home / "stdio")],
        env=env,
    )
    started = time.perf_counter()
    async with Client(params) as client:
        ready = time.perf_counter() - started
        await client.list_tools()
    return ready


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--stdio-starts", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--free-running",
        action="store_true",
        help="agents click as soon as their own browser is open (default: all at once, "
        "after the last browser opened, the harshest case)",
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            env[variable] = str(home / variable.lower())
        env.pop("SUBTERMINATOR_CONFIG", None)

        ready = [await stdio_ready(home, env) for _ in range(args.stdio_starts)]

        approver = AutoApprover()
        approver.start()
        profiles = home / "profiles"
        child = ServeChild(
            [
                "--http",
                "127.0.0.1:0",
                "--no-auth",
                "--practice",
                "--operator-tty",
                approver.path,
                "--profile-root",
                str(profiles),
                "--max-sessions",
                str(args.sessions),
                "--max-sessions-per-principal",
                str(args.sessions),
            ],
            env,
        )
        timings: dict[str, list[float]] = defaultdict(list)
        memory: tuple[float, int] = (0.0, 0)
        try:
            url = child.wait_listening()
            all_open = AllOpen(args.sessions, lockstep=not args.free_running)
            agents = [
                asyncio.create_task(one_agent(url, i, timings, all_open))
                for i in range(args.sessions)
            ]
            waiting = asyncio.create_task(all_open.event.wait())
            await asyncio.wait([waiting, *agents], return_when=asyncio.FIRST_COMPLETED)
            if waiting.done():
                memory = pss_mib(profiles)
            results = await asyncio.gather(*agents, return_exceptions=True)
        finally:
            child.stop()
        held = sum(1 for r in results if r is True)
        errors = [repr(r) for r in results if isinstance(r, BaseException)]

    report: dict[str, Any] = {
        "sessions": args.sessions,
        "lockstep": not args.free_running,
        "sessions_completed": held,
        "errors": errors,
        "approvals_answered": approver.answered,
        "stdio_ready_seconds": {"median": statistics.median(ready), "all": ready},
        "memory_mib_total": round(memory[0], 1),
        "memory_mib_per_session": round(memory[0] / args.sessions, 1),
        "processes_measured": memory[1],
        "tools": {
            tool: {
                "n": len(values),
                "p50_ms": round(percentile(values, 0.5) * 1000),
                "p95_ms": round(percentile(values, 0.95) * 1000),
            }
            for tool, values in sorted(timings.items())
        },
        "load_average": os.getloadavg(),
    }
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
