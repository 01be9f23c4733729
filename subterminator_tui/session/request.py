"""What a person asks for, and the checks that run before anything starts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from subterminator_tui.errors import ConfigurationError, ServiceNotFoundError
from subterminator_tui.providers.resolution import (
    configured_model_problem,
    missing_model_reason,
)
from subterminator_tui.reach.urls import site_entry, web_host
from subterminator_tui.rules import (
    ServiceConfig,
    ServiceRegistry,
    domain_allowed,
    generic_service,
    load_services,
    registrable_domain,
    site_url,
)
from subterminator_tui.session.places import check_browser_place
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
    #: A practice site already running at this URL, instead of one started for the run.
    practice_url: str | None = None
    #: A sign-in saved with ``subterminator auth save``, added before the run starts.
    sign_in_file: str | None = None
    #: Any site by its address (``--url``): no services file needed, generic rules verify.
    url: str | None = None
    #: The task for the model instead of the service's own goal (``--goal``).
    goal: str | None = None


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
    service = requested_service(request)
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


def check_practice_service(practice_url: str | None, service: ServiceConfig) -> None:
    """A practice URL only means something for a practice service."""
    if practice_url is not None and not service.practice:
        raise ConfigurationError(
            f"--practice-url applies to practice services; '{service.id}' is not one."
        )


def looks_like_site(text: str) -> bool:
    """Whether a SERVICE argument is an address (``example.com``, ``https://...``), not an id.

    Service ids are single words (``netflix``, ``gauntlet-basic``); a dot, a slash or a
    scheme makes the argument a site.
    """
    return any(mark in text for mark in (".", "/", ":"))


def requested_service(request: RunRequest) -> ServiceConfig:
    """The service ``request`` names: a known id, else any site by its address.

    ``--url`` (or a SERVICE argument that is an address and no service's id) builds a
    service from the address with no services file at all; ``--goal`` replaces the goal.
    ConfigurationError before anything starts for bad addresses and contradictions.
    """
    if request.goal is not None and not request.goal.strip():
        raise ConfigurationError("--goal is empty; describe the task, or leave the option out.")
    if request.url is not None:
        if request.service:
            raise ConfigurationError(
                f"Give a service or --url, not both (got '{request.service}' and "
                f"--url {request.url})."
            )
        return _site_service(request.url, request.goal, request.services)
    registry = load_services([Path(p) for p in request.services])
    if request.service not in registry and looks_like_site(request.service):
        return _site_service(request.service, request.goal, request.services)
    return _with_goal(registry.get(request.service), request.goal)


def _with_goal(service: ServiceConfig, goal: str | None) -> ServiceConfig:
    return service if goal is None else service.model_copy(update={"goal": goal})


def _site_service(address: str, goal: str | None, services: tuple[str, ...]) -> ServiceConfig:
    """Any site's service from its address; a site on this computer goes by its IP.

    A site recorded earlier (``subterminator record`` names it by its registrable
    domain) keeps its playbook, and a site a known service covers (``netflix.com``)
    runs as that service, with its rules: the address given now is where the run
    starts, unless it is the bare site, where the service's own start page is better.
    """
    start_url = site_url(address)
    known = _known_site(start_url, services)
    if known is not None:
        bare = urlsplit(start_url).path in ("", "/") and not urlsplit(start_url).query
        start = {} if bare and known.start_url else {"start_url": start_url}
        return _with_goal(known.model_copy(update=start), goal)
    if (web_host(start_url) or "").endswith("localhost"):
        # A site on this computer is one origin, written by its address, so the services
        # file, the journal and every question name the same place.
        raise ConfigurationError(
            "Sites on this computer are reached by address: use http://127.0.0.1:PORT/... "
            "instead of localhost."
        )
    return generic_service(address, goal=goal)


def _known_site(start_url: str, services: tuple[str, ...]) -> ServiceConfig | None:
    """The one service whose domains hold ``start_url``: a recording of it, else a known one.

    ConfigurationError when several real services claim the site, naming them.
    """
    registry = load_services([Path(p) for p in services])
    recorded = _recorded_site(registrable_domain(start_url), registry)
    if recorded is not None and not domain_allowed(start_url, recorded.allowed_domains):
        # A site on this computer recorded on another port: the address typed now names
        # the origin this run may reach (its port only, as for any local site).
        entry = site_entry(start_url, recorded.id)
        if entry != recorded.id:
            recorded = recorded.model_copy(update={"allowed_domains": (entry,)})
    if recorded is not None and domain_allowed(start_url, recorded.allowed_domains):
        return recorded
    claiming = [
        service
        for service in registry.all()
        if service.practice is None and domain_allowed(start_url, service.allowed_domains)
    ]
    if len(claiming) > 1:
        ids = ", ".join(service.id for service in claiming)
        raise ConfigurationError(
            f"{start_url} belongs to several services ({ids}); name the one to cancel."
        )
    return claiming[0] if claiming else None


def _recorded_site(domain: str, registry: ServiceRegistry) -> ServiceConfig | None:
    """The service a recorded run of ``domain`` left in the services files, if any.

    Only one with a playbook and no practice site counts: that is what ``record``
    writes for a site run by its address.
    """
    try:
        found = registry.get(domain)
    except ServiceNotFoundError:
        return None
    return found if found.playbook and found.practice is None else None
