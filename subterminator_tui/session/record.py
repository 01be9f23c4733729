"""``record``: a verified run in the journal becomes its service's playbook in the user's file.

The next run of that service replays the steps without a model while they match the
pages, and the AI takes over at the first one that does not (the ``auto`` pilot). The
service is written whole, as the files define it now plus the playbook, so the user's
file alone defines it; a site run by its address gets a service of its own, named by
its registrable domain (``subterminator cancel example.com`` then finds it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.journal.store import Journal, RunRow
from subterminator_tui.reach.urls import site_entry
from subterminator_tui.rules.generic import default_goal, site_name
from subterminator_tui.rules.loader import load_services, service_table, user_services_file
from subterminator_tui.rules.recording import RecordedPlaybook, record_steps
from subterminator_tui.rules.sites import registrable_domain
from subterminator_tui.rules.user_file import write_user_service
from subterminator_tui.session.request import looks_like_site

# Ids are typed on the command line (`cancel ID`): one word, a domain included.
_SERVICE_ID = re.compile(r"[A-Za-z0-9][\w.-]*")


@dataclass(frozen=True)
class RecordedService:
    """What ``record`` wrote, and where."""

    service_id: str
    path: Path
    recorded: RecordedPlaybook
    replaced: bool


def record_playbook(
    journal: Journal,
    run_id: int,
    *,
    service_id: str | None = None,
    services: Sequence[Path] = (),
    user_file: Path | None = None,
) -> RecordedService:
    """Record run ``run_id`` as the playbook of ``service_id`` (default: the run's service).

    ConfigurationError, with nothing written, for an unknown or unverified run, a run
    with nothing to replay, or a service no file defines any more.
    """
    run = journal.run(run_id)
    if run is None:
        raise ConfigurationError(f"No run {run_id} in the journal ({journal.path}).")
    if not (run.reason == "completed" and run.success and run.verified):
        raise ConfigurationError(
            f"Run {run_id} did not end in a verified cancellation ({run.reason or 'unfinished'}); "
            "only a verified run is recorded as a playbook."
        )
    recorded = record_steps(journal.turns(run_id), run.start_url, run_id)
    if not recorded.steps:
        raise ConfigurationError(
            f"Run {run_id} has no step to replay (it took no action on the page); nothing "
            "was written."
        )
    target = service_id or run.service
    if not _SERVICE_ID.fullmatch(target):
        raise ConfigurationError(
            f"'{target}' cannot be a service id: use letters, digits, '-', '_' and '.' only."
        )
    path = user_file or user_services_file()
    table = _base_table(run, target, services, path)
    table["playbook"] = recorded.steps
    replaced = write_user_service(path, target, table)
    return RecordedService(target, path, recorded, replaced)


def _base_table(
    run: RunRow, target: str, services: Sequence[Path], user_file: Path
) -> dict[str, Any]:
    """The service's keys as the files define it now, or a site's built from its address."""
    known = load_services(services, user_file=user_file, practice_scenarios=True)
    for source in dict.fromkeys((target, run.service)):
        if source in known:
            return service_table(source, services, user_file=user_file, practice_scenarios=True)
    if run.start_url and looks_like_site(run.service):
        domain = registrable_domain(run.start_url)
        name = site_name(domain)
        return {
            "name": name,
            "start_url": run.start_url,
            "allowed_domains": [site_entry(run.start_url, domain)],
            "goal": default_goal(name),
            "generic_rules": True,
        }
    raise ConfigurationError(
        f"Run {run.id} was of '{run.service}', which no services file defines any more; "
        "name the service to record it for with --service."
    )
