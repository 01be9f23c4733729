"""OFX and QFX (OFX 1.x SGML and 2.x XML), read with ofxtools.

ofxtools is pure Python with no dependencies, typed, maintained, and validates every
element against the OFX specification (ofxparse, the other choice, has seen no release
since 2021 and brings BeautifulSoup and lxml). Amounts are signed from the account
holder's side for bank and card statements alike, so money out is negative.
"""

from __future__ import annotations

import io
from decimal import Decimal
from pathlib import Path

from ofxtools.Parser import OFXTree

from subterminator_tui.statements.transactions import Statement, StatementError, Transaction


def read_ofx(path: Path, raw: bytes) -> Statement:
    """Every transaction of every statement in an OFX or QFX file."""
    tree = OFXTree()
    try:
        tree.parse(io.BytesIO(raw))
        ofx = tree.convert()
    except Exception as error:  # ofxtools raises many kinds for one meaning: unreadable
        raise StatementError(
            path,
            f"looks like OFX but could not be read ({type(error).__name__}: {_short(str(error))})",
            "Download the statement again from the bank (OFX, QFX, or CSV instead).",
        ) from None
    transactions: list[Transaction] = []
    for statement in ofx.statements:
        currency = str(getattr(statement, "curdef", "") or "")
        for entry in statement.transactions:
            amount = Decimal(entry.trnamt)
            parts = [str(part) for part in (entry.name, entry.memo) if part]
            payee = getattr(entry, "payee", None)
            if not parts and payee is not None:
                parts = [str(payee.name)]
            entry_currency = getattr(entry, "currency", None)
            transactions.append(
                Transaction(
                    booked=entry.dtposted.date(),
                    spent=-amount,
                    currency=str(entry_currency.cursym) if entry_currency else currency,
                    descriptor=" ".join(parts),
                )
            )
    if not transactions:
        raise StatementError(
            path,
            "an OFX file without transactions",
            "Download a statement that covers at least a year of the account.",
        )
    return Statement(path=path, format="ofx", transactions=tuple(transactions))


def _short(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:120]
