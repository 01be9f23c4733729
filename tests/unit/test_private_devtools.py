"""How the browser's private DevTools are chosen, named and reported (``private_devtools.py``)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest

from subterminator_tui.browser import private_devtools
from subterminator_tui.browser.namespace_launcher import loopback_proxy_port, profile_dir
from subterminator_tui.browser.private_devtools import (
    UnixSocketCDPClient,
    devtools_client,
    private_devtools_possible,
    unix_endpoint,
)
from subterminator_tui.cli import doctor
from tests.support.launch_plans import make_plan


def test_a_unix_endpoint_names_the_socket_and_chromiums_path() -> None:
    """The ws+unix form keeps Chromium's browser path, and the client reads both back."""
    endpoint = unix_endpoint(
        Path("/tmp/d/devtools.sock"), "ws://127.0.0.1:40123/devtools/browser/a"
    )
    assert endpoint == "ws+unix:///tmp/d/devtools.sock:/devtools/browser/a"
    client = devtools_client(endpoint)
    assert isinstance(client, UnixSocketCDPClient)
    assert client.socket_path == "/tmp/d/devtools.sock"
    assert client.url == "ws://localhost/devtools/browser/a"


def test_a_tcp_endpoint_keeps_the_plain_client() -> None:
    """A ws:// endpoint (no namespace here) is opened over TCP as before."""
    client = devtools_client("ws://127.0.0.1:40123/devtools/browser/a")
    assert not isinstance(client, UnixSocketCDPClient)


def test_only_a_browser_behind_a_loopback_proxy_goes_private(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Inside the namespace the proxy is the only way out: no proxy, no namespace."""
    monkeypatch.setattr(private_devtools, "namespaces_available", lambda: True)
    assert private_devtools_possible("http://127.0.0.1:4321")
    assert not private_devtools_possible(None)
    assert not private_devtools_possible("http://proxy.example:3128")


def test_without_namespaces_the_browser_keeps_its_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel that makes no namespace: the fallback, today's port."""
    monkeypatch.setattr(private_devtools, "namespaces_available", lambda: False)
    assert not private_devtools_possible("http://127.0.0.1:4321")


def test_playwright_starts_the_launcher_when_devtools_are_private(tmp_path: Path) -> None:
    """``--executable-path`` is the run's launcher script, not Chromium itself."""
    plan = dataclasses.replace(make_plan(tmp_path), private_devtools=True)
    arguments = plan.arguments()
    assert arguments[arguments.index("--executable-path") + 1] == str(plan.browser_launcher)


def test_the_launcher_reads_chromiums_proxy_and_profile() -> None:
    """The forwarder listens on the proxy's own port inside the namespace."""
    args = ["--proxy-server=http://127.0.0.1:4321", "--user-data-dir=/p", "--headless"]
    assert loopback_proxy_port(args) == 4321
    assert loopback_proxy_port(["--proxy-server=http://10.0.0.1:3128"]) is None
    assert profile_dir(args) == "/p"


def test_doctor_warns_when_devtools_stay_on_a_port(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No namespace here: a warning line that says what any local process can do, exit 0."""
    monkeypatch.setattr(private_devtools, "namespaces_available", lambda: False)
    (check,) = [check for check in doctor.gather_checks() if check.name == "DevTools"]
    assert not check.ok and not check.essential
    assert "can drive it" in check.detail
    doctor.run_doctor(argparse.Namespace())
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "DevTools" in line]
    assert line.startswith("[warn]")


def test_a_window_on_a_tcp_x_server_keeps_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ssh -X`` (DISPLAY=localhost:10.0) is not reachable from a namespace; a local one is."""
    monkeypatch.setattr(private_devtools, "namespaces_available", lambda: True)
    monkeypatch.setenv("DISPLAY", "localhost:10.0")
    assert not private_devtools_possible("http://127.0.0.1:4321", headless=False)
    assert private_devtools_possible("http://127.0.0.1:4321", headless=True)
    monkeypatch.setenv("DISPLAY", ":0")
    assert private_devtools_possible("http://127.0.0.1:4321", headless=False)
