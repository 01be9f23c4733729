"""Any file at all: read as a statement or refused with a StatementError, never a crash."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from subterminator_tui.statements.reading import read_statement
from subterminator_tui.statements.transactions import StatementError

#: Cells a bank export holds, mixed at random into rows.
CELLS = st.sampled_from(
    [
        "Date",
        "Description",
        "Amount",
        "Debit",
        "Credit",
        "Balance",
        "Currency",
        "2025-01-03",
        "03/01/2025",
        "31.01.2025",
        "-15.49",
        "1.234,56",
        "(12.00)",
        "12.99-",
        "EUR",
        "USD",
        "NETFLIX.COM",
        "",
        '"',
        "\x1b[2J",
    ]
)
ROWS = st.lists(st.lists(CELLS, min_size=1, max_size=7), max_size=12)
SEPARATORS = st.sampled_from([",", ";", "\t", "|"])


def _read(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "upload"
    path.write_bytes(content)
    try:
        read_statement(path)
    except StatementError as refused:
        assert str(path) in str(refused)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=ROWS, separator=SEPARATORS)
def test_any_table_of_bank_like_cells(
    tmp_path: Path, rows: list[list[str]], separator: str
) -> None:
    """Headers, dates, amounts and text in any order and shape."""
    text = "\n".join(separator.join(row) for row in rows)
    _read(tmp_path, text.encode("utf-8"))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(content=st.binary(max_size=400))
def test_any_bytes(tmp_path: Path, content: bytes) -> None:
    """Random bytes, including what starts like OFX, camt or MT940."""
    _read(tmp_path, content)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    prefix=st.sampled_from(
        [
            b"OFXHEADER:100\n\n<OFX>",
            b":20:X\n:25:Y\n:60F:C250101EUR1,00\n:61:",
            b'<?xml version="1.0"?>'
            b'<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>',
        ]
    ),
    rest=st.binary(max_size=200),
)
def test_a_format_header_then_anything(tmp_path: Path, prefix: bytes, rest: bytes) -> None:
    """A file that starts as a format promises and then is anything."""
    _read(tmp_path, prefix + rest)
