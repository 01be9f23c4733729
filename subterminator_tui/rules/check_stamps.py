"""Stamps for language tables whose phrases passed the check, kept where Python keeps bytecode.

Reading a language table checks every phrase that is more than plain words by compiling
it (``language_words._check_phrases``): about 3,000 expressions, half a CPU second, in
every process that reads the tables (each command, each serve child, each test worker).
A table whose exact bytes passed that check, under the same checker and the same Python,
passes it again. So the first process to check a table leaves an empty stamp file, and
the next one skips the compiling; everything else a table is validated for still runs.

A stamp's name is a digest of the table's bytes, the checker's own source files, the
look-alike table the text is normalised with, and Python's version: an edited table, an
edited checker or another Python finds no stamp and checks again. Stamps
live where Python caches compiled modules: ``__pycache__`` beside the table, or under
``PYTHONPYCACHEPREFIX`` when it is set; none is written where Python writes no bytecode
(``PYTHONDONTWRITEBYTECODE``), and a directory that cannot be written only means the
check runs every time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import sys
from pathlib import Path

#: The sources whose code decides the check: the phrase check and the normalisation (with
#: the look-alikes it reads).
_CHECKER_SOURCES = ("language_words.py", "text.py", "confusable_prototypes.toml")


@functools.cache
def _checker_digest() -> bytes:
    """The checker as a digest: its source files, the look-alike table, Python's version."""
    digest = hashlib.sha256()
    for name in _CHECKER_SOURCES:
        digest.update((Path(__file__).parent / name).read_bytes())
    digest.update(sys.version.encode())
    return digest.digest()


def stamp_path(table: Path, content: bytes) -> Path:
    """Where the stamp for ``table`` holding ``content`` is, checked by this checker."""
    digest = hashlib.sha256(_checker_digest() + content).hexdigest()[:32]
    return pycache_folder(table.parent) / f"{table.stem}.{digest}.checked"


def pycache_folder(folder: Path) -> Path:
    """Where Python keeps the bytecode of modules in ``folder``."""
    prefix = sys.pycache_prefix
    if prefix:
        # As Python does for bytecode: the absolute folder, under the prefix.
        return Path(prefix).joinpath(*folder.resolve().parts[1:])
    return folder / "__pycache__"


def was_checked(table: Path, content: bytes) -> bool:
    """Whether a process already checked ``table``'s phrases with these exact bytes."""
    return stamp_path(table, content).is_file()


def remember_checked(table: Path, content: bytes) -> None:
    """Leave the stamp that says ``content`` passed; never fails a read."""
    if sys.dont_write_bytecode:
        return
    stamp = stamp_path(table, content)
    # A read-only install, a full disk: the check simply runs again next time.
    with contextlib.suppress(OSError):
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()
