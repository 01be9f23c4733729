"""How the server runs its sessions: where profiles live, limits, timeouts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from subterminator_tui.serve.health.policy import HealthPolicy
from subterminator_tui.settings import Settings, user_data_dir

#: Defaults from the issue: a browser costs ~300 MiB here, so 8 fit on this 2-core machine.
DEFAULT_MAX_SESSIONS = 8
DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 4
DEFAULT_IDLE_SECONDS = 30 * 60.0
#: A session nobody used for a working day gives its slot back (a principal that went
#: away would otherwise hold its share of the server forever).
DEFAULT_EXPIRY_SECONDS = 8 * 3600.0


def default_profile_root() -> Path:
    """Where the server keeps one browser profile per (principal, session name)."""
    return user_data_dir() / "serve-sessions"


@dataclass(frozen=True)
class ServeConfig:
    """Server-wide choices every session follows."""

    settings: Settings
    profile_root: Path
    #: Per-call output (snapshots, screenshots, the browser's log); None: the user state dir.
    runs_root: Path | None = None
    headless: bool = True
    #: A practice site already running here, used by practice services instead of their own.
    practice_url: str | None = None
    #: Practice services may be opened (each session starts its own practice site); they
    #: are refused otherwise, so no agent opens a browser on this computer's loopback
    #: unless the operator asked for it (``--practice`` or ``--practice-url``).
    practice: bool = False
    max_sessions: int = DEFAULT_MAX_SESSIONS
    max_sessions_per_principal: int = DEFAULT_MAX_SESSIONS_PER_PRINCIPAL
    #: A session idle this long has its browser closed (its profile and last URL stay).
    idle_seconds: float = DEFAULT_IDLE_SECONDS
    #: A session unused this long is closed and its slot freed (its profile stays, so the
    #: same name reopens it); the local operator's own sessions never expire.
    expiry_seconds: float = DEFAULT_EXPIRY_SECONDS
    #: Extra services.toml files, as ``--services`` gives them.
    services: tuple[Path, ...] = ()
    #: Sessions (name, service id) opened for the local principal at start, so a client
    #: that cannot call session_open first (one call per process) still finds one.
    preopen: tuple[tuple[str, str], ...] = ()
    #: Saved sign-ins (session name, file) loaded into those preopened sessions at start.
    sign_ins: tuple[tuple[str, Path], ...] = ()
    #: Sessions may name any site by address (generic rules, that site's domain only).
    any_site: bool = False
    #: The tools offered: serve's own, or Playwright MCP's names, arguments and answers
    #: (``serve --tools playwright``), so an agent written for Playwright MCP works unchanged.
    tools: Literal["native", "playwright"] = "native"
    #: Pings, restarts and their limits for every session's browser.
    health: HealthPolicy = field(default_factory=HealthPolicy)
