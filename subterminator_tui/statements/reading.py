"""One entry point for every statement format: the file's own content says which it is."""

from __future__ import annotations

import re
from pathlib import Path

from subterminator_tui.statements.camt_reader import read_camt053
from subterminator_tui.statements.columns import ColumnChoice, ColumnQuestion
from subterminator_tui.statements.csv_reader import read_csv
from subterminator_tui.statements.mt940_reader import read_mt940
from subterminator_tui.statements.ofx_reader import read_ofx
from subterminator_tui.statements.transactions import Statement, StatementError

#: Larger than any year of one account's statements; a bigger file is something else.
MAX_STATEMENT_BYTES = 50 * 1024 * 1024

_OFX = re.compile(rb"OFXHEADER|<OFX>|<\?OFX", re.IGNORECASE)
_CAMT = re.compile(rb"urn:iso:std:iso:20022:tech:xsd:camt\.05[234]")
_MT940 = re.compile(rb"^:20:|\n:20:|^\{1:|:60[FM]:", re.MULTILINE)
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1f]")


def read_statement(
    path: Path, choice: ColumnChoice | None = None, ask: ColumnQuestion | None = None
) -> Statement:
    """Read ``path`` as whichever format it is; StatementError says why it cannot be."""
    try:
        size = path.stat().st_size
        if size > MAX_STATEMENT_BYTES:
            raise StatementError(
                path,
                f"{size // (1024 * 1024)} MB is larger than a statement",
                "Export one account's transactions for a year or two.",
            )
        raw = path.read_bytes()
    except IsADirectoryError:
        raise StatementError(path, "is a folder", "Give the statement files in it.") from None
    except FileNotFoundError:
        raise StatementError(path, "no such file", "Check the path.") from None
    except PermissionError:
        raise StatementError(
            path, "cannot be read (permission denied)", "Check the file's permissions."
        ) from None
    except OSError as error:
        raise StatementError(
            path, f"cannot be read ({error.strerror})", "Check the file."
        ) from None
    head = raw[:4096]
    if head.startswith(b"%PDF"):
        raise StatementError(
            path,
            "a PDF, which holds a picture of the statement rather than its rows",
            "Download the transactions from the bank as CSV, OFX/QFX, camt.053 or MT940 instead.",
        )
    if _CAMT.search(head) or (head.lstrip().startswith(b"<?xml") and b"BkToCstmrStmt" in raw):
        return read_camt053(path, raw)
    if _OFX.search(head):
        return read_ofx(path, raw)
    if _MT940.search(head) and b":61:" in raw:
        return read_mt940(path, raw)
    # A stray control character is a merchant's doing (shown inert later); many, or a
    # NUL, is a binary file.
    if (
        b"\x00" in head
        or len(_CONTROL.findall(head)) > len(head) // 10
        or head.lstrip().startswith(b"<")
    ):
        raise StatementError(
            path,
            "not a bank statement (not CSV, OFX/QFX, camt.053 or MT940)",
            "Download the account's transactions from the bank in one of those formats.",
        )
    return read_csv(path, raw, choice or ColumnChoice(), ask)
