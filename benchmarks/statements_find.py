"""Precision and recall of `subterminator find` on the fixture statements (not a test).

    .venv/bin/python benchmarks/statements_find.py [--json results.json]

Two ledgers, each written in every format (CSV three ways, OFX, QFX, camt.053,
MT940) by ``tests/fixtures/statements/make_statements.py``:

- ``everyday``: the ledger the detector was written against (a price rise, a skipped
  month, a lapsed plan, yearly renewals, a weekly one, two subscriptions billed by
  Apple on one line, one-offs, refunds, salary).
- ``varied``: written afterwards, with spellings and cases the detector was not
  tuned on (a city after a domain, an app sold through Google Play, two creators on
  one platform) and cases it is known not to handle (a quarterly plan, a utility bill
  that changes every month, a gym fee that moves by a few percent).

For each file: recurring charges found against the truth (a found series is right
when its latest line and price are a truth entry's; an entry with no fixed price is
right on its descriptor alone), and catalog matches (a found series that names a
catalog service, against the truth entries that are one). A charge billed on
Apple's shared line is right when find names no service for it.
"""

from __future__ import annotations

import argparse
import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.rules.loader import load_services  # noqa: E402
from subterminator_tui.statements.finding import Subscription, find_subscriptions  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "statements"
FILES = (
    "bank.csv",
    "card.csv",
    "girokonto.csv",
    "checking.ofx",
    "card.qfx",
    "statement.camt053.xml",
    "statement.mt940",
)
LEDGERS = {"everyday": "", "varied": "varied-"}


def _same(found: Subscription, entry: dict[str, Any]) -> bool:
    # OFX keeps 32 characters of a name (its specification's limit): a cut line is the line.
    cut = len(found.descriptor) == 32 and entry["descriptor"].startswith(found.descriptor)
    if found.descriptor != entry["descriptor"] and not cut:
        return False
    return entry["amount"] is None or found.amount == Decimal(str(entry["amount"]))


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def measure(path: Path, truth: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures for one statement file."""
    services = load_services(user_file=None).all()
    report = find_subscriptions([path], services)
    found = list(report.subscriptions)
    matched = [entry for entry in truth if any(_same(item, entry) for item in found)]
    right = [item for item in found if any(_same(item, entry) for entry in truth)]
    with_service = [entry for entry in truth if entry["service"]]
    named = [item for item in found if item.service_id]
    named_right = [
        item
        for item in named
        if any(_same(item, entry) and entry["service"] == item.service_id for entry in truth)
    ]
    recalled = [
        entry
        for entry in with_service
        if any(_same(item, entry) and item.service_id == entry["service"] for item in found)
    ]
    return {
        "file": path.name,
        "format": report.statements[0].format,
        "found": len(found),
        "truth": len(truth),
        "recurring_precision": _ratio(len(right), len(found)),
        "recurring_recall": _ratio(len(matched), len(truth)),
        "catalog_precision": _ratio(len(named_right), len(named)),
        "catalog_recall": _ratio(len(recalled), len(with_service)),
        "missed": sorted(
            {entry["descriptor"] for entry in truth} - {e["descriptor"] for e in matched}
        ),
        "wrong": sorted(item.descriptor for item in found if item not in right),
        "catalog_missed": sorted(
            entry["descriptor"] for entry in with_service if entry not in recalled
        ),
    }


def main() -> None:
    """Print one line per file and ledger, then the misses."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    results: list[dict[str, Any]] = []
    print(
        f"{'ledger':9} {'file':24} {'format':9} {'rec P':>6} {'rec R':>6} {'cat P':>6} {'cat R':>6}"
    )
    for ledger, prefix in LEDGERS.items():
        truth = json.loads((FIXTURES / f"{prefix}truth.json").read_text("utf-8"))
        for name in FILES:
            figures = measure(FIXTURES / f"{prefix}{name}", truth)
            figures["ledger"] = ledger
            results.append(figures)
            print(
                f"{ledger:9} {name:24} {figures['format']:9} "
                f"{figures['recurring_precision']:6.2f} {figures['recurring_recall']:6.2f} "
                f"{figures['catalog_precision']:6.2f} {figures['catalog_recall']:6.2f}"
            )
    print()
    for figures in results:
        for key in ("missed", "wrong", "catalog_missed"):
            if figures[key]:
                print(f"{figures['ledger']}/{figures['file']} {key}: {'; '.join(figures[key])}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
