"""The look-alikes every text is read with are Unicode's confusables table's, as saved.

The normaliser reads the ASCII look-alike of a character of another script from a file
saved beside it (loading the library's tables cost every process 0.09 CPU s): the file
must be what the library gives, character for character.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from subterminator_tui.rules.text import (
    PROTOTYPES_FILE,
    computed_prototypes,
    normalise_text,
    write_prototypes_file,
)


def test_the_saved_look_alikes_are_what_the_confusables_table_gives(tmp_path: Path) -> None:
    """Regenerate it with ``python -m subterminator_tui.rules.text`` when the table moves."""
    write_prototypes_file(tmp_path / "prototypes.toml")
    assert (tmp_path / "prototypes.toml").read_text(encoding="utf-8") == PROTOTYPES_FILE.read_text(
        encoding="utf-8"
    ), "confusable_prototypes.toml is stale: run python -m subterminator_tui.rules.text"
    saved = tomllib.loads(PROTOTYPES_FILE.read_text(encoding="utf-8"))["prototypes"]
    assert saved == computed_prototypes()
    assert {"\u0410": "A", "\u0435": "e", "\u043e": "o", "\u03bf": "o"}.items() <= saved.items()


def test_a_cyrillic_spelling_reads_as_the_latin_one() -> None:
    assert normalise_text("\u0410cc\u0435pt \u043effer") == "Accept offer"
    # Letters with no ASCII look-alike stay themselves; those with one read as it.
    assert normalise_text("解約する") == "解約する"
    assert normalise_text("Отменить подписку") == "Oтмeнить пoдпиcкy"


def test_reading_a_text_loads_no_confusables_library() -> None:
    """A command normalises with the saved file only (the library is for writing it)."""
    code = (
        "import sys; from subterminator_tui.rules.text import normalise_text;"
        " assert normalise_text('\\u0410') == 'A';"
        " print('confusable_homoglyphs' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
