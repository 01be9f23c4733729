"""The compiled bundles Node keeps between Playwright MCP's starts (node_code_cache.js).

Run with the real Node and the pinned package: the cache is written once, taken back
as it is, replaced when V8 refuses it, and never stands in for other code than the
bundle's own, which V8's own check alone would allow (the last test shows it does).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from subterminator_tui.browser.launch import NODE_CODE_CACHE_HOOK, NODE_CODE_CACHE_VARIABLE
from subterminator_tui.browser.node import find_node, find_playwright_mcp

pytestmark = pytest.mark.browser


def node() -> str:
    return str(find_node().executable)


def start(cache: Path | None, *command: str) -> subprocess.CompletedProcess[str]:
    """``node --require HOOK COMMAND...`` with the cache in ``cache`` (None: no variable)."""
    environment = {"PATH": "/usr/bin:/bin"}
    if cache is not None:
        environment[NODE_CODE_CACHE_VARIABLE] = str(cache)
    return subprocess.run(
        [node(), "--require", str(NODE_CODE_CACHE_HOOK), *command],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def kept(cache: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(cache.glob("*.v8"))}


def help_text(cache: Path | None) -> str:
    result = start(cache, str(find_playwright_mcp().cli), "--help")
    assert result.returncode == 0, result.stderr
    assert "Playwright MCP" in result.stdout or "--headless" in result.stdout
    return result.stdout


def test_the_bundles_are_kept_once_and_taken_back_as_they_are(tmp_path: Path) -> None:
    """The first start keeps both bundles (private files in a private folder); the
    next starts the same and leaves them untouched: V8 took them (a refused file would
    have been written again)."""
    cache = tmp_path / "cache"
    first_help = help_text(cache)
    first = kept(cache)
    assert sorted(name.split("-")[0] for name in first) == ["coreBundle", "utilsBundle"]
    assert all(len(data) > 100_000 for data in first.values())
    assert cache.stat().st_mode & 0o777 == 0o700
    assert {path.stat().st_mode & 0o777 for path in cache.iterdir()} == {0o600}
    stamps = {path.name: path.stat().st_mtime_ns for path in cache.iterdir()}
    assert help_text(cache) == first_help
    assert kept(cache) == first
    assert {path.name: path.stat().st_mtime_ns for path in cache.iterdir()} == stamps


def test_a_damaged_cache_is_refused_and_written_again(tmp_path: Path) -> None:
    """Garbage under a bundle's name: the server starts as without a cache and the
    file is replaced by a good one."""
    cache = tmp_path / "cache"
    expected = help_text(cache)
    good = kept(cache)
    for name in good:
        (cache / name).write_bytes(b"\x00garbage" * 1000)
    assert help_text(cache) == expected
    again = kept(cache)
    assert set(again) == set(good)
    assert all(len(data) > 100_000 for data in again.values())
    assert not any(data.startswith(b"\x00garbage") for data in again.values())


def test_without_a_usable_folder_the_server_starts_all_the_same(tmp_path: Path) -> None:
    """No variable, or a folder that cannot be made (a file in its way): no cache and
    the same start."""
    expected = help_text(None)
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    assert help_text(blocked / "cache") == expected
    assert not list(tmp_path.rglob("*.v8"))


def test_an_older_cache_of_a_bundle_goes_when_a_new_one_is_kept(tmp_path: Path) -> None:
    """An upgraded package leaves its old caches behind only until the next start."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    stale = cache / ("coreBundle-" + "0" * 64 + ".v8")
    stale.write_bytes(b"an older build")
    help_text(cache)
    assert not stale.exists()
    assert len(kept(cache)) == 2


def fake_bundle(root: Path, text: str) -> Path:
    """A module laid out as a Playwright bundle is (playwright-core/lib/coreBundle.js)."""
    bundle = root / "node_modules" / "playwright-core" / "lib" / "coreBundle.js"
    bundle.parent.mkdir(parents=True, exist_ok=True)
    bundle.write_text(text, encoding="utf-8")
    return bundle


def test_a_changed_bundle_of_the_same_length_never_runs_the_old_code(tmp_path: Path) -> None:
    """The cache is named by the bundle's whole text: a bundle changed in place, to the
    same length, runs its own code. V8's own check compares only the length: handed
    the old cache, V8 takes it and runs the old code (shown below with vm.Script), which
    is why the name holds the text's digest."""
    cache = tmp_path / "cache"
    old = "module.exports = 'old code';\n"
    new = "module.exports = 'NEW CODE';\n"
    assert len(old) == len(new)
    bundle = fake_bundle(tmp_path, old)
    program = f"console.log(require({str(bundle)!r}))"
    assert start(cache, "-e", program).stdout == "old code\n"
    assert len(kept(cache)) == 1
    assert start(cache, "-e", program).stdout == "old code\n"
    bundle.write_text(new, encoding="utf-8")
    assert start(cache, "-e", program).stdout == "NEW CODE\n"

    # The attack the digest stops: V8 accepts one text's cache for another of its length.
    attack = (
        "const vm = require('vm');"
        f"const a = new vm.Script({old!r}.replace('module.exports = ', ''));"
        "a.runInThisContext();"
        "const data = a.createCachedData();"
        f"const b = new vm.Script({new!r}.replace('module.exports = ', ''), {{cachedData: data}});"
        "console.log(b.cachedDataRejected, b.runInThisContext());"
    )
    result = subprocess.run(
        [node(), "-e", attack], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout == "false old code\n"
