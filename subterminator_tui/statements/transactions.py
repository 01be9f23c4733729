"""What a statement holds once read, whatever its format: dated, signed amounts with a text.

Every reader (CSV, OFX, camt.053, MT940) turns its file into ``Transaction`` rows and
nothing else: a row keeps only what recurring-charge detection needs. Account numbers,
balances and counterparties' IBANs are read past, never kept.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from subterminator_tui.errors import ConfigurationError


@dataclass(frozen=True, slots=True)
class Transaction:
    """One booked row: money out is a positive ``spent``, money in (a refund) negative."""

    booked: datetime.date
    """The day the bank booked it (or the transaction day when that is all there is)."""
    spent: Decimal
    """What left the account: positive for a charge, negative for a refund or income."""
    currency: str
    """ISO 4217 code (``EUR``), or "" when the file does not say."""
    descriptor: str
    """The text the bank shows for it, e.g. ``NETFLIX.COM 866-579-7172 CA``."""


@dataclass(frozen=True, slots=True)
class Statement:
    """One file read: its transactions and the format it was read as."""

    path: Path
    """The file, as given on the command line."""
    format: str
    """``csv``, ``ofx``, ``camt.053`` or ``mt940``."""
    transactions: tuple[Transaction, ...]
    """Every booked row, in file order."""

    @property
    def last_day(self) -> datetime.date:
        """The latest booking day: what "still charging" is measured against."""
        return max(transaction.booked for transaction in self.transactions)

    @property
    def currencies(self) -> frozenset[str]:
        """The currencies its rows are in ("" when the file does not say)."""
        return frozenset(transaction.currency for transaction in self.transactions)


class StatementError(ConfigurationError):
    """A statement cannot be used as given; the message names the file and what to do."""

    def __init__(self, path: Path, problem: str, what_to_do: str) -> None:
        self.path = path
        self.problem = problem
        self.what_to_do = what_to_do
        super().__init__(f"{path}: {problem}. {what_to_do}")
