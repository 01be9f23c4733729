"""Read ``services.toml`` files into a ServiceRegistry.

Files load in this order: the built-in ``services.toml`` (the real services: Netflix
and the catalog, researched from their help pages), the practice services shipped
beside the practice sites (``practice/services.toml``), the gauntlet's
``scenarios.toml`` (only when asked for: the bench, the tests and ``services
--practice``; a source checkout has it, an installed copy does not), the user's own
``services.toml`` in the platform config directory (when it exists), then every
``--services PATH`` in the order given. A later file replaces an earlier
definition SERVICE BY SERVICE: a whole ``[services.<id>]`` table wins, keys are
never mixed between files, and other services stay. ``extends`` is resolved after
all files are merged, so overriding ``demoflix`` also changes the services that
extend it.

Every problem becomes a ServiceConfigError whose lines each name the file, the
service and the key path, e.g. ``services.toml: service 'netflix', key
'success[0].text_regex': invalid regular expression '(': ...``.
"""

from __future__ import annotations

import enum
import hashlib
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from subterminator_tui.errors import ServiceConfigError
from subterminator_tui.resources import (
    builtin_services_file,
    gauntlet_scenarios_file,
    practice_services_file,
)
from subterminator_tui.rules.generic import with_generic_rules
from subterminator_tui.rules.models import LOADER_KEYS, ServiceConfig
from subterminator_tui.rules.problems import describe_error, key_path
from subterminator_tui.rules.registry import ServiceRegistry
from subterminator_tui.settings import user_config_dir

SERVICES_FILE_NAME = "services.toml"


class UserFileDefault(enum.Enum):
    """Sentinel type for "use the services.toml in the platform config directory"."""

    CONFIG_DIR = "config dir"


#: ``load_services(user_file=...)`` default: the user's file in the config directory.
USER_CONFIG_DIR: Final = UserFileDefault.CONFIG_DIR


def user_services_file() -> Path:
    """Where a user's own ``services.toml`` lives (``~/.config/subterminator/`` on Linux)."""
    return user_config_dir() / SERVICES_FILE_NAME


def load_services(
    extra_files: Sequence[Path] = (),
    *,
    user_file: Path | UserFileDefault | None = USER_CONFIG_DIR,
    practice_scenarios: bool = False,
) -> ServiceRegistry:
    """Load the built-in files, the user's file, then ``extra_files``; later ones win.

    ``practice_scenarios`` adds the gauntlet's ``scenarios.toml`` after the built-in
    services when a source checkout has it: the bench and the tests ask for it, a
    person's runs never load it.

    ``user_file`` defaults to :func:`user_services_file`; pass another path to read
    that instead, or None to skip the user's file (tests must never read the real
    one). A user file that does not exist is skipped; a missing ``extra_files``
    entry is an error. Raises ServiceConfigError listing every problem found.
    """
    files = _files_to_load(extra_files, user_file, practice_scenarios)
    key = _read_as(files)
    registry = _LOADED.get(key) if key is not None else None
    if registry is None:
        registry = _load(files)
        if key is not None:
            _LOADED[key] = registry
            while len(_LOADED) > _LOADED_KEPT:
                del _LOADED[next(iter(_LOADED))]
    return registry


#: Registries this process built, by the files they were read from (:func:`_read_as`). A
#: run reads its services several times, and a process running many (serve, a test
#: worker) reads them for each: about 60 ms of TOML and validation each time, where
#: reading the bytes again is well under one. A registry is immutable (its services are
#: frozen), so one can serve them all.
_LOADED: dict[tuple[tuple[str, bytes], ...], ServiceRegistry] = {}
_LOADED_KEPT = 8


def _read_as(files: Sequence[Path]) -> tuple[tuple[str, bytes], ...] | None:
    """Each file's path and a digest of its bytes (not its modification time, which a file
    rewritten within a clock tick keeps); None when one cannot be read (loading it again
    raises the error that names it)."""
    try:
        return tuple(
            (str(path.resolve()), hashlib.blake2b(path.read_bytes()).digest()) for path in files
        )
    except OSError:
        return None


