"""Writing one service into the user's own ``services.toml``, keeping everything else in it.

The file is edited, not regenerated: comments, order and every other service stay as
the person wrote them (tomlkit keeps them). The new definition is validated before
anything is written, the previous file is kept beside it as ``services.toml.bak``, and
the new one replaces it in one rename, so a crash leaves the old file or the new one,
never half of each.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import tomlkit
from pydantic import ValidationError
from tomlkit.exceptions import TOMLKitError

from subterminator_tui.errors import ServiceConfigError
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.problems import describe_error, key_path


def write_user_service(path: Path, service_id: str, table: dict[str, Any]) -> bool:
    """Define ``service_id`` as ``table`` in the services file at ``path``; True if it
    replaced an earlier definition there. ServiceConfigError, with nothing written, when
    the table is invalid or the existing file cannot be read as TOML."""
    try:
        ServiceConfig.model_validate({**table, "id": service_id, "source": path})
    except ValidationError as error:
        problems = [
            f"service '{service_id}', key '{key_path(detail['loc'])}': {describe_error(detail)}"
            for detail in error.errors(include_url=False)
        ]
        raise ServiceConfigError("\n".join(problems)) from None
    document = _read(path)
    services = document.get("services")
    if services is None:
        services = tomlkit.table(is_super_table=True)
        document["services"] = services
    elif not isinstance(services, dict):
        raise ServiceConfigError(f"{path}: 'services' is not a table; fix the file first.")
    replaced = service_id in services
    services[service_id] = table
    _replace(path, tomlkit.dumps(document))
    return replaced


def _read(path: Path) -> tomlkit.TOMLDocument:
    if not path.exists():
        document = tomlkit.document()
        document.add(tomlkit.comment("Your own services; `subterminator record` adds playbooks."))
        return document
    try:
        return tomlkit.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, TOMLKitError) as error:
        raise ServiceConfigError(
            f"{path}: cannot be read as TOML ({error}); fix it first, nothing was written."
        ) from None


def _replace(path: Path, text: str) -> None:
    temporary: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            shutil.copy2(path, path.with_name(path.name + ".bak"))
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".services-", suffix=".toml")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
        raise ServiceConfigError(
            f"{path}: cannot be written ({error.strerror or error}); nothing was changed."
        ) from None
