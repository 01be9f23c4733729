"""Bank and card CSV exports: delimiter, header row, columns, dates and amounts found.

Exports differ in every way a CSV can: commas or semicolons, a preamble of account
lines before the header (German banks), no header at all, one signed amount or a debit
and a credit column, "1,234.56" or "1.234,56", day-first or month-first dates, and
charges written positive (card exports) or negative (bank accounts). Each is found
from the file itself; only a real ambiguity is asked (see ``columns``).
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path

from subterminator_tui.statements.columns import (
    ColumnChoice,
    ColumnMap,
    ColumnQuestion,
    header_key,
    header_table,
    map_columns,
)
from subterminator_tui.statements.transactions import Statement, StatementError, Transaction

# Day-first and month-first orders read the same "03/04/2026" differently; the file's
# order is the one every date cell fits (a "13/04" rules month-first out).
_DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y%m%d",
    "%d.%m.%Y",
    "%d.%m.%y",
    "%m/%d/%Y",
    "%d/%m/%Y",
    "%m/%d/%y",
    "%d/%m/%y",
    "%d-%m-%Y",
    "%m-%d-%Y",
    "%d %b %Y",
    "%d-%b-%Y",
    "%d %B %Y",
    "%b %d, %Y",
    "%B %d, %Y",
)
_AMOUNT = re.compile(r"^[+-]?[\d.,' ]*\d$")
_CURRENCY_WORDS = re.compile(r"[A-Z]{3}|[$€£¥]|CHF|EUR|USD|GBP")


def read_csv(path: Path, raw: bytes, choice: ColumnChoice, ask: ColumnQuestion | None) -> Statement:
    """Every booked row of a CSV export; StatementError when it cannot be read as one."""
    text = _decode(raw)
    rows = _rows(path, text)
    header_at = _header_row(rows)
    if header_at is None and _unknown_header(rows):
        # A header row in words no bank vocabulary here knows: name its columns.
        header, body = rows[0], rows[1:]
        columns = map_columns(path, header, choice, ask)
    elif header_at is None:
        header, body = _headerless(path, rows, choice, ask)
        columns = _content_columns(path, header, body, choice, ask)
    else:
        header, body = rows[header_at], rows[header_at + 1 :]
        columns = map_columns(path, header, choice, ask)
    width = len(header)
    body = [row for row in body if len(row) >= min(width, _needed(columns)) and any(row)]
    date_format = _date_format(path, [row[columns.date] for row in body], ask)
    decimal_comma = _decimal_comma(body, columns)
    transactions: list[Transaction] = []
    for row in body:
        day = _parse_date(row[columns.date], date_format)
        if day is None:
            # A closing balance line or a footer: not a booking.
            continue
        amount = _row_amount(row, columns, decimal_comma)
        if amount is None:
            continue
        currency = row[columns.currency].strip().upper() if columns.currency is not None else ""
        transactions.append(
            Transaction(
                booked=day,
                spent=amount,
                currency=currency,
                descriptor=row[columns.description].strip(),
            )
        )
    if not transactions:
        raise StatementError(
            path,
            "no row with a date and an amount was found",
            "Export the account's transactions as CSV (or OFX, camt.053, MT940) and try again.",
        )
    if columns.amount is not None and columns.debit is None:
        transactions = _charges_positive(transactions)
    return Statement(path=path, format="csv", transactions=tuple(transactions))


def _decode(raw: bytes) -> str:
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


def _rows(path: Path, text: str) -> list[list[str]]:
    sample = text[:8192]
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, ";,\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as error:
        raise StatementError(
            path, f"not a readable CSV file ({error})", "Export it again as CSV from the bank."
        ) from None
    rows = [row for row in rows if any(row)]
    if not rows or max(len(row) for row in rows) < 3:
        raise StatementError(
            path,
            "not a bank statement: no table of dates, descriptions and amounts",
            "Export the account's transactions from the bank as CSV, OFX/QFX, camt.053 or MT940.",
        )
    return rows


def _header_row(rows: Sequence[Sequence[str]]) -> int | None:
    """The first of the top rows naming a date and an amount or description column."""
    table = header_table()
    date_names = {header_key(name) for name in (*table.date.first, *table.date.then)}
    other_names = {
        header_key(name)
        for names in (table.amount, table.debit, table.description)
        for name in (*names.first, *names.then)
    }
    for index, row in enumerate(rows[:30]):
        keys = {header_key(cell) for cell in row}
        if keys & date_names and keys & other_names:
            return index
    return None


def _unknown_header(rows: Sequence[Sequence[str]]) -> bool:
    """The first row holds only words while the rows under it hold dates: a header."""
    first, rest = rows[0], rows[1:31]
    if any(_looks_like_date(cell) or _looks_like_amount(cell) for cell in first if cell):
        return False
    return any(any(_looks_like_date(cell) for cell in row) for row in rest)


def _headerless(
    path: Path, rows: list[list[str]], choice: ColumnChoice, ask: ColumnQuestion | None
) -> tuple[list[str], list[list[str]]]:
    width = Counter(len(row) for row in rows).most_common(1)[0][0]
    body = [row for row in rows if len(row) == width]
    return [str(number) for number in range(1, width + 1)], body


def _content_columns(
    path: Path,
    header: list[str],
    body: list[list[str]],
    choice: ColumnChoice,
    ask: ColumnQuestion | None,
) -> ColumnMap:
    """Roles found from what the cells hold, for a file without a header row."""
    if choice.names:
        return map_columns(path, header, choice, ask)
    sample = body[:200]
    dates = [i for i in range(len(header)) if _all(sample, i, _looks_like_date)]
    amounts = [
        i for i in range(len(header)) if i not in dates and _all(sample, i, _looks_like_amount)
    ]
    texts = [i for i in range(len(header)) if i not in dates and i not in amounts]
    if not dates or not amounts or not texts:
        raise StatementError(
            path,
            "not a bank statement: no header row, and no columns of dates, amounts and text",
            "Export the account's transactions from the bank as CSV with a header row, or "
            "name the columns with --columns 'date=1,description=2,amount=3'.",
        )
    # The description: the text column with the most different values, then the longest.
    picked = {"date": dates[0], "description": max(texts, key=lambda i: _text_weight(sample, i))}
    if len(amounts) > 1:
        candidates = [f"{i + 1}" for i in amounts]
        answer = ask(path, "amount", candidates) if ask is not None else None
        if answer not in candidates:
            shown = ", ".join(f"column {i + 1} (e.g. {sample[0][i]})" for i in amounts)
            raise StatementError(
                path,
                f"no header row, and more than one column could be the amount: {shown}",
                f"Say which with --columns, e.g. --columns 'amount={amounts[0] + 1}'.",
            )
        assert answer is not None
        picked["amount"] = int(answer) - 1
    else:
        picked["amount"] = amounts[0]
    return ColumnMap(
        date=picked["date"], description=picked["description"], amount=picked["amount"]
    )


def _all(rows: Sequence[Sequence[str]], index: int, test: object) -> bool:
    cells = [row[index] for row in rows if index < len(row) and row[index]]
    return bool(cells) and all(test(cell) for cell in cells)  # type: ignore[operator]


def _text_weight(rows: Sequence[Sequence[str]], index: int) -> tuple[int, int]:
    cells = [row[index] for row in rows if index < len(row)]
    return len(set(cells)), sum(len(cell) for cell in cells)


def _looks_like_date(cell: str) -> bool:
    return any(_parse_date(cell, fmt) is not None for fmt in _DATE_FORMATS)


def _looks_like_amount(cell: str) -> bool:
    return _parse_amount(cell, decimal_comma=False) is not None


def _needed(columns: ColumnMap) -> int:
    indexes = [
        index
        for index in (
            columns.date,
            columns.description,
            columns.amount,
            columns.debit,
            columns.credit,
            columns.currency,
        )
        if index is not None
    ]
    return max(indexes) + 1


def _date_format(path: Path, cells: list[str], ask: ColumnQuestion | None) -> str:
    cells = [cell.strip() for cell in cells if cell.strip()]
    fitting = [fmt for fmt in _DATE_FORMATS if _share(cells, fmt) >= 0.9]
    if not fitting:
        raise StatementError(
            path,
            "its date column holds no dates this reader knows (e.g. 2026-03-31, 31.03.2026, "
            "03/31/2026)",
            "Export the statement again with another date format, or name the date column "
            "with --columns 'date=NAME'.",
        )
    readings = {fmt: [_parse_date(cell, fmt) for cell in cells] for fmt in fitting}
    distinct = {tuple(days) for days in readings.values()}
    if len(distinct) == 1:
        return fitting[0]
    day_first = next(fmt for fmt in fitting if fmt.startswith("%d"))
    month_first = next((fmt for fmt in fitting if fmt.startswith(("%m", "%b", "%B"))), fitting[0])
    choices = {"day first": day_first, "month first": month_first}
    answer = ask(path, "date order", list(choices)) if ask is not None else None
    if answer in choices:
        return choices[answer]
    raise StatementError(
        path,
        f"every date (e.g. {cells[0]}) reads both day first and month first",
        "Export a longer period (a day after the 12th settles it), or export with "
        "ISO dates (2026-03-31).",
    )


def _share(cells: list[str], fmt: str) -> float:
    if not cells:
        return 0.0
    return sum(_parse_date(cell, fmt) is not None for cell in cells) / len(cells)


def _parse_date(cell: str, fmt: str) -> datetime.date | None:
    try:
        return datetime.datetime.strptime(cell.strip()[:30], fmt).date()
    except ValueError:
        return None


def _decimal_comma(body: Sequence[Sequence[str]], columns: ColumnMap) -> bool:
    """ "12,99" and "1.234,56" (decimal comma) against "12.99" and "1,234.56"."""
    votes = Counter[bool]()
    for row in body:
        for index in (columns.amount, columns.debit, columns.credit):
            if index is None or index >= len(row):
                continue
            cell = re.sub(r"[^\d.,]", "", row[index])
            if re.search(r",\d{1,2}$", cell):
                votes[True] += 1
            elif re.search(r"\.\d{1,2}$", cell):
                votes[False] += 1
    return votes[True] > votes[False]


def _row_amount(row: Sequence[str], columns: ColumnMap, decimal_comma: bool) -> Decimal | None:
    """What left the account (positive), in the file's own sign for a signed column."""
    if columns.amount is not None:
        value = _parse_amount(row[columns.amount], decimal_comma)
        return None if value is None else -value
    debit = _parse_amount(row[columns.debit], decimal_comma) if columns.debit is not None else None
    credit = (
        _parse_amount(row[columns.credit], decimal_comma) if columns.credit is not None else None
    )
    if debit:
        return abs(debit)
    if credit:
        return -abs(credit)
    return None