def _load(files: Sequence[Path]) -> ServiceRegistry:
    definitions: dict[str, _Definition] = {}
    for path in files:
        for service_id, table in read_services_file(path).items():
            definitions[service_id] = _Definition(service_id, table, path)
    services, problems = _Resolver(definitions).resolve_all()
    if problems:
        raise ServiceConfigError("\n".join(problems))
    return ServiceRegistry(services)


def service_table(
    service_id: str,
    extra_files: Sequence[Path] = (),
    *,
    user_file: Path | UserFileDefault | None = USER_CONFIG_DIR,
    practice_scenarios: bool = False,
) -> dict[str, Any]:
    """The keys of ``service_id`` as the files wrote them, ``extends`` resolved and removed.

    A table that stands on its own: written to another file it defines the same service
    (``subterminator record`` copies a service this way before giving it a playbook).
    ServiceNotFoundError when no file defines it; ServiceConfigError when it is invalid.
    """
    registry = load_services(
        extra_files, user_file=user_file, practice_scenarios=practice_scenarios
    )
    registry.get(service_id)  # ServiceNotFoundError names the known ids
    definitions: dict[str, _Definition] = {}
    for path in _files_to_load(extra_files, user_file, practice_scenarios):
        for key, table in read_services_file(path).items():
            definitions[key] = _Definition(key, table, path)
    merged = _Resolver(definitions)._merge(service_id, ())
    assert merged is not None, "the registry validated this service"
    return {key: value for key, value in merged.table.items() if key != "extends"}


def _files_to_load(
    extra_files: Sequence[Path],
    user_file: Path | UserFileDefault | None,
    practice_scenarios: bool,
) -> list[Path]:
    try:
        files = [builtin_services_file(), practice_services_file()]
    except FileNotFoundError as error:
        raise ServiceConfigError(str(error)) from None
    scenarios = gauntlet_scenarios_file() if practice_scenarios else None
    if scenarios is not None:
        files.append(scenarios)
    chosen_user_file = user_services_file() if user_file is USER_CONFIG_DIR else user_file
    if isinstance(chosen_user_file, Path) and chosen_user_file.exists():
        files.append(chosen_user_file)
    files.extend(Path(path) for path in extra_files)
    return files


def read_services_file(path: Path) -> dict[str, dict[str, Any]]:
    """The raw ``[services.<id>]`` tables of one file, checked for shape but not content."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ServiceConfigError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ServiceConfigError(f"{path}: is a directory, not a services.toml file") from None
    except UnicodeDecodeError as error:
        raise ServiceConfigError(f"{path}: not UTF-8 text ({error.reason})") from None
    except OSError as error:
        raise ServiceConfigError(f"{path}: cannot be read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        # tomllib's message carries the line and column, e.g. "(at line 3, column 7)".
        raise ServiceConfigError(f"{path}: invalid TOML: {error}") from None
    stray = [key for key in data if key != "services"]
    if stray:
        raise ServiceConfigError(
            f"{path}: key '{stray[0]}': unknown key; a services file holds only "
            "[services.<id>] tables"
        )
    services = data.get("services")
    if services is None:
        raise ServiceConfigError(
            f"{path}: no [services] table; define each service as [services.<id>]"
        )
    if not isinstance(services, dict):
        raise ServiceConfigError(f"{path}: 'services' must be a table of [services.<id>] tables")
    for service_id, table in services.items():
        if not isinstance(table, dict):
            raise ServiceConfigError(
                f"{path}: service '{service_id}': must be a table ([services.{service_id}]), "
                f"not a {type(table).__name__}"
            )
        for key in sorted(LOADER_KEYS & table.keys()):
            raise ServiceConfigError(
                f"{path}: service '{service_id}', key '{key}': unknown key "
                "(SubTerminator sets it; it cannot be written in services.toml)"
            )
    return services


@dataclass(frozen=True)
class _Definition:
    """One ``[services.<id>]`` table as a file wrote it."""

    service_id: str
    table: dict[str, Any]
    source: Path


@dataclass
class _Merged:
    """A service's keys after ``extends``, and which definition supplied each key."""

    table: dict[str, Any]
    origins: dict[str, _Definition] = field(default_factory=dict)


