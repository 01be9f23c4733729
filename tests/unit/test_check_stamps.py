"""A language table's phrases are compiled to check them once per exact table, not per process.

The stamp a process leaves says "these bytes passed this checker": it must spare the next
process the compiling, and must never let an edited table, or a table read by another
checker, skip the check.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.errors import ServiceConfigError
from subterminator_tui.rules import check_stamps
from subterminator_tui.rules.language_words import WORDS_DIR, read_language_words

BROKEN = ('amount_field = ["amount",', 'amount_field = ["amo(unt",')


@pytest.fixture
def bytecode_beside(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stamps go where Python would put bytecode with no prefix set: ``__pycache__``."""
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every expression compiled from now on (the check compiles with ``re.compile``)."""
    seen: list[str] = []
    real: Callable[..., Any] = re.compile

    def counting(pattern: Any, flags: int = 0) -> Any:
        seen.append(str(pattern))
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    return seen


def _english(folder: Path, change: tuple[str, str] | None = None) -> Path:
    """The English table copied into ``folder`` (as en.toml), with one line changed."""
    text = (WORDS_DIR / "en.toml").read_text(encoding="utf-8")
    if change is not None:
        assert change[0] in text
        text = text.replace(*change, 1)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "en.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.usefixtures("bytecode_beside")
def test_a_checked_table_is_not_compiled_again(tmp_path: Path, compiles: list[str]) -> None:
    """The first read compiles the phrases and leaves a stamp; the second compiles none."""
    table = _english(tmp_path / "words")
    first = read_language_words(table)
    assert len(compiles) > 100
    assert [path.name for path in (tmp_path / "words" / "__pycache__").iterdir()] == [
        check_stamps.stamp_path(table, table.read_bytes()).name
    ]
    compiles.clear()
    again = read_language_words(table)
    assert compiles == []
    assert again == first


@pytest.mark.usefixtures("bytecode_beside")
def test_an_edited_table_is_checked_again(tmp_path: Path) -> None:
    """A stamp is for exact bytes: a phrase broken after the stamp is still refused."""
    table = _english(tmp_path / "words")
    read_language_words(table)
    _english(tmp_path / "words", BROKEN)
    with pytest.raises(ServiceConfigError, match=r"money\.amount_field.*item 0"):
        read_language_words(table)


@pytest.mark.usefixtures("bytecode_beside")
def test_a_stamp_by_name_alone_would_let_a_broken_table_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proof the test above can fail: stamps keyed by the file's name skip the edited one."""
    by_name = tmp_path / "words" / "__pycache__" / "en.checked"
    monkeypatch.setattr(check_stamps, "stamp_path", lambda _table, _content: by_name)
    table = _english(tmp_path / "words")
    read_language_words(table)
    _english(tmp_path / "words", BROKEN)
    words = read_language_words(table)
    assert "amo(unt" in words.money.amount_field


@pytest.mark.usefixtures("bytecode_beside")
def test_another_checker_checks_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiles: list[str]
) -> None:
    """A changed checker (its source, the look-alike table, Python) finds no old stamp."""
    table = _english(tmp_path / "words")
    read_language_words(table)
    monkeypatch.setattr(check_stamps, "_checker_digest", lambda: b"another checker")
    compiles.clear()
    read_language_words(table)
    assert len(compiles) > 100
    assert len(list((tmp_path / "words" / "__pycache__").iterdir())) == 2


def test_the_stamp_goes_under_the_bytecode_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``PYTHONPYCACHEPREFIX`` the stamp mirrors the table's folder under it."""
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    table = _english(tmp_path / "words")
    read_language_words(table)
    stamp = check_stamps.stamp_path(table, table.read_bytes())
    assert stamp.is_file()
    assert stamp.parent == tmp_path / "prefix" / table.parent.resolve().relative_to("/")
    assert not (tmp_path / "words" / "__pycache__").exists()


def test_no_stamp_where_python_writes_no_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiles: list[str]
) -> None:
    """``PYTHONDONTWRITEBYTECODE`` leaves no stamp: every read checks."""
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    table = _english(tmp_path / "words")
    read_language_words(table)
    compiles.clear()
    read_language_words(table)
    assert len(compiles) > 100
    assert not (tmp_path / "words" / "__pycache__").exists()


@pytest.mark.usefixtures("bytecode_beside")
def test_a_folder_that_cannot_hold_stamps_only_means_checking_again(tmp_path: Path) -> None:
    """``__pycache__`` taken by a file (as a read-only install would refuse): reads work."""
    table = _english(tmp_path / "words")
    (tmp_path / "words" / "__pycache__").write_text("not a folder", encoding="utf-8")
    assert read_language_words(table).language == "en"
    assert read_language_words(table).language == "en"
