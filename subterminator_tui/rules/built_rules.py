"""The generic rules as built, kept where Python keeps bytecode, for the next process to load.

Building the generic rules from ``generic.toml`` and the language tables (every language's
sentences spelled out, its month names read from CLDR, its letters gathered) takes about
0.4 CPU seconds, in every process that judges a page: each command, each serve child, each
test worker. The same package builds the same rules, so the first process leaves them as
a pickle and the next ones load it (about 10 ms).

The pickle's name is a digest of everything the build reads or runs: every source and
data file of the package, the versions of the libraries it uses (pydantic, Babel) and
Python's. An edited file, an upgraded library or another Python finds no pickle and
builds again; writing a new one removes the old ones. It lives where Python caches
compiled modules (``__pycache__`` beside the rules, or under ``PYTHONPYCACHEPREFIX``), a
place Python already trusts with code it runs, and takes the mode of the rules' source as
bytecode does; nothing is written where Python writes no bytecode, a pickle that cannot
be read is built again, and a folder that cannot be written only means every process
builds.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import babel
import pydantic

from subterminator_tui.rules.check_stamps import pycache_folder

_Built = TypeVar("_Built")

#: The package whose files the build reads and runs.
_PACKAGE = Path(__file__).resolve().parents[1]


@functools.cache
def package_digest() -> str:
    """Every source and data file of the package, and the libraries' and Python's versions."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*")):
        if path.suffix in {".py", ".toml"} and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    for version in (pydantic.VERSION, babel.__version__):
        digest.update(version.encode() + b"\0")
    digest.update(sys.version.encode())
    return digest.hexdigest()[:32]


def cache_path(name: str) -> Path:
    """Where the build called ``name`` is kept for this package, these libraries, this Python."""
    return pycache_folder(Path(__file__).resolve().parent) / f"{name}.{package_digest()}.pickle"


def load_or_build(name: str, kind: type[_Built], build: Callable[[], _Built]) -> _Built:
    """The ``kind`` kept as ``name`` for this package, or ``build()``'s, kept for the next."""
    path = cache_path(name)
    # A torn, truncated or foreign file: built again, as if there were none.
    with contextlib.suppress(Exception), path.open("rb") as file:
        loaded = pickle.load(file)
        if isinstance(loaded, kind):
            return loaded
    built = build()
    if not sys.dont_write_bytecode:
        _keep(path, built)
    return built


def _keep(path: Path, built: object) -> None:
    """Write ``built`` to ``path`` whole or not at all, and remove older builds of its name."""
    name = path.name.split(".", 1)[0]
    if keep_file(path, pickle.dumps(built, protocol=pickle.HIGHEST_PROTOCOL)):
        for older in path.parent.glob(f"{name}.*.pickle"):
            if older != path:
                older.unlink(missing_ok=True)


def keep_file(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` whole or not at all, readable as the rules' source is;
    whether it was written."""
    # A read-only install, a full disk: the next process simply builds again.
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError:
        return False
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        # Readable by whoever may read the rules (a temporary file is the owner's only).
        os.chmod(temporary, Path(__file__).stat().st_mode & 0o666)
        # Processes started together each build and write: the last rename wins, whole.
        os.replace(temporary, path)
    except OSError:
        return False
    finally:
        Path(temporary).unlink(missing_ok=True)
    return True
