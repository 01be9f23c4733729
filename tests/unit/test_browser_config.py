"""The switches and files a run's browser is launched with (``browser/hardening.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from subterminator_tui.browser.hardening import (
    HARDENING_FEATURES,
    HEADLESS_UNUSED_FEATURES,
    SOCKET_REFUSAL_DIR,
    write_browser_config,
)
from tests.support.playwright_switches import last_disabled_features, playwright_disabled_features


def launch_args(config: Path) -> list[str]:
    """Chromium's switches from Playwright MCP's config file."""
    loaded = json.loads(config.read_text(encoding="utf-8"))
    args = loaded["browser"]["launchOptions"]["args"]
    assert isinstance(args, list)
    return [str(arg) for arg in args]


def test_a_hardened_browser_loads_only_the_socket_refusal(tmp_path: Path) -> None:
    """The extension is written beside the config and is the only one Chromium may load."""
    args = launch_args(write_browser_config(tmp_path / "config.json"))
    extension = tmp_path / SOCKET_REFUSAL_DIR
    assert f"--load-extension={extension}" in args
    assert f"--disable-extensions-except={extension}" in args
    manifest = json.loads((extension / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["manifest_version"] == 3
    assert manifest["permissions"] == ["declarativeNetRequest"]
    resource = manifest["declarative_net_request"]["rule_resources"][0]
    rules = json.loads((extension / resource["path"]).read_text(encoding="utf-8"))
    assert rules == [
        {
            "id": 1,
            "priority": 1,
            "action": {"type": "block"},
            # Every socket, from any frame, worker or origin: no domain condition.
            "condition": {"resourceTypes": ["websocket", "webtransport"]},
        }
    ]


def test_an_unprotected_browser_loads_no_extension(tmp_path: Path) -> None:
    """The proof that an attack works turns every protection off, the refusal included."""
    args = launch_args(write_browser_config(tmp_path / "config.json", hardened=False))
    assert not any("extension" in arg for arg in args)
    assert "--disable-quic" not in args
    assert not (tmp_path / SOCKET_REFUSAL_DIR).exists()


@pytest.mark.parametrize(("hardened", "headless"), [(True, True), (True, False), (False, True)])
def test_our_features_join_playwrights_own_in_one_switch(
    tmp_path: Path, hardened: bool, headless: bool
) -> None:
    """Chromium keeps the last --disable-features: ours must carry Playwright's list too."""
    args = launch_args(
        write_browser_config(tmp_path / "c.json", hardened=hardened, headless=headless)
    )
    assert len([arg for arg in args if arg.startswith("--disable-features=")]) == 1
    features = last_disabled_features(args)
    missing = set(playwright_disabled_features()) - set(features)
    assert not missing, f"Playwright's own features switched back on: {sorted(missing)}"
    assert (set(HARDENING_FEATURES) <= set(features)) is hardened
    assert (set(HEADLESS_UNUSED_FEATURES) <= set(features)) is headless
    assert len(features) == len(set(features))


def test_a_headed_unprotected_browser_keeps_playwrights_switch_alone(tmp_path: Path) -> None:
    """With nothing of ours to turn off, no second list is given: Playwright's stands."""
    config = write_browser_config(tmp_path / "c.json", hardened=False, headless=False)
    assert not last_disabled_features(launch_args(config))
