"""Large regular expressions compiled once, their compiled form kept for the next process.

The generic rules' expressions are built from every language's words, and the largest
run to tens of thousands of characters. Python's ``re`` parses and optimises each one
before its matching engine can run it: about half a CPU second in every command that
reads a page (a quarter of a short run's CPU), and again in every serve child and test
worker. What ``re`` hands the engine (its program: a list of numbers, the groups, the
flags) depends only on the expression, its flags and the Python that made it.

So the first process to compile a large expression keeps that program, as marshal data
(the format of ``.pyc`` files), and the next one hands it straight to the engine with the
call ``re.compile`` itself ends with (``_sre.compile``, which checks the program is
well formed). The result is the same pattern: equal to ``re.compile``'s, which compares
the programs. A file is named by a digest of the expression, its flags, Python's version
and the engine's; it holds the expression and flags, so a file for another one is never
used. Files live where Python keeps bytecode (as the built rules do, in a folder named
by the package's digest; a new package removes the older folders), with the rules'
mode; nothing is written where Python writes no bytecode, and a file that cannot be
read, or a program the engine refuses, means compiling as usual.

``re``'s parser and code generator are private (``re._parser``, ``re._compiler``), so the
digest holds Python's exact version: another Python never reads these files, and any
failure falls back to ``re.compile``.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's engine: no stubs
import contextlib
import hashlib
import marshal
import re
import shutil
import sys
from pathlib import Path

from subterminator_tui.rules.built_rules import keep_file, package_digest
from subterminator_tui.rules.check_stamps import pycache_folder

#: Shorter expressions compile in well under a millisecond: reading a file would cost more.
KEPT_FROM_LENGTH = 1_000


def compile_kept(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from the kept program when one is kept; raises
    :class:`re.error` as ``re.compile`` does."""
    if len(pattern) < KEPT_FROM_LENGTH:
        return re.compile(pattern, flags)
    flags = int(flags)  # as re does: a RegexFlag is kept as its number
    path = _program_path(pattern, flags)
    # A torn, foreign or refused file: compiled as if there were none.
    with contextlib.suppress(Exception):
        kept = marshal.loads(path.read_bytes())
        if kept[0] == pattern and kept[1] == flags:
            return _engine(pattern, kept[2:])
    program = _program(pattern, flags)
    if not sys.dont_write_bytecode:
        _keep(path, marshal.dumps((pattern, flags, *program)))
    return _engine(pattern, program)


def _engine(pattern: str, program: tuple[object, ...]) -> re.Pattern[str]:
    """The pattern ``re.compile`` would give, from ``program`` (refused if malformed)."""
    compiled: re.Pattern[str] = _sre.compile(pattern, *program)
    return compiled


#: What the engine takes after the expression: its flags (with those the expression sets),
#: the program, the number of groups, the groups by name and by number.
_Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]


def _program(pattern: str, flags: int) -> _Program:
    """What ``re._compiler.compile`` hands ``_sre.compile`` for ``pattern``."""
    parsed = re._parser.parse(pattern, flags)  # type: ignore[attr-defined]
    # Its opcodes are named numbers: plain ones, as the engine reads them, are kept.
    code = [int(word) for word in re._compiler._code(parsed, flags)]  # type: ignore[attr-defined]
    groupindex: dict[str, int] = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    all_flags = int(flags | parsed.state.flags)
    groups = int(parsed.state.groups) - 1
    return (
        all_flags,
        code,
        groups,
        groupindex,
        tuple(indexgroup),
    )


def _folder() -> Path:
    """This package's folder of kept programs."""
    rules = Path(__file__).resolve().parent
    return pycache_folder(rules) / f"expressions.{package_digest()}"


def _program_path(pattern: str, flags: int) -> Path:
    named = f"{sys.version}\0{_sre.MAGIC}\0{flags}\0".encode()
    digest = hashlib.sha256(named + pattern.encode("utf-8", "surrogatepass"))
    return _folder() / f"{digest.hexdigest()[:40]}.marshal"


def _keep(path: Path, data: bytes) -> None:
    """Keep ``data`` at ``path``; the first program of a new package removes older folders."""
    if not path.parent.is_dir():
        for older in path.parent.parent.glob("expressions.*"):
            if older != path.parent:
                shutil.rmtree(older, ignore_errors=True)
    keep_file(path, data)
