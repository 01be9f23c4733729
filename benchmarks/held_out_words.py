"""The generic success rules on the held-out sentences (not a test: it reports, never gates).

    .venv/bin/python benchmarks/held_out_words.py [--corpus PATH] [--json]

The held-out split (tests/fixtures/corpus/held_out/confirmations.toml) was collected
from public help pages and confirmation screens before the rules that read it change,
by someone who does not write those rules, and is never edited to pass. Each sentence
is judged the way tests/unit/test_generic_corpus.py judges the regular corpus: shown
as a paragraph under an "Account" heading, it verifies when a generic success rule
holds on it as shown text and no generic failure rule holds.

Prints, per language: confirmations recalled, near-misses falsely verified, and
"request received, not yet done" sentences judged as done; then the totals. With
``--json``, the same figures as one JSON object on standard output.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement  # noqa: E402
from subterminator_tui.rules import generic_service  # noqa: E402
from subterminator_tui.rules.evidence import holds_on_seen  # noqa: E402
from subterminator_tui.rules.matching import first_holding  # noqa: E402

HELD_OUT = ROOT / "tests" / "fixtures" / "corpus" / "held_out" / "confirmations.toml"
SERVICE = generic_service("shop.example")

#: The kinds of sentence in the file, and what counts for each: a confirmation should
#: verify; a near-miss or a request merely received should not.
KINDS = ("confirmation", "near_miss", "received")

#: The order the table lists languages in: the eight the rules claimed first, then the
#: rest of the split's languages; any other language follows alphabetically.
LANGUAGE_ORDER = (
    *("en", "de", "fr", "es", "it", "pt", "nl", "ja", "pl", "sv", "da", "nb", "fi"),
    *("cs", "tr", "ko", "zh-Hans", "zh-Hant", "ru", "ar", "he", "hi", "id", "vi", "th"),
    "el",
)


def verifies(text: str) -> bool:
    """Whether the generic rules verify a page that shows ``text`` (and a heading).

    The same page the regular corpus test builds, so the two figures compare.
    """
    elements = (
        SnapshotElement("heading", "Account", level=1),
        SnapshotElement("paragraph", text=text),
    )
    page = NormalizedSnapshot("https://shop.example/account", "Account", "", elements=elements)
    seen = f"Account\n{text}"
    if first_holding(SERVICE.failure, page) is not None:
        return False
    return any(holds_on_seen(rule, page, seen) for rule in SERVICE.success)


@dataclass
class LanguageFigures:
    """How the rules did on one language's sentences (verified of total, per kind)."""

    lang: str
    confirmations_recalled: int = 0
    confirmations: int = 0
    near_misses_verified: int = 0
    near_misses: int = 0
    received_verified: int = 0
    received: int = 0


def load(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The held-out file as tables of sentences by kind."""
    with path.open("rb") as file:
        return tomllib.load(file)


def measure(data: dict[str, list[dict[str, Any]]]) -> list[LanguageFigures]:
    """Judge every sentence; figures per language, in the table's language order."""
    totals: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    verified: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    for kind in KINDS:
        for item in data.get(kind, []):
            totals[kind][item["lang"]] += 1
            if verifies(item["text"]):
                verified[kind][item["lang"]] += 1
    languages = set().union(*(totals[kind] for kind in KINDS))
    known = [lang for lang in LANGUAGE_ORDER if lang in languages]
    order = known + sorted(languages - set(LANGUAGE_ORDER))
    return [
        LanguageFigures(
            lang=lang,
            confirmations_recalled=verified["confirmation"][lang],
            confirmations=totals["confirmation"][lang],
            near_misses_verified=verified["near_miss"][lang],
            near_misses=totals["near_miss"][lang],
            received_verified=verified["received"][lang],
            received=totals["received"][lang],
        )
        for lang in order
    ]


def total_of(rows: list[LanguageFigures]) -> LanguageFigures:
    """The sum of every language's figures."""
    total = LanguageFigures(lang="total")
    for row in rows:
        total.confirmations_recalled += row.confirmations_recalled
        total.confirmations += row.confirmations
        total.near_misses_verified += row.near_misses_verified
        total.near_misses += row.near_misses
        total.received_verified += row.received_verified
        total.received += row.received
    return total


def table(rows: list[LanguageFigures], total: LanguageFigures, sources: int) -> str:
    """The figures as a plain-text table, one language a line, the totals last."""
    header = f"{'lang':<8} {'recalled':>10} {'false verified':>15} {'received as done':>17}"
    lines = [header, "-" * len(header)]
    for row in (*rows, total):
        if row is total:
            lines.append("-" * len(header))
        lines.append(
            f"{row.lang:<8} {row.confirmations_recalled:>4}/{row.confirmations:<5}"
            f" {row.near_misses_verified:>8}/{row.near_misses:<6}"
            f" {row.received_verified:>10}/{row.received:<6}"
        )
    recall = total.confirmations_recalled / total.confirmations if total.confirmations else 0.0
    lines.append(f"recall {recall:.1%}; {sources} distinct sources")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the held-out figures; exit 0 whatever they are (a report, not a gate)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=HELD_OUT, help="the held-out TOML")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    arguments = parser.parse_args(argv)
    data = load(arguments.corpus)
    rows = measure(data)
    total = total_of(rows)
    sources = len({item["source"] for kind in KINDS for item in data.get(kind, [])})
    if arguments.json:
        report = {
            "languages": [asdict(row) for row in rows],
            "total": asdict(total),
            "distinct_sources": sources,
        }
        print(json.dumps(report, indent=2))
    else:
        print(table(rows, total, sources))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