def _parse_amount(cell: str, decimal_comma: bool) -> Decimal | None:
    text = _CURRENCY_WORDS.sub("", cell.strip().upper()).replace("\u2212", "-").strip()
    negative = False
    if text.startswith("(") and text.endswith(")"):
        negative, text = True, text[1:-1].strip()
    for suffix, sign in (("CR", False), ("DR", True), ("-", True), ("+", False)):
        if text.endswith(suffix) and len(text) > len(suffix):
            negative = negative or sign
            text = text[: -len(suffix)].strip()
    if not text or not _AMOUNT.match(text):
        return None
    if text[0] in "+-":
        negative = negative or text[0] == "-"
        text = text[1:]
    text = text.replace(" ", "").replace("'", "")
    # "1.234,56" drops its dots, "1,234.56" its commas: what is left is a plain decimal.
    text = text.replace(".", "").replace(",", ".") if decimal_comma else text.replace(",", "")
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return -value if negative else value


def _charges_positive(transactions: list[Transaction]) -> list[Transaction]:
    """Make charges positive whichever sign the export gives them.

    A bank account writes money out negative and is mostly money out; a card export
    (Amex, many card CSVs) writes charges positive and is mostly charges. Either way the
    usual sign is the charges' sign, so it is made positive.
    """
    signs = Counter(transaction.spent > 0 for transaction in transactions if transaction.spent)
    if signs[True] >= signs[False]:
        return transactions
    return [Transaction(t.booked, -t.spent, t.currency, t.descriptor) for t in transactions]
