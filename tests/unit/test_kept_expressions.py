"""A large expression is compiled once per package, and the next process gets the same pattern.

The kept program is handed to ``re``'s engine without parsing: the pattern must be the one
``re.compile`` gives (patterns compare their programs), and a torn, foreign or malformed
file, an invalid expression or a Python that writes no bytecode must never hand a
process anything else.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from subterminator_tui.rules import commit, kept_expressions, money
from subterminator_tui.rules.fields import DeferredPattern, compile_pattern
from subterminator_tui.rules.generic import generic_rules
from subterminator_tui.rules.kept_expressions import KEPT_FROM_LENGTH, compile_kept
from subterminator_tui.rules.sentences import every_language, every_language_pattern

#: Named groups, inline flags, look-behind, classes, letters of other scripts, repeats.
_SHAPED = (
    r"(?P<amount>\d+(?:[.,]\d{1,2})?)\s?(?P<sign>€|kr|円)(?![A-Za-z])|(?<![\d.,])(?:ü|ß|ø|ç)+"
    + "|".join(f"(?:word{index}|слово{index}|단어{index})" for index in range(120))
)


def _kept(pycache: Path) -> list[Path]:
    return sorted(pycache.rglob("*.marshal"))


def _never_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, parsing a large expression fails (small ones, pytest's own, still parse)."""
    parse = re._parser.parse  # type: ignore[attr-defined]

    def refuse_large(pattern: str, flags: int = 0) -> object:
        if len(pattern) >= KEPT_FROM_LENGTH:
            raise AssertionError(f"a kept program was parsed again: {pattern[:60]}")
        return parse(pattern, flags)

    monkeypatch.setattr(re._parser, "parse", refuse_large)  # type: ignore[attr-defined]


def _a_success_expression() -> str:
    """The source of a generic success rule's expression (built, so deferred)."""
    built = generic_rules().success[0].text_regex[0]
    assert isinstance(built, DeferredPattern)
    return built.source


def _built_in_expressions() -> list[tuple[str, int]]:
    """One large expression from every place the rules compile one."""
    built = [
        (compile_pattern(_a_success_expression()).pattern, re.IGNORECASE),
        (every_language_pattern("controls.resume").pattern, re.IGNORECASE),
        (commit._whole.__wrapped__("commit.operation").pattern, re.IGNORECASE),
        (commit._keeping_pattern.__wrapped__().pattern, re.IGNORECASE),
        (money._every.__wrapped__("money.charge", "money.plan").pattern, re.IGNORECASE),
        (money._decline.__wrapped__().pattern, re.IGNORECASE),
        (money._amount.__wrapped__().pattern, 0),
        (_SHAPED, 0),
        (_SHAPED, re.IGNORECASE | re.MULTILINE),
    ]
    assert all(len(pattern) >= KEPT_FROM_LENGTH for pattern, _ in built)
    return built


def test_a_kept_program_is_the_pattern_re_compiles(
    pycache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expressions = _built_in_expressions()
    first = [compile_kept(pattern, flags) for pattern, flags in expressions]
    kept = {kept_expressions._program_path(pattern, int(flags)) for pattern, flags in expressions}
    assert len(kept) == len(expressions) and kept <= set(_kept(pycache))
    _never_parsed(monkeypatch)
    again = [compile_kept(pattern, flags) for pattern, flags in expressions]
    monkeypatch.undo()
    for (pattern, flags), made, loaded in zip(expressions, first, again, strict=True):
        fresh = re.compile(pattern, flags)
        # Patterns are equal when their expressions, flags and programs are.
        assert made == fresh and loaded == fresh, pattern[:80]
        assert (loaded.flags, loaded.groups, loaded.groupindex) == (
            fresh.flags,
            fresh.groups,
            fresh.groupindex,
        )
    shaped = again[-2].search("a 1,99 € word7 слово3 ßß")
    assert shaped is not None and shaped.group("amount", "sign") == ("1,99", "€")


def test_the_rules_compile_their_large_expressions_once_per_package(
    pycache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every place named above goes through the kept programs: a second process (mimicked
    by emptying the caches the rules keep in this one) parses none of them."""
    success = _a_success_expression()

    def read_as_a_new_process() -> None:
        every_language_pattern.cache_clear()
        for kept in (commit._whole, commit._keeping_pattern, money._every, money._decline):
            kept.cache_clear()
        compile_pattern(success)
        every_language_pattern("controls.resume")
        commit._whole("commit.operation")
        commit._keeping_pattern()
        money._every("money.charge", "money.plan")
        money._decline()

    read_as_a_new_process()
    _never_parsed(monkeypatch)
    read_as_a_new_process()


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda data: data[: len(data) // 2], id="torn"),
        pytest.param(lambda data: b"not marshal data at all", id="foreign"),
    ],
)
def test_a_spoilt_file_is_compiled_again(pycache: Path, spoil: Callable[[bytes], bytes]) -> None:
    compile_kept(_SHAPED)
    [kept] = _kept(pycache)
    kept.write_bytes(spoil(kept.read_bytes()))
    assert compile_kept(_SHAPED) == re.compile(_SHAPED)
    # Written again whole: the next process reads it.
    assert kept.read_bytes() != spoil(kept.read_bytes())


def test_a_file_of_another_expression_is_never_used(pycache: Path) -> None:
    """A file found under this expression's name (a digest collision, a file copied in)
    holds another's program: the expression it holds is compared, and it is compiled."""
    other = _SHAPED.replace("word", "mot")
    compile_kept(other)
    [kept] = _kept(pycache)
    kept.rename(kept_expressions._program_path(_SHAPED, 0))
    assert compile_kept(_SHAPED) == re.compile(_SHAPED)


def test_a_program_the_engine_refuses_is_compiled_again(pycache: Path) -> None:
    """A file whose program was changed: ``_sre`` checks it, and re compiles instead."""
    compile_kept(_SHAPED)
    [kept] = _kept(pycache)
    import marshal

    pattern, flags, all_flags, code, *rest = marshal.loads(kept.read_bytes())
    kept.write_bytes(marshal.dumps((pattern, flags, all_flags, [999_999, *code[1:]], *rest)))
    assert compile_kept(_SHAPED) == re.compile(_SHAPED)


def test_an_invalid_expression_raises_as_re_does_and_keeps_nothing(pycache: Path) -> None:
    broken = _SHAPED + "|(unclosed"
    with pytest.raises(re.error):
        re.compile(broken)
    with pytest.raises(re.error):
        compile_kept(broken)
    assert not _kept(pycache)


def test_nothing_is_kept_without_bytecode_or_for_a_short_expression(
    pycache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert compile_kept("cancel(?:led)?", re.I) == re.compile("cancel(?:led)?", re.I)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert compile_kept(_SHAPED) == re.compile(_SHAPED)
    assert not _kept(pycache)


def test_a_new_package_removes_the_older_programs(
    pycache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compile_kept(_SHAPED)
    [older] = _kept(pycache)
    monkeypatch.setattr(kept_expressions, "package_digest", lambda: "another-package")
    compile_kept(_SHAPED)
    [newer] = _kept(pycache)
    assert newer != older and not older.parent.exists()
    assert newer.parent.name == "expressions.another-package"


def test_a_folder_that_cannot_be_written_only_means_compiling(
    pycache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pycache.parent.mkdir(exist_ok=True)
    pycache.write_text("a file where the folder would be", encoding="utf-8")
    assert compile_kept(_SHAPED) == re.compile(_SHAPED)
    assert every_language("controls.resume")  # the rules still read
