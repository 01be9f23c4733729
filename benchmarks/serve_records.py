"""Measure serve's call records and restarts (not a test: no speed asserts).

    .venv/bin/python benchmarks/serve_records.py [--calls 100] [--reads 500] [--json F]
                                                 [--journal-only]

1. Journal growth: a ``serve`` child over stdio (the SDK's client) on demoflix makes
   ``--calls`` browser calls (navigate /account and snapshot, alternately); the
   journal's size is taken before and after, each time after the server exited and
   the WAL was checkpointed into the file. Since journal version 5 a served call's page
   is stored once (in its call record, not also in its turn): 1348 KiB per 100 calls
   before, 828 KiB after, on this machine.
2. get_content latency, two ways: the MCP Inspector CLI's ``--load`` (a stdio server
   of its own on the same journal: records outlive servers) calling get_content on
   one ref, full each time (reset_cursor) and unchanged (same ref again); and the SDK
   client in one session reading diffs between consecutive refs. p50/p95/p99 each.
3. Restart to ready: in-process (the real server, the real default policy: 1, 2, 4 s
   backoff), the session's Node is SIGKILLed three times; from the kill to a new
   browser on the last page, and the restart alone (browser start to page open).

Goals: get_content p99 <= 50 ms; restart <= 3 s plus the backoff.
Other processes on the machine skew every figure: say what else ran.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import apsw
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.practice.demoflix import DemoflixServer  # noqa: E402
from subterminator_tui.serve.config import ServeConfig  # noqa: E402
from subterminator_tui.serve.names import LOCAL_PRINCIPAL  # noqa: E402
from subterminator_tui.serve.server.lifecycle import server_parts  # noqa: E402
from subterminator_tui.settings import load_settings  # noqa: E402
from tests.support.serve_clients import INSPECTOR, child_environment  # noqa: E402

SERVE = [sys.executable, "-m", "subterminator_tui", "serve"]


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50/p95/p99 in milliseconds."""
    ordered = sorted(samples)
    at = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return {"n": len(ordered), "p50_ms": at(0.5), "p95_ms": at(0.95), "p99_ms": at(0.99)}


def journal_bytes(path: Path) -> int:
    """The journal's size with its WAL folded in."""
    db = apsw.Connection(str(path))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path.stat().st_size


def params(home: Path, site: DemoflixServer) -> StdioServerParameters:
    """A serve child on this home's journal and the practice site."""
    args = [*SERVE[1:], "--operator-tty", "none", "--practice-url", site.base_url]
    args += ["--profile-root", str(home / "profiles")]
    return StdioServerParameters(command=SERVE[0], args=args, env=child_environment(home))


async def make_calls(home: Path, site: DemoflixServer, calls: int) -> tuple[list[str], list[float]]:
    """``calls`` browser calls in one session; their ref_ids and the SDK's diff-read times."""
    refs: list[str] = []
    reads: list[float] = []
    async with Client(params(home, site)) as client:
        await client.call_tool("session_open", {"name": "bench", "service": "demoflix"})
        for index in range(calls):
            if index % 2 == 0:
                result = await client.call_tool("navigate", {"session": "bench", "url": "/account"})
            else:
                result = await client.call_tool("snapshot", {"session": "bench"})
            assert result.structured_content is not None
            refs.append(str(result.structured_content["ref_id"]))
        for ref in refs:
            started = time.perf_counter()
            read = await client.call_tool("get_content", {"ref_id": ref})
            reads.append(time.perf_counter() - started)
            assert not read.is_error
        await client.call_tool("session_close", {"name": "bench"})
    return refs, reads


def inspector_load(home: Path, site: DemoflixServer, ref: str, reset: bool, requests: int) -> str:
    """The Inspector CLI's --load summary for get_content on ``ref``."""
    p = params(home, site)
    command = [str(INSPECTOR), "--cli", p.command, *p.args]
    command += ["--load", "--load-requests", str(requests), "--load-concurrency", "1"]
    command += ["--method", "tools/call", "--tool-name", "get_content"]
    # The Inspector gives its server only a safe subset of its own environment.
    for key, value in (p.env or {}).items():
        if key.startswith(("SUBTERMINATOR_", "XDG_")):
            command += ["-e", f"{key}={value}"]
    command += ["--tool-arg", f"ref_id={ref}"]
    if reset:
        command += ["--tool-arg", "reset_cursor=true"]
    env = {**(p.env or {}), "HOME": str(home)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    return (done.stdout + done.stderr).strip()


async def restart_times(home: Path, site: DemoflixServer, kills: int) -> dict[str, Any]:
    """Kill the session's Node ``kills`` times under the default policy; the times."""
    config = ServeConfig(
        settings=load_settings(journal=home / "restart.sqlite3"),
        profile_root=home / "restart-profiles",
        runs_root=home / "runs",
        practice_url=site.base_url,
    )
    to_ready: list[float] = []
    async with server_parts(config) as parts, Client(parts.server) as client:
        await client.call_tool("session_open", {"name": "main", "service": "demoflix"})
        await client.call_tool("navigate", {"session": "main", "url": "/account"})
        session = parts.registry.get(LOCAL_PRINCIPAL, "main")
        for _ in range(kills):
            gateway = session.lazy.gateway
            assert gateway is not None and gateway.node_pid is not None
            node = gateway.node_pid
            killed = time.perf_counter()
            os.kill(node, signal.SIGKILL)
            while True:
                fresh = session.lazy.gateway
                if (
                    fresh is not None
                    and fresh.node_pid not in (None, node)
                    and session.health.state == "ready"
                    and session.in_flight is None
                ):
                    break
                await asyncio.sleep(0.01)
            to_ready.append(time.perf_counter() - killed)
        restart_only = list(session.health.restart_seconds)
    return {
        "kill_to_ready_s": [round(t, 2) for t in to_ready],
        "restart_only_s": [round(t, 2) for t in restart_only],
        "backoff_s": list(config.health.backoff),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--journal-only", action="store_true", help="measure the journal's growth only (1.)"
    )
    args = parser.parse_args()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder, DemoflixServer(["remembered"]) as site:
        home = Path(folder)
        journal = home / "journal.sqlite3"
        await make_calls(home, site, 2)
        before = journal_bytes(journal)
        refs, reads = await make_calls(home, site, args.calls)
        after = journal_bytes(journal)
        figures["journal"] = {
            "calls": args.calls,
            "growth_bytes": after - before,
            "per_100_calls_kib": round((after - before) / args.calls * 100 / 1024, 1),
        }
        if not args.journal_only:
            figures["get_content_sdk_diffs"] = percentiles(reads)
            for reset in (True, False):
                summary = inspector_load(home, site, refs[-1], reset, args.reads)
                name = "inspector_load_full" if reset else "inspector_load_unchanged"
                figures[name] = summary
            figures["restarts"] = await restart_times(home, site, args.kills)
    for key, value in figures.items():
        if isinstance(value, str):
            print(f"{key}:\n{re.sub(r'(?m)^', '  ', value)}")
        else:
            print(f"{key}: {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
