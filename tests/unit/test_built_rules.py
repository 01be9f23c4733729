"""The generic rules are built once per package, not once per process.

What the first process built is what the next one loads: the same rules, equal to a fresh
build. A changed package, a broken file or a folder Python may not write to never hands a
process stale or half-written rules.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from subterminator_tui.resources import builtin_generic_rules_file
from subterminator_tui.rules import built_rules, defaults
from subterminator_tui.rules.generic import GenericRules, generic_rules, read_generic_rules
from subterminator_tui.rules.language_words import all_language_words


class Builds:
    """A build that counts its calls, of the real generic rules (read once per test)."""

    def __init__(self) -> None:
        self.calls = 0
        self.rules = read_generic_rules(builtin_generic_rules_file())

    def __call__(self) -> GenericRules:
        self.calls += 1
        return self.rules


@pytest.fixture
def builds() -> Builds:
    return Builds()


def _kept(pycache: Path) -> list[Path]:
    return sorted(pycache.rglob("*.pickle"))


def test_the_next_process_loads_what_the_first_built(pycache: Path, builds: Builds) -> None:
    first = built_rules.load_or_build("generic-rules", GenericRules, builds)
    second = built_rules.load_or_build("generic-rules", GenericRules, builds)
    assert builds.calls == 1
    assert second is not first and second == first
    [kept] = _kept(pycache)
    assert kept == built_rules.cache_path("generic-rules")
    # Readable as the rules' source is, as bytecode is (the temporary file was 0600).
    assert kept.stat().st_mode & 0o777 == Path(built_rules.__file__).stat().st_mode & 0o666
    # Kept where Python keeps the rules' bytecode, named by the package's digest.
    assert kept.parent == pycache.joinpath(*Path(built_rules.__file__).resolve().parent.parts[1:])
    assert built_rules.package_digest() in kept.name


def test_the_loaded_rules_are_a_fresh_builds(pycache: Path) -> None:
    """What every process now judges with: the loaded generic rules equal a build."""
    generic_rules.cache_clear()
    try:
        built = generic_rules()
        generic_rules.cache_clear()
        loaded = generic_rules()
    finally:
        generic_rules.cache_clear()
    assert _kept(pycache), "the first process kept nothing"
    assert loaded is not built
    assert loaded == read_generic_rules(builtin_generic_rules_file()) == built


def test_a_changed_package_builds_again_and_drops_the_old(
    pycache: Path, builds: Builds, monkeypatch: pytest.MonkeyPatch
) -> None:
    built_rules.load_or_build("generic-rules", GenericRules, builds)
    before = _kept(pycache)
    monkeypatch.setattr(built_rules, "package_digest", lambda: "0" * 32)
    built_rules.load_or_build("generic-rules", GenericRules, builds)
    assert builds.calls == 2
    after = _kept(pycache)
    assert len(after) == 1 and after != before
    assert after[0].name == f"generic-rules.{'0' * 32}.pickle"


def test_the_digest_follows_every_file_of_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "package"
    (package / "rules" / "words").mkdir(parents=True)
    for name in ("a.py", "rules/b.py", "rules/words/en.toml"):
        (package / name).write_text("one", encoding="utf-8")
    monkeypatch.setattr(built_rules, "_PACKAGE", package)
    digests = set()
    for name in ("a.py", "rules/b.py", "rules/words/en.toml"):
        built_rules.package_digest.cache_clear()
        (package / name).write_text("two", encoding="utf-8")
        digests.add(built_rules.package_digest())
    built_rules.package_digest.cache_clear()
    (package / "rules" / "notes.txt").write_text("not read by the build", encoding="utf-8")
    digests.add(built_rules.package_digest())
    built_rules.package_digest.cache_clear()
    assert len(digests) == 3


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05K\x01."])
def test_a_broken_or_foreign_file_is_built_again(
    pycache: Path, builds: Builds, content: bytes
) -> None:
    """Empty, torn, or a pickle of something else (the number 1): a build, kept whole."""
    path = built_rules.cache_path("generic-rules")
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    rules = built_rules.load_or_build("generic-rules", GenericRules, builds)
    assert builds.calls == 1 and rules == builds.rules
    assert built_rules.load_or_build("generic-rules", GenericRules, builds) == builds.rules
    assert builds.calls == 1


def test_nothing_is_kept_where_python_writes_no_bytecode(
    pycache: Path, builds: Builds, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    built_rules.load_or_build("generic-rules", GenericRules, builds)
    built_rules.load_or_build("generic-rules", GenericRules, builds)
    assert builds.calls == 2
    assert not pycache.exists()


def test_a_folder_that_cannot_be_written_only_means_building(pycache: Path, builds: Builds) -> None:
    pycache.parent.mkdir(exist_ok=True)
    pycache.write_text("a file where the folder would be", encoding="utf-8")
    assert built_rules.load_or_build("generic-rules", GenericRules, builds) == builds.rules
    assert built_rules.load_or_build("generic-rules", GenericRules, builds) == builds.rules
    assert builds.calls == 2
    assert not list(pycache.parent.glob(".generic-rules.*"))


def test_the_loaded_default_checkpoints_are_a_fresh_builds() -> None:
    """Loaded with the module (built by an earlier process, or by this one): as built."""
    built = tuple(defaults._rule(words) for words in all_language_words())
    assert built == defaults.DEFAULT_CHECKPOINTS
    assert len(built) == len(all_language_words()) >= 20


_RULES_DIGEST = """
import hashlib
from subterminator_tui.resources import builtin_generic_rules_file
from subterminator_tui.rules import defaults
from subterminator_tui.rules.generic import read_generic_rules
built = (read_generic_rules(builtin_generic_rules_file()), defaults.DEFAULT_CHECKPOINTS)
print(hashlib.sha256(repr(built).encode()).hexdigest())
"""


def test_every_process_builds_the_same_rules_whatever_its_string_hashing() -> None:
    """Rules built in one process are kept and compared with another's (a rule is known
    as generic by being among the generic rules), and each process hashes strings with a
    seed of its own: an expression built from a set in the set's order (the months once
    were) differed between processes, and a rule built in one was not found among the
    rules another had kept."""
    digests = set()
    for seed in ("1", "2", "3"):
        environment = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONDONTWRITEBYTECODE": "1"}
        result = subprocess.run(
            [sys.executable, "-c", _RULES_DIGEST],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        digests.add(result.stdout.strip())
    assert len(digests) == 1, digests
