"""Memory of `serve --http` under stalled unauthenticated uploads (not a test).

    .venv/bin/python benchmarks/stalled_connections.py [--connections 400] [--source DIR]

Starts `subterminator serve --http` (one token, no browser, no operator), then opens
N connections that each send, with no token, a POST /mcp head announcing a megabyte
and all of it but one byte, and then stall. Reports the server's resident memory
before and after, and how each connection was answered within the body deadline's
wait (401 at once when the token is checked first; 408 after the body deadline when
the body is read first). ``--source`` runs another checkout of the code (the same
virtualenv), for the figure before a change.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BODY = 1024 * 1024


def rss_kib(pid: int) -> int:
    """The process's resident set size in KiB."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) if found else 0


async def stall(port: int) -> tuple[asyncio.Task[str], asyncio.StreamWriter]:
    """One connection: the head, the body but its last byte, then nothing; the task that
    reads its answer (started first, so an answer before a reset is seen)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answer = asyncio.create_task(status_of(reader, 40.0))
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {BODY}\r\n\r\n"
    )
    writer.write(head.encode() + b"x" * (BODY - 1))
    return answer, writer


async def status_of(reader: asyncio.StreamReader, within: float) -> str:
    """The status code the connection got, or 'none' within ``within`` seconds."""
    try:
        async with asyncio.timeout(within):
            line = await reader.readline()
    except TimeoutError:
        return "none"
    except ConnectionError:
        return "reset"
    parts = line.split()
    return parts[1].decode() if len(parts) > 1 else "closed"


async def stall_all(pid: int, port: int, connections: int) -> dict[str, object]:
    """Stall ``connections`` uploads against the server ``pid`` on ``port``; the figures."""
    await asyncio.sleep(1.0)  # let start-up allocations settle before the first figure
    before = rss_kib(pid)
    opened = await asyncio.gather(*(stall(port) for _ in range(connections)))
    # A server that answers at once and closes makes some drains fail: that is fine.
    await asyncio.gather(*(w.drain() for _, w in opened), return_exceptions=True)
    await asyncio.sleep(3.0)
    during = rss_kib(pid)
    started = time.monotonic()
    statuses = await asyncio.gather(*(answer for answer, _ in opened))
    waited = time.monotonic() - started
    for _, writer in opened:
        writer.close()
    return {
        "connections": connections,
        "rss_before_mib": round(before / 1024, 1),
        "rss_stalled_mib": round(during / 1024, 1),
        "growth_mib": round((during - before) / 1024, 1),
        "answers": dict(Counter(statuses)),
        "answers_still_awaited_after_the_stall_s": round(waited, 1),
    }


def measure(connections: int, source: Path) -> dict[str, object]:
    """Start the server from ``source``, stall ``connections`` uploads, measure."""
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "PYTHONPATH": str(source), "XDG_CONFIG_HOME": home}
        env["SUBTERMINATOR_JOURNAL"] = str(Path(home) / "journal.sqlite3")
        tokens = Path(home) / "tokens.json"
        subprocess.run(
            [sys.executable, "-m", "subterminator_tui", "serve", "--tokens", str(tokens),
             "--new-token", "alice"],
            cwd=source, env=env, check=True, capture_output=True,
        )  # fmt: skip
        child = subprocess.Popen(
            [sys.executable, "-m", "subterminator_tui", "serve", "--http", "127.0.0.1:0",
             "--tokens", str(tokens), "--operator-tty", "none"],
            cwd=source, env=env, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            assert child.stderr is not None
            line = ""
            while not line.startswith("listening on "):
                line = child.stderr.readline()
                if not line:
                    raise SystemExit("the server did not start")
            port = int(line.split(":")[-1].split("/")[0])
            figures = asyncio.run(stall_all(child.pid, port, connections))
        finally:
            child.terminate()
            child.wait(15)
    return {"source": str(source), **figures}


def main() -> None:
    """Parse the options, measure, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=400)
    parser.add_argument("--source", type=Path, default=ROOT)
    args = parser.parse_args()
    print(json.dumps(measure(args.connections, args.source.resolve()), indent=2))


if __name__ == "__main__":
    main()
