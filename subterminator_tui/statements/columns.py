"""Which column of a CSV export holds what: found from its header, or asked.

Banks name their columns in many ways ("Transaction Date", "Buchungstag", "Date
opération") and the names are data (``csv_headers.toml``). A role with exactly one
plain candidate is settled; a role with two (a "Description" and a "Payee") is a
question for the person, asked through a ``ColumnQuestion`` by the front end (on a
terminal) or answered beforehand with ``--columns role=NAME,...``.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Annotated, Protocol

from pydantic import BaseModel, BeforeValidator

from subterminator_tui.rules.fields import STRICT_MODEL_CONFIG, as_tuple
from subterminator_tui.statements.transactions import StatementError

#: The roles a column can play; ``balance`` is recognised only to be left alone.
ROLES = ("date", "description", "amount", "debit", "credit", "currency")


class HeaderNames(BaseModel):
    """One role's column names: plain ones first, fallbacks after."""

    model_config = STRICT_MODEL_CONFIG

    first: Annotated[tuple[str, ...], BeforeValidator(as_tuple)]
    """Names that plainly mean the role; two such columns are an ambiguity."""
    then: Annotated[tuple[str, ...], BeforeValidator(as_tuple)]
    """Names used only when no column has a plain name."""


class HeaderTable(BaseModel):
    """``csv_headers.toml``: every role's names."""

    model_config = STRICT_MODEL_CONFIG

    date: HeaderNames
    """The booking or transaction day."""
    description: HeaderNames
    """The descriptor text."""
    amount: HeaderNames
    """One signed amount."""
    debit: HeaderNames
    """Money out, when out and in have columns of their own."""
    credit: HeaderNames
    """Money in."""
    currency: HeaderNames
    """The row's currency code."""
    balance: HeaderNames
    """A running balance: numeric, never the amount."""


@functools.cache
def header_table() -> HeaderTable:
    """The bundled column names, read and validated once."""
    text = resources.files(__package__).joinpath("csv_headers.toml").read_text("utf-8")
    return HeaderTable.model_validate(tomllib.loads(text))


def header_key(name: str) -> str:
    """A header as compared: lower case, letters only, bracketed units dropped."""
    without_unit = re.sub(r"\(.*?\)|\[.*?\]", " ", name.lower())
    return re.sub(r"[^a-zäöüßéèêáíóúñç]", "", without_unit)


class ColumnQuestion(Protocol):
    """Asks the person which column plays ``role``; None when they would not say."""

    def __call__(self, path: Path, role: str, candidates: Sequence[str]) -> str | None:
        """One of ``candidates``, or None."""


@dataclass(frozen=True, slots=True)
class ColumnChoice:
    """Columns the person named beforehand (``--columns date=Posted,amount=Amount``)."""

    names: dict[str, str] = field(default_factory=dict)
    """Role to header name (or 1-based column number for a file without a header)."""

    @classmethod
    def parse(cls, text: str) -> ColumnChoice:
        """Read ``role=NAME,role=NAME``; ValueError names what is wrong."""
        names: dict[str, str] = {}
        for part in filter(None, (piece.strip() for piece in text.split(","))):
            role, equals, name = part.partition("=")
            role = role.strip().lower()
            if not equals or not name.strip():
                raise ValueError(f"'{part}' is not ROLE=COLUMN (e.g. date=Posted Date)")
            if role not in ROLES:
                raise ValueError(f"'{role}' is not a role; roles: {', '.join(ROLES)}")
            names[role] = name.strip()
        return cls(names)


@dataclass(frozen=True, slots=True)
class ColumnMap:
    """Where each role is: column indexes into a row."""

    date: int
    description: int
    amount: int | None = None
    debit: int | None = None
    credit: int | None = None
    currency: int | None = None


def map_columns(
    path: Path,
    header: Sequence[str],
    choice: ColumnChoice,
    ask: ColumnQuestion | None,
) -> ColumnMap:
    """Each role's column in ``header``, from the person's choice, the names, or a question."""
    table = header_table()
    keys = [header_key(cell) for cell in header]
    found: dict[str, int | None] = {}
    for role in ROLES:
        if role in choice.names:
            found[role] = _named_column(path, header, role, choice.names[role])
            continue
        names: HeaderNames = getattr(table, role)
        balance = {header_key(name) for name in table.balance.first}
        for tier in (names.first, names.then):
            wanted = {header_key(name) for name in tier}
            hits = [i for i, key in enumerate(keys) if key in wanted and key not in balance]
            hits = [i for i in hits if i not in found.values()]
            if len(hits) == 1:
                found[role] = hits[0]
                break
            if len(hits) > 1:
                found[role] = _settle(path, header, role, hits, ask)
                break
        else:
            found[role] = None
    if found["amount"] is not None:
        # A signed amount says everything: debit and credit columns beside it are extra.
        found["debit"] = found["credit"] = None
    return _complete(path, header, found)


def _named_column(path: Path, header: Sequence[str], role: str, name: str) -> int:
    if name.isdigit() and 1 <= int(name) <= len(header):
        return int(name) - 1
    for index, cell in enumerate(header):
        if cell.strip().lower() == name.lower() or header_key(cell) == header_key(name):
            return index
    raise StatementError(
        path,
        f"--columns names '{name}' for {role}, and the file has no such column",
        f"Its columns are: {_listed(header)}.",
    )


def _settle(
    path: Path, header: Sequence[str], role: str, hits: list[int], ask: ColumnQuestion | None
) -> int:
    candidates = [header[i] for i in hits]
    answer = ask(path, role, candidates) if ask is not None else None
    if answer is not None and answer in candidates:
        return hits[candidates.index(answer)]
    example = ",".join(f"{role}={candidates[0]}" for _ in range(1))
    raise StatementError(
        path,
        f"more than one column could be the {role}: {_listed(candidates)}",
        f"Say which with --columns, e.g. --columns '{example}'.",
    )


def _complete(path: Path, header: Sequence[str], found: dict[str, int | None]) -> ColumnMap:
    missing = [role for role in ("date", "description") if found[role] is None]
    has_amount = found["amount"] is not None or found["debit"] is not None
    if not has_amount:
        missing.append("amount")
    if missing:
        raise StatementError(
            path,
            f"no column for the {' and the '.join(missing)} among {_listed(header)} "
            "(an unknown bank layout)",
            "Name them with --columns, e.g. --columns 'date=Posted,description=Payee,"
            "amount=Amount' (or debit=...,credit=... for separate columns).",
        )
    date, description = found["date"], found["description"]
    assert date is not None and description is not None
    return ColumnMap(
        date=date,
        description=description,
        amount=found["amount"],
        debit=found["debit"],
        credit=found["credit"],
        currency=found["currency"],
    )


def _listed(names: Sequence[str]) -> str:
    return ", ".join(f"'{name}'" for name in names) or "(none)"
