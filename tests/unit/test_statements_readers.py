"""Reading exported statements: every format, the CSV shapes banks write, and bad files."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

import pytest

from subterminator_tui.statements.columns import ColumnChoice
from subterminator_tui.statements.reading import read_statement
from subterminator_tui.statements.transactions import StatementError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
FORMATS = {
    "bank.csv": "csv",
    "card.csv": "csv",
    "girokonto.csv": "csv",
    "checking.ofx": "ofx",
    "card.qfx": "ofx",
    "statement.camt053.xml": "camt.053",
    "statement.mt940": "mt940",
}


def _write(tmp_path: Path, text: str, name: str = "export.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "fmt"), sorted(FORMATS.items()))
def test_every_format_reads_the_same_ledger(name: str, fmt: str) -> None:
    """Each file holds the one ledger: same rows, same money out, same days."""
    reference = read_statement(FIXTURES / "bank.csv")
    statement = read_statement(FIXTURES / name)
    assert statement.format == fmt
    assert len(statement.transactions) == len(reference.transactions)
    assert sum(t.spent for t in statement.transactions) == sum(
        t.spent for t in reference.transactions
    )
    assert statement.last_day == reference.last_day == datetime.date(2026, 2, 28)


def test_a_card_export_with_positive_charges_reads_charges_as_money_out(tmp_path: Path) -> None:
    """Amex-style exports write charges positive and payments negative."""
    rows = (
        ["Date,Description,Amount"]
        + [f"2025-{month:02d}-03,NETFLIX.COM,15.49" for month in range(1, 7)]
        + ["2025-06-10,PAYMENT THANK YOU,-92.94"]
    )
    statement = read_statement(_write(tmp_path, "\n".join(rows)))
    assert [t.spent for t in statement.transactions][:2] == [Decimal("15.49")] * 2
    assert statement.transactions[-1].spent == Decimal("-92.94")


def test_a_german_export_with_a_preamble_and_decimal_commas(tmp_path: Path) -> None:
    """Account lines above the header, semicolons, 1.234,56 and day-first dates."""
    text = (
        '"Konto";"DE00"\n\nBuchungstag;Verwendungszweck;Betrag;Währung\n'
        "31.01.2025;MIETE;-1.234,56;EUR\n03.02.2025;NETFLIX.COM;-15,49;EUR\n"
    )
    statement = read_statement(_write(tmp_path, text))
    assert [t.spent for t in statement.transactions] == [Decimal("1234.56"), Decimal("15.49")]
    assert statement.transactions[1].booked == datetime.date(2025, 2, 3)
    assert statement.currencies == {"EUR"}


def test_a_file_without_a_header_is_read_by_what_its_columns_hold(tmp_path: Path) -> None:
    """Wells Fargo-style: date, amount, marker, blank, description; no header row."""
    text = "\n".join(
        f'"{month:02d}/14/2025","-15.49","*","","NETFLIX.COM 866-579-7172 CA"'
        for month in range(1, 13)
    )
    statement = read_statement(_write(tmp_path, text))
    assert len(statement.transactions) == 12
    assert statement.transactions[0].descriptor.startswith("NETFLIX.COM")


def test_two_plain_description_columns_are_a_question(tmp_path: Path) -> None:
    """ "Payee" and "Description" both plainly describe: asked, or refused with --columns."""
    text = "Date,Payee,Description,Amount\n2025-01-03,Netflix,NETFLIX.COM,-15.49\n"
    path = _write(tmp_path, text)
    with pytest.raises(StatementError) as refused:
        read_statement(path)
    message = str(refused.value)
    assert str(path) in message and "--columns" in message and "'Payee'" in message
    asked: list[tuple[str, Sequence[str]]] = []

    def answer(_path: Path, role: str, candidates: Sequence[str]) -> str | None:
        asked.append((role, candidates))
        return "Description"

    statement = read_statement(path, ask=answer)
    assert asked == [("description", ["Payee", "Description"])]
    assert statement.transactions[0].descriptor == "NETFLIX.COM"
    named = read_statement(path, ColumnChoice.parse("description=Payee"))
    assert named.transactions[0].descriptor == "Netflix"


def test_an_unknown_layout_names_its_columns_and_the_option(tmp_path: Path) -> None:
    """Headers no bank vocabulary knows: the message lists them and shows --columns."""
    text = "When,What,How much\n2025-01-03,NETFLIX.COM,-15.49\n"
    path = _write(tmp_path, text)
    with pytest.raises(StatementError) as refused:
        read_statement(path)
    assert "unknown bank layout" in str(refused.value) and "--columns" in str(refused.value)
    named = read_statement(path, ColumnChoice.parse("date=When,description=What,amount=How much"))
    assert named.transactions[0].spent == Decimal("15.49")


def test_dates_that_read_both_ways_are_a_question(tmp_path: Path) -> None:
    """03/04/2025 alone: day first or month first? Refused unless answered."""
    text = "Date,Description,Amount\n03/04/2025,NETFLIX.COM,-15.49\n04/05/2025,NETFLIX.COM,-15.49\n"
    path = _write(tmp_path, text)
    with pytest.raises(StatementError, match="day first and month first"):
        read_statement(path)
    statement = read_statement(path, ask=lambda _p, _role, _c: "day first")
    assert statement.transactions[0].booked == datetime.date(2025, 4, 3)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"%PDF-1.7\n%binary", "PDF"),
        (b"\x00\x01\x02\x03binary", "not a bank statement"),
        (b"", "not a bank statement"),
        (b"Dear customer,\nyour statement is attached.\n", "not a bank statement"),
        (b"<html><body>Online banking</body></html>", "not a bank statement"),
        (b"OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BROKEN", "OFX"),
        (
            b'<?xml version="1.0"?>'
            b'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">',
            "camt",
        ),
    ],
)
def test_a_file_that_is_not_a_statement_says_so(tmp_path: Path, content: bytes, words: str) -> None:
    """Each bad file ends in a StatementError naming the file and what it is not."""
    path = tmp_path / "upload.bin"
    path.write_bytes(content)
    with pytest.raises(StatementError) as refused:
        read_statement(path)
    assert str(path) in str(refused.value) and words in str(refused.value)
