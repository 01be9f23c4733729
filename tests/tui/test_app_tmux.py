"""The real CLI in a real terminal: tmux runs ``subterminator cancel demoflix`` and types the keys.

The CLI picks the app only when stdin and stdout are terminals; inside a tmux
pane they are. The test reads the pane as text, as a person reads the screen.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import browser_parts_missing
from tests.support.polling import last_polled

pytestmark = pytest.mark.browser

TMUX = shutil.which("tmux")
CLI = Path(sys.executable).with_name("subterminator")
#: Variables the isolated test home sets; the CLI in the pane gets exactly these and no others.
ISOLATED = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


class Pane:
    """One tmux pane on a private tmux server (its socket in ``directory``), 140x40."""

    def __init__(self, command: str, directory: Path) -> None:
        self.socket = str(directory / "tmux.sock")
        self.command = command

    def tmux(self, *args: str) -> str:
        """Run a tmux command against the private server."""
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-S", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return done.stdout

    def start(self) -> None:
        """Start the server with one detached session running the command."""
        self.tmux("new-session", "-d", "-s", "run", "-x", "140", "-y", "40", self.command)

    def text(self) -> str:
        """What the pane shows now."""
        return self.tmux("capture-pane", "-p", "-t", "run")

    def wait_for(self, *texts: str, within: float = 60.0) -> str:
        """Poll the pane until it shows all of ``texts``; fail showing the pane after ``within``."""
        # Poll interval only: the pane's text decides.
        shown = last_polled(
            self.text, lambda shown: all(text in shown for text in texts), within, every=0.2
        )
        if not all(text in shown for text in texts):
            raise AssertionError(f"the pane never showed {texts}:\n{shown}")
        return shown

    def send(self, key: str) -> None:
        """Type ``key`` into the pane."""
        self.tmux("send-keys", "-t", "run", key)

    def kill(self) -> None:
        """Stop the private server and everything in it."""
        subprocess.run(
            [TMUX or "tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30
        )


def cli_command(profile: Path, home: Path) -> str:
    """The CLI with a clean environment: the test's isolated dirs, no provider keys."""
    variables = {name: os.environ[name] for name in ISOLATED}
    variables.update(
        SUBTERMINATOR_CONFIG=os.environ["SUBTERMINATOR_CONFIG"],
        PATH=os.environ.get("PATH", "/usr/bin:/bin"),
        HOME=str(home),
        LANG="C.UTF-8",
        TERM="screen-256color",
    )
    assignments = " ".join(f"{name}={shlex.quote(value)}" for name, value in variables.items())
    arguments = ["cancel", "demoflix", "--headless", "--profile-dir", str(profile)]
    cli = shlex.join([str(CLI), *arguments])
    # The pane stays open after the CLI exits so its exit code can be read.
    return f"env -i {assignments} {cli}; echo EXIT=$?; sleep 60"


class TestRealTerminal:
    """The whole product as a person runs it."""

    def test_cli_in_tmux_stops_at_the_checkpoint_and_exits_0_after_y_and_q(
        self, tmp_path: Path, isolated_home: Path
    ) -> None:
        """In tmux: the modal names the Finish step, `y` cancels and verifies, `q` exits 0."""
        if TMUX is None:
            pytest.skip("tmux is not installed (Debian package: tmux)")
        missing = browser_parts_missing()
        if missing:
            pytest.skip(missing)
        pane = Pane(cli_command(tmp_path / "profile", isolated_home), tmp_path)
        try:
            pane.start()
            pane.wait_for("Approval required", "Finish cancellation")
            pane.send("y")
            pane.wait_for("completed and verified")
            pane.send("q")
            pane.wait_for("EXIT=")
            shown = pane.text()
        finally:
            pane.kill()
        assert "EXIT=0" in shown
