"""Shared fixtures: an isolated home for every test, and the real browser parts when present."""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from subterminator_tui.browser.discovery import find_browser, install_command
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.launch import LaunchPlan, plan_launch
from subterminator_tui.browser.processes import ProcessInfo, processes_using_profile
from subterminator_tui.errors import ConfigurationError, MCPToolError
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.settings import load_settings
from tests.support.cpu_ledger import CpuLedger, ledger_directory, measure_start
from tests.support.isolation import isolate
from tests.support.polling import last_polled
from tests.support.shared_browser import SharedBrowser


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point every platformdirs location and the config file at a fresh directory."""
    return isolate(tmp_path_factory.mktemp("home"), monkeypatch)


# Once per worker: the answer runs `node --version`, and the machine's browser, Node and
# pinned package do not change during a run (each test's isolated home leaves them alone).
@functools.cache
def browser_parts_missing() -> str | None:
    """Why the real-browser tests cannot run here, or None when they can."""
    if find_browser() is None:
        return f"no Chrome or Chromium on this machine (install: {install_command()})"
    try:
        plan_launch_check()
    except ConfigurationError as error:
        return str(error)
    return None


def plan_launch_check() -> None:
    """Resolve Node and the pinned package without starting anything."""
    from subterminator_tui.browser.node import find_node, find_playwright_mcp

    find_node()
    find_playwright_mcp()


@pytest.fixture
def launch_plan(tmp_path: Path) -> LaunchPlan:
    """A headless launch plan with a private profile and run directory."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    return plan_launch(
        load_settings(),
        headless=True,
        profile_dir=tmp_path / "profile",
        runs_root=tmp_path / "runs",
    )


def wait_until_no_profile_processes(profile: Path, timeout: float = 5.0) -> list[ProcessInfo]:
    """Processes still using ``profile`` after up to ``timeout`` seconds (empty is good).

    Polling, because nothing signals the exit of processes another program started.
    """
    return last_polled(lambda: processes_using_profile(profile), lambda left: not left, timeout)


@pytest.fixture
async def gateway(launch_plan: LaunchPlan) -> AsyncIterator[BrowserGateway]:
    """A started gateway; after the test, no process may still use its profile."""
    async with BrowserGateway(launch_plan) as started:
        yield started
    assert wait_until_no_profile_processes(launch_plan.profile_dir) == []


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def module_browser(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BrowserGateway]:
    """One started gateway for a module's tests that need no fresh browser.

    Starting Chromium and Playwright MCP is most of such a test's time; a test about a
    fresh profile, a crash, a restart or the processes keeps ``gateway`` instead.
    """
    async with module_gateway(tmp_path_factory.mktemp("module-browser")) as started:
        yield started


@contextlib.asynccontextmanager
async def module_gateway(
    root: Path, *, proxy_server: str | None = None
) -> AsyncIterator[BrowserGateway]:
    """A headless gateway for a whole module: its own home and profile under ``root``
    (through ``proxy_server`` when given); after it, no process may still use the profile.
    """
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    # Module-scoped, so the function-scoped isolated home does not apply yet: the same
    # isolation holds here while the browser lives (its children inherit it).
    with pytest.MonkeyPatch.context() as patch:
        isolate(root / "home", patch)
        plan = plan_launch(
            load_settings(),
            headless=True,
            profile_dir=root / "profile",
            runs_root=root / "runs",
            proxy_server=proxy_server,
        )
        async with BrowserGateway(plan) as started:
            yield started
    assert wait_until_no_profile_processes(plan.profile_dir) == []


@pytest_asyncio.fixture(loop_scope="module")
async def shared_gateway(module_browser: BrowserGateway) -> BrowserGateway:
    """The module's browser on a blank page, so every test starts from the same known page.

    A test using it runs in the module's event loop: mark it ``in_module_loop``.
    """
    for _ in range(3):
        # A page the last test left still arriving can interrupt the first try.
        with contextlib.suppress(MCPToolError):
            await module_browser.call("browser_navigate", {"url": "about:blank"})
            break
    assert (await module_browser.snapshot()).url == "about:blank"
    return module_browser


@pytest_asyncio.fixture(loop_scope="session", scope="session")
async def shared_runs(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SharedBrowser]:
    """One browser for a worker's guarded runs (``prepared_run(..., start_browser=...)``),
    reset between them; after the last, no process may still use its profiles.

    The worker's, not each module's: xdist's work stealing splits a module over two to four
    workers, and each of them started the module's own browser (15 starts a run where five
    do). A run whose launch wishes differ from the browser's gets a fresh one
    (``SharedBrowser``). A test using it runs in the worker's event loop: mark it
    ``in_worker_loop``.
    """
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    shared = SharedBrowser(tmp_path_factory.mktemp("shared-runs"))
    try:
        yield shared
    finally:
        await shared.aclose()
    for profile in shared.root.glob("profile-*"):
        assert wait_until_no_profile_processes(profile) == []


#: The event loop a test on ``shared_gateway`` runs in: the module's, where its browser lives.
in_module_loop = pytest.mark.asyncio(loop_scope="module")
#: The event loop a test on ``shared_runs`` runs in: the worker's, where its browser lives.
in_worker_loop = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture
def demoflix() -> Iterator[DemoflixServer]:
    """The practice site on a free loopback port."""
    with DemoflixServer() as server:
        yield server


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collecting built is left out of the cyclic garbage collector's passes, and the
    passes come less often.

    Every module, item, schema and table collected is alive to the end: most of a
    worker's objects. Each full pass walked them all (about 0.25 CPU s, a dozen or more
    times per worker, five more as pytest ends), and young objects were looked at every
    700 allocations: together some 12% of a worker's CPU, now half that. Objects the tests
    make are collected as before, a little later; a test that needs a collection at a
    given moment asks for one (``gc.collect()``).
    """
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


_CPU_LEDGER_DIRECTORY = ledger_directory()
_CPU_LEDGER = CpuLedger(_CPU_LEDGER_DIRECTORY) if _CPU_LEDGER_DIRECTORY else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """With the CPU ledger on, note each test's CPU seconds, set-up and teardown included."""
    if _CPU_LEDGER is None:
        yield
        return
    cpu_before, wall_before = measure_start()
    yield
    cpu_after, wall_after = measure_start()
    _CPU_LEDGER.record(item.nodeid, cpu_after - cpu_before, wall_after - wall_before)
