"""The profile lock against a real Chromium: a live holder is refused, a stale lock is cleared.

Chromium records the profile's owner in a ``SingletonLock`` symlink whose target
is ``<hostname>-<pid>``. These tests start a real Chromium on the profile (or
write the lock a crashed one leaves behind) and then start the real gateway.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.browser.discovery import running_as_root
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.browser.processes import pid_alive, processes_using_profile
from subterminator_tui.browser.profile_lock import LOCK_FILES, read_lock
from subterminator_tui.errors import ProfileInUseError
from subterminator_tui.practice.demoflix import DemoflixServer
from tests.conftest import wait_until_no_profile_processes

pytestmark = pytest.mark.browser


def wait_for_lock(profile: Path, browser: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Poll until Chromium has written its lock (nothing signals it), or fail."""
    deadline = time.monotonic() + timeout
    while read_lock(profile) is None:
        if browser.poll() is not None:
            stderr = browser.stderr.read().decode(errors="replace") if browser.stderr else ""
            raise AssertionError(f"chromium exited with {browser.returncode}: {stderr[-2000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"chromium wrote no SingletonLock in {profile} within {timeout} s")
        time.sleep(0.05)


def stop(browser: subprocess.Popen[bytes], profile: Path) -> None:
    """Kill the Chromium we started, its whole process group, and wait until it is gone."""
    if browser.poll() is None:
        os.killpg(browser.pid, signal.SIGKILL)
    browser.wait(timeout=30)
    if browser.stderr is not None:
        browser.stderr.close()
    for leftover in wait_until_no_profile_processes(profile):
        os.kill(leftover.pid, signal.SIGKILL)


@pytest.fixture
def other_browser(launch_plan: LaunchPlan) -> Iterator[subprocess.Popen[bytes]]:
    """A Chromium of our own holding the plan's profile, killed (with its children) after."""
    profile = launch_plan.profile_dir
    command = [
        str(launch_plan.browser),
        "--headless",
        *(["--no-sandbox"] if running_as_root() else []),
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "about:blank",
    ]
    browser = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        wait_for_lock(profile, browser)
        yield browser
    finally:
        stop(browser, profile)
        assert wait_until_no_profile_processes(profile) == []


def exited_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    process = subprocess.Popen(["true"])
    process.wait()
    assert not pid_alive(process.pid)
    return process.pid


def write_lock(profile: Path, target: str) -> dict[str, str]:
    """Write Chromium's three singleton symlinks as a browser that held ``profile`` leaves them.

    Returns each link's name and target.
    """
    links = {
        "SingletonLock": target,
        "SingletonCookie": "8219482385939463728",
        "SingletonSocket": "/tmp/.org.chromium.Chromium.gone/SingletonSocket",
    }
    profile.mkdir(parents=True, exist_ok=True)
    for name, link_target in links.items():
        (profile / name).symlink_to(link_target)
    return links


async def test_live_holder_is_refused_naming_profile_and_holder(
    launch_plan: LaunchPlan, other_browser: subprocess.Popen[bytes]
) -> None:
    """A profile another live Chromium holds -> ProfileInUseError naming the path and holder."""
    profile = launch_plan.profile_dir
    locked = read_lock(profile)
    assert locked is not None
    host, pid = locked
    assert host == socket.gethostname()
    with pytest.raises(ProfileInUseError) as caught:
        async with BrowserGateway(launch_plan):
            pass
    message = str(caught.value)
    assert str(profile) in message
    program = Path(os.readlink(f"/proc/{pid}/exe")).name  # e.g. chromium, or chrome
    assert f"{program} (pid {pid})" in message
    assert caught.value.profile_dir == str(profile)


async def test_refusal_leaves_the_other_browser_running(
    launch_plan: LaunchPlan, other_browser: subprocess.Popen[bytes]
) -> None:
    """Refusing the profile neither stops the holder nor touches its lock."""
    before = read_lock(launch_plan.profile_dir)
    with pytest.raises(ProfileInUseError):
        await BrowserGateway(launch_plan).start()
    assert other_browser.poll() is None
    assert before is not None and pid_alive(before[1])
    assert read_lock(launch_plan.profile_dir) == before
    assert processes_using_profile(launch_plan.profile_dir)


async def test_stale_lock_is_cleared_and_the_gateway_starts(
    launch_plan: LaunchPlan, demoflix: DemoflixServer
) -> None:
    """A lock left by a dead process on this host is removed; the browser then works."""
    profile = launch_plan.profile_dir
    dead = exited_pid()
    write_lock(profile, f"{socket.gethostname()}-{dead}")
    async with BrowserGateway(launch_plan) as gateway:
        page = await gateway.call("browser_navigate", {"url": f"{demoflix.base_url}/login"})
        assert page.snapshot.title == "Sign in - Demoflix"
        assert read_lock(profile) not in (None, (socket.gethostname(), dead))
    assert wait_until_no_profile_processes(profile) == []


async def test_stale_lock_clears_all_three_singleton_links(launch_plan: LaunchPlan) -> None:
    """Clearing a stale lock removes SingletonLock, SingletonCookie and SingletonSocket."""
    profile = launch_plan.profile_dir
    stale = write_lock(profile, f"{socket.gethostname()}-{exited_pid()}")
    assert set(stale) == set(LOCK_FILES)
    gateway = BrowserGateway(launch_plan)
    try:
        await gateway.start()
        # Whatever is there now was written by the new browser, not left from the old one.
        left = [
            name
            for name, target in stale.items()
            if (profile / name).is_symlink() and str((profile / name).readlink()) == target
        ]
        assert left == []
    finally:
        await gateway.close()
    assert wait_until_no_profile_processes(profile) == []


async def test_lock_from_another_host_is_refused_naming_the_host(
    launch_plan: LaunchPlan,
) -> None:
    """A lock written on another machine cannot be checked: refused, naming that host."""
    profile = launch_plan.profile_dir
    write_lock(profile, "build-box.example.net-4242")
    with pytest.raises(ProfileInUseError) as caught:
        async with BrowserGateway(launch_plan):
            pass
    assert "a browser on host build-box.example.net (pid 4242)" in str(caught.value)
    assert str(profile) in str(caught.value)
    assert read_lock(profile) == ("build-box.example.net", 4242)
    assert processes_using_profile(profile) == []
