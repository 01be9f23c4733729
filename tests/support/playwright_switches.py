"""What the pinned Playwright launches Chromium with, read from its own bundle."""

from __future__ import annotations

import re
from pathlib import Path

from subterminator_tui.browser.node import find_playwright_mcp

#: Playwright's list of features it turns off: ``disabledFeatures = [ "...", ... ]``.
_DISABLED_FEATURES = re.compile(r"disabledFeatures = \[(?P<items>[^\]]*)\]")
_STRING = re.compile(r'^\s*"([^"]+)"', re.MULTILINE)


def playwright_disabled_features() -> list[str]:
    """The features the pinned playwright-core passes in its own ``--disable-features``."""
    # playwright-core sits beside @playwright/mcp under the same node_modules.
    node_modules = find_playwright_mcp().cli.parents[2]
    bundle = node_modules / "playwright-core" / "lib" / "coreBundle.js"
    source = Path(bundle).read_text(encoding="utf-8")
    found = _DISABLED_FEATURES.search(source)
    assert found, f"no disabledFeatures list in {bundle}: has the pin moved it?"
    features = _STRING.findall(found["items"])
    assert features, f"an empty disabledFeatures list in {bundle}"
    return features


def last_disabled_features(arguments: list[str]) -> list[str]:
    """The features of the last ``--disable-features`` switch: the one Chromium keeps."""
    switches = [arg for arg in arguments if arg.startswith("--disable-features=")]
    return switches[-1].removeprefix("--disable-features=").split(",") if switches else []
