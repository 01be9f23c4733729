"""The switches and files a run's browser is launched with (``browser/hardening.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from subterminator_tui.browser.hardening import SOCKET_REFUSAL_DIR, write_browser_config


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
