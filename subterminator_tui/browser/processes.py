"""The browser processes behind a profile: find them, and make sure none outlives us.

Playwright launches Chromium in a process group of its own, so killing the
Node server's group never reaches it; and a SIGKILLed Node leaves Chromium
running with the profile locked. The one reliable handle is the profile
directory on Chromium's command line, so cleanup goes by that.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessInfo:
    """One row of the process table."""

    pid: int
    ppid: int
    pgid: int
    state: str
    cmdline: str

    @property
    def alive(self) -> bool:
        """False for zombies, which still show in the table until reaped."""
        return self.state not in ("Z", "X")

    @property
    def program(self) -> str:
        """The executable's base name, e.g. ``chromium``."""
        first = self.cmdline.split(" ", 1)[0]
        return Path(first).name or first


def process_table() -> list[ProcessInfo]:
    """Every process this user can see (``/proc`` on Linux, ``ps`` elsewhere)."""
    # Checked at run time, not by sys.platform, so type checkers keep both paths.
    return _proc_table() if Path("/proc/self/stat").exists() else _ps_table()


def _proc_table() -> list[ProcessInfo]:
    table: list[ProcessInfo] = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="utf-8", errors="replace") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmd:
                cmdline = cmd.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue  # the process ended while we looked
        table.append(
            ProcessInfo(
                pid=int(entry.name),
                state=fields[0],
                ppid=int(fields[1]),
                pgid=int(fields[2]),
                cmdline=cmdline,
            )
        )
    return table


def _ps_table() -> list[ProcessInfo]:
    output = subprocess.run(
        ["ps", "-axo", "pid=,ppid=,pgid=,stat=,command="],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    table: list[ProcessInfo] = []
    for line in output.splitlines():
        parts = line.split(None, 4)
        if len(parts) == 5:
            pid, ppid, pgid, state, command = parts
            table.append(ProcessInfo(int(pid), int(ppid), int(pgid), state[0], command))
    return table


def profile_flag(profile_dir: Path) -> str:
    """The exact argument Playwright passes Chromium for the profile."""
    return f"--user-data-dir={profile_dir}"


def processes_using_profile(profile_dir: Path) -> list[ProcessInfo]:
    """Live processes whose command line names this profile directory."""
    flag = profile_flag(profile_dir)
    return [proc for proc in process_table() if proc.alive and (flag + " " in proc.cmdline + " ")]


def descendants(root_pids: set[int], table: list[ProcessInfo] | None = None) -> list[ProcessInfo]:
    """The processes below ``root_pids`` (not including them)."""
    rows = table if table is not None else process_table()
    children: dict[int, list[ProcessInfo]] = {}
    for proc in rows:
        children.setdefault(proc.ppid, []).append(proc)
    found: list[ProcessInfo] = []
    stack = list(root_pids)
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child.pid)
    return found


def _signal_all(pids: set[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


def _browser_tree(profile_dir: Path) -> set[int]:
    table = process_table()
    flag = profile_flag(profile_dir)
    roots = {p.pid for p in table if p.alive and flag + " " in p.cmdline + " "}
    # Renderer and zygote processes do not always repeat the profile flag, so
    # take the browser's whole process group and every descendant as well.
    groups = {p.pgid for p in table if p.pid in roots}
    members = {p.pid for p in table if p.alive and p.pgid in groups and p.pgid > 1}
    tree = {p.pid for p in descendants(roots | members, table) if p.alive}
    return (roots | members | tree) - {os.getpid()}


def kill_browser_processes(profile_dir: Path, *, patience: float = 0.0, grace: float = 2.0) -> int:
    """Stop every process using ``profile_dir`` and return how many there were.

    First waits up to ``patience`` seconds for the browser to leave on its own
    (after Node dies, Chromium sees its pipe close and shuts down cleanly,
    writing its cookies). Then SIGTERM, then SIGKILL after ``grace`` seconds.
    Waits (bounded) until all are gone.
    """
    targets = _browser_tree(profile_dir)
    if not targets or (patience > 0 and _wait_gone(profile_dir, patience)):
        return len(targets)
    _signal_all(_browser_tree(profile_dir), signal.SIGTERM)
    if not _wait_gone(profile_dir, grace):
        _signal_all(_browser_tree(profile_dir) | targets, signal.SIGKILL)
        _wait_gone(profile_dir, 2.0)
    return len(targets)


def _wait_gone(profile_dir: Path, timeout: float) -> bool:
    # Polling is the only portable way to learn that processes we did not
    # spawn (Chromium is Node's child, or an orphan) have exited.
    deadline = time.monotonic() + timeout
    while True:
        if not _browser_tree(profile_dir):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


def pid_alive(pid: int) -> bool:
    """True when ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text(errors="replace").rsplit(")", 1)[1].split()[0] not in ("Z", "X")
        except (OSError, IndexError):
            return False
    return True