class _Resolver:
    """Applies ``extends`` and validates, parents before children, collecting problems."""

    def __init__(self, definitions: dict[str, _Definition]) -> None:
        self._definitions = definitions
        self._merged: dict[str, _Merged | None] = {}
        self._validated: dict[str, ServiceConfig | None] = {}
        self._problems: list[str] = []

    def resolve_all(self) -> tuple[list[ServiceConfig], list[str]]:
        """Every valid service, and one line per problem."""
        services = [self._validate(service_id) for service_id in self._definitions]
        return [service for service in services if service is not None], self._problems

    def _problem(self, definition: _Definition, key: str | None, message: str) -> None:
        where = f"{definition.source}: service '{definition.service_id}'"
        where += f", key '{key}'" if key else ""
        self._problems.append(f"{where}: {message}")

    def _merge(self, service_id: str, chain: tuple[str, ...]) -> _Merged | None:
        if service_id in self._merged:
            return self._merged[service_id]
        definition = self._definitions[service_id]
        parent_id = definition.table.get("extends")
        merged: _Merged | None
        if parent_id is None:
            merged = _Merged(dict(definition.table), dict.fromkeys(definition.table, definition))
        elif not isinstance(parent_id, str):
            self._problem(definition, "extends", "Input should be a valid string (a service id)")
            merged = None
        elif parent_id not in self._definitions:
            known = ", ".join(sorted(self._definitions)) or "(none)"
            self._problem(
                definition, "extends", f"no service '{parent_id}' to extend; defined: {known}"
            )
            merged = None
        elif parent_id == service_id or parent_id in chain:
            start = chain.index(parent_id) if parent_id in chain else len(chain)
            cycle = (*chain[start:], service_id, parent_id)
            self._problem(definition, "extends", f"{' -> '.join(cycle)} is a cycle")
            merged = None
        else:
            parent = self._merge(parent_id, (*chain, service_id))
            merged = None
            if parent is not None:
                merged = _Merged(
                    {**parent.table, **definition.table},
                    {**parent.origins, **dict.fromkeys(definition.table, definition)},
                )
        self._merged[service_id] = merged
        return merged

    def _validate(self, service_id: str) -> ServiceConfig | None:
        if service_id in self._validated:
            return self._validated[service_id]
        self._validated[service_id] = None  # invalid until proven valid: no endless recursion
        merged = self._merge(service_id, ())
        if merged is None:
            return None
        definition = self._definitions[service_id]
        parent_id = definition.table.get("extends")
        parent_failed = isinstance(parent_id, str) and self._validate(parent_id) is None
        try:
            service = ServiceConfig.model_validate(
                {**merged.table, "id": service_id, "source": definition.source}
            )
        except ValidationError as error:
            self._report(definition, merged, error, parent_failed=parent_failed)
            return None
        service = with_generic_rules(service)
        self._validated[service_id] = service
        return service

    def _report(
        self,
        definition: _Definition,
        merged: _Merged,
        error: ValidationError,
        *,
        parent_failed: bool,
    ) -> None:
        for detail in error.errors(include_url=False):
            top_key = str(detail["loc"][0]) if detail["loc"] else None
            origin = merged.origins.get(top_key) if top_key else None
            inherited = origin is not None and origin is not definition
            if inherited and parent_failed:
                continue  # already reported against the parent that wrote it
            message = describe_error(detail)
            if inherited and origin is not None:
                message += f" (inherited from service '{origin.service_id}' in {origin.source})"
            self._problem(definition, key_path(detail["loc"]), message)
