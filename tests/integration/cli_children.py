"""Children of ``python -m subterminator_tui`` for the CLI tests: started, fed, read, reaped."""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from subterminator_tui.browser.processes import processes_using_profile
from tests.fakes.provider_env import PROVIDER_VARIABLES
from tests.support.warm_children import WarmPopen

#: The checkpoint prompt of a playbook run (no model reads guidance, so none is offered).
PROMPT = "Approve? [y/N]: "
#: A whole run takes seconds; this only stops a hung child from hanging the suite.
RUN_TIMEOUT = 120.0


@dataclass(frozen=True)
class Finished:
    """A child that ran to its end."""

    code: int
    stdout: str
    stderr: str


@dataclass
class Cli:
    """Starts ``python -m subterminator_tui`` children that share one private profile."""

    profile: Path
    home: Path
    children: list[subprocess.Popen[bytes]] = field(default_factory=list)
    #: The environment the children start from; None: this process's at the time (the
    #: test's isolated home). A runner that outlives one test keeps the home it began in.
    environment: dict[str, str] | None = None

    def env(self, **extra: str) -> dict[str, str]:
        """The isolated environment without the developer's provider keys, plus ``extra``."""
        base = os.environ if self.environment is None else self.environment
        env = {k: v for k, v in base.items() if k not in PROVIDER_VARIABLES}
        env.update(extra)
        return env

    def cancel_args(self, service: str, *more: str) -> list[str]:
        """``cancel SERVICE --headless --profile-dir PROFILE ...``."""
        return ["cancel", service, "--headless", "--profile-dir", str(self.profile), *more]

    def start(self, args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """A running child with stdin, stdout and stderr piped (forked warm: see WarmPopen)."""
        child = WarmPopen(
            [sys.executable, "-m", "subterminator_tui", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env if env is not None else self.env(),
        )
        self.children.append(child)
        return child

    def run(
        self, args: list[str], *, stdin: bytes = b"", env: dict[str, str] | None = None
    ) -> Finished:
        """Run a child to its end; ``stdin`` is written and then closed (end of input)."""
        child = self.start(args, env)
        stdout, stderr = child.communicate(stdin, timeout=RUN_TIMEOUT)
        return Finished(child.returncode, stdout.decode(), stderr.decode())

    def journal_files(self) -> list[Path]:
        """The journal database and its WAL/SHM companions in the isolated state dir."""
        state = self.home / "xdg_state_home" / "subterminator"
        return sorted(state.glob("journal.sqlite3*"))


def read_until(child: subprocess.Popen[bytes], marker: str, timeout: float = 60.0) -> str:
    """Read the child's stdout until ``marker`` appears; fail after ``timeout`` seconds."""
    assert child.stdout is not None
    output = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(child.stdout, selectors.EVENT_READ)
        while marker.encode() not in output:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise AssertionError(f"no {marker!r} within {timeout} s; got {output!r}")
            chunk = os.read(child.stdout.fileno(), 4096)
            if not chunk:
                stderr = child.stderr.read() if child.stderr else b""
                raise AssertionError(f"the child ended early: {output!r} {stderr!r}")
            output += chunk
    return output.decode()


def assert_no_browser_started(profile: Path) -> None:
    """Nothing uses the profile, and no browser ever wrote to it (it may not even exist)."""
    assert processes_using_profile(profile) == []
    assert not profile.exists() or not any(profile.iterdir())
