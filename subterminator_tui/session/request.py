"""What a person asks for, and the checks that run before anything starts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.providers.resolution import (
    configured_model_problem,
    missing_model_reason,
)
from subterminator_tui.rules import ServiceConfig, load_services
from subterminator_tui.session.saved_sign_in import read_sign_in_file
from subterminator_tui.settings import Settings, load_settings

PILOTS = ("auto", "ai", "playbook")


@dataclass(frozen=True)
class RunRequest:
    """One cancellation as a person asked for it (on the command line, in the app, or a bench)."""

    service: str
    model: str | None = None
    pilot: str = "auto"
    max_turns: int | None = None
    dry_run: bool = False
    checkpoints: bool = True
    headless: bool | None = None
    profile_dir: str | None = None
    services: tuple[str, ...] = ()
    #: The benchmark's baseline: every server tool, full snapshots, full history.
    naive: bool = False
    #: A practice site already running at this URL, instead of one started for the run.
    practice_url: str | None = None
    #: A sign-in saved with ``subterminator auth save``, added before the run starts.
    sign_in_file: str | None = None


@dataclass(frozen=True)
class CheckedRequest:
    """A request that passed every check, with the settings and service it resolved to."""

    request: RunRequest
    settings: Settings
    service: ServiceConfig
    #: The saved sign-in the request names, read and narrowed to the service's domains.
    sign_in: dict[str, Any] | None = None

    @property
    def max_turns(self) -> int:
        """The request's limit, else the service's, else the settings'."""
        return self.request.max_turns or self.service.max_turns or self.settings.max_turns

    @property
    def profile_dir(self) -> Path | None:
        """The profile directory the request names, if any."""
        return Path(self.request.profile_dir) if self.request.profile_dir is not None else None


def check_request(request: RunRequest) -> CheckedRequest:
    """Settings and service for ``request``; ConfigurationError before anything starts.

    A bad model name or a missing key fails here. A model named explicitly must
    be usable even when the playbook may never need it.
    """
    if request.pilot not in PILOTS:
        raise ConfigurationError(
            f"Unknown pilot '{request.pilot}'. Use one of: {', '.join(PILOTS)}."
        )
    if request.max_turns is not None and request.max_turns < 1:
        raise ConfigurationError(f"--max-turns must be at least 1 (got {request.max_turns}).")
    check_browser_place(request.profile_dir, request.practice_url)
    settings = load_settings()
    problem = configured_model_problem(settings)
    if problem:
        raise ConfigurationError(problem)
    service = load_services([Path(p) for p in request.services]).get(request.service)
    needs_model = (
        request.pilot == "ai"
        or (request.model is not None and request.pilot != "playbook")
        or (request.pilot == "auto" and not service.playbook)
    )
    missing = missing_model_reason(request.model, settings) if needs_model else None
    if missing:
        raise ConfigurationError(missing)
    if request.pilot == "playbook" and not service.playbook:
        raise ConfigurationError(f"Service '{service.id}' has no playbook; use --pilot ai.")
    check_practice_service(request.practice_url, service)
    sign_in = (
        read_sign_in_file(Path(request.sign_in_file), service)
        if request.sign_in_file is not None
        else None
    )
    return CheckedRequest(request, settings, service, sign_in)


def check_browser_place(profile_dir: str | None, practice_url: str | None) -> None:
    """Refuse an empty profile path and a practice URL that is not on this computer."""
    if profile_dir is not None and not profile_dir.strip():
        raise ConfigurationError(
            "The browser profile directory is empty; pass a directory path to --profile-dir "
            "(or leave it out to use the default profile)."
        )
    if practice_url is not None and not practice_url.startswith(
        ("http://127.0.0.1", "http://localhost")
    ):
        raise ConfigurationError(
            f"--practice-url must be a practice site on this computer, such as "
            f"http://127.0.0.1:8000 (got {practice_url!r})."
        )


def check_practice_service(practice_url: str | None, service: ServiceConfig) -> None:
    """A practice URL only means something for a practice service."""
    if practice_url is not None and not service.practice:
        raise ConfigurationError(
            f"--practice-url applies to practice services; '{service.id}' is not one."
        )
