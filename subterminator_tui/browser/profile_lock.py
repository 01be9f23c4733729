"""Chromium's profile lock: refuse a profile another live browser holds, clear a stale one.

Chromium marks a profile in use with a ``SingletonLock`` symlink whose target
is ``<hostname>-<pid>``. A crash or a SIGKILL leaves it behind, and the next
launch then fails in a confusing way; a live holder means two browsers would
fight over one profile.
"""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path

from subterminator_tui.browser.processes import pid_alive, process_table
from subterminator_tui.errors import ProfileInUseError

LOCK_FILES = ("SingletonLock", "SingletonSocket", "SingletonCookie")


def read_lock(profile_dir: Path) -> tuple[str, int] | None:
    """The (host, pid) recorded in the profile's lock, or None when it is not locked."""
    lock = profile_dir / "SingletonLock"
    try:
        target = str(lock.readlink())
    except (OSError, NotImplementedError):
        return None
    host, _, pid_text = target.rpartition("-")
    if not pid_text.isdigit():
        return None
    return host, int(pid_text)


def _describe(pid: int) -> str:
    for proc in process_table():
        if proc.pid == pid:
            return f"{proc.program} (pid {pid})"
    return f"pid {pid}"


def ensure_profile_free(profile_dir: Path) -> None:
    """Raise ProfileInUseError when a live browser holds the profile; remove a stale lock."""
    recorded = read_lock(profile_dir)
    if recorded is None:
        return
    host, pid = recorded
    if host != socket.gethostname():
        # Another machine (a shared home directory): we cannot check its pid.
        raise ProfileInUseError(str(profile_dir), f"a browser on host {host} (pid {pid})")
    if pid_alive(pid):
        raise ProfileInUseError(str(profile_dir), _describe(pid))
    for name in LOCK_FILES:
        with contextlib.suppress(FileNotFoundError):
            (profile_dir / name).unlink()
