"""``subterminator find`` as a person runs it: the table, --json, bad files, nothing kept.

Real statements in every format, the real parsers, the real catalog, a real child
process; the only thing isolated is where the app could write (every platformdirs
location points at a fresh directory), so "nothing written" can be checked.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from subterminator_tui.rules.loader import load_services
from subterminator_tui.statements.finding import find_subscriptions
from tests.support import warm_children
from tests.support.warm_children import WarmPopen

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
#: Rows of the ledger that are not subscriptions: none may be kept anywhere.
OTHER_ROWS = ("CORNER GROCERY", "BLUE BOTTLE", "CINEMA CITY", "ACME CORP PAYROLL", "SHELL OIL")


def find(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``subterminator find ARGS`` in a child with the test's (isolated) environment."""
    return warm_children.run(
        [sys.executable, "-m", "subterminator_tui", "find", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
        env=dict(os.environ),
    )


def files_under(directory: Path) -> list[Path]:
    """Every file below ``directory``."""
    return sorted(path for path in directory.rglob("*") if path.is_file())


def test_the_table_names_services_costs_and_how_to_cancel(isolated_home: Path) -> None:
    """An OFX statement: Netflix at its new price, Apple's line, the yearly total; exit 0."""
    run = find(str(FIXTURES / "checking.ofx"))
    assert run.returncode == 0, run.stderr
    netflix = next(line for line in run.stdout.splitlines() if line.startswith("Netflix"))
    assert "17.99 USD" in netflix and "monthly" in netflix and "215.88 USD" in netflix
    assert "subterminator cancel netflix" in netflix
    assert "Netflix: the price went from 15.49 to 17.99." in run.stdout
    assert "Billed by Apple:" in run.stdout and "https://support.apple.com/" in run.stdout
    assert "Nothing was sent or written." in run.stdout


def test_json_lists_every_subscription_with_its_cadence(isolated_home: Path) -> None:
    """--json: plain data a script can read, one entry per subscription."""
    run = find(str(FIXTURES / "statement.mt940"), "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    by_name = {entry["name"]: entry for entry in data["subscriptions"]}
    assert by_name["NordVPN"]["cadence"] == "yearly"
    assert by_name["Prime Video Channels"]["billed_by"] == "Amazon"
    assert by_name["Spotify Premium"]["paid_through"] == "PayPal"
    assert data["statements"] == [
        {"file": str(FIXTURES / "statement.mt940"), "format": "mt940", "rows": 343}
    ]


def test_nothing_is_written_and_no_other_row_is_printed(
    isolated_home: Path, tmp_path: Path
) -> None:
    """No file appears anywhere the app could write; the output holds subscriptions only."""
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    before = files_under(isolated_home)
    run = find(
        *(str(FIXTURES / name) for name in ("bank.csv", "statement.camt053.xml")), cwd=workdir
    )
    assert run.returncode == 0, run.stderr
    assert files_under(isolated_home) == before
    assert files_under(workdir) == []
    for row in OTHER_ROWS:
        assert row not in run.stdout.upper() and row not in run.stderr.upper()


def test_no_other_row_reaches_a_log(caplog: pytest.LogCaptureFixture) -> None:
    """With every logger at DEBUG, no record mentions a row that is not a subscription."""
    caplog.set_level(logging.DEBUG)
    report = find_subscriptions([FIXTURES / "girokonto.csv"], load_services(user_file=None).all())
    assert report.subscriptions
    logged = "\n".join(record.getMessage() for record in caplog.records).upper()
    for row in OTHER_ROWS:
        assert row not in logged


def test_the_report_keeps_one_row_per_subscription_only() -> None:
    """What find returns holds no descriptor of a row that is not a subscription."""
    report = find_subscriptions([FIXTURES / "card.qfx"], load_services(user_file=None).all())
    kept = json.dumps([subscription.as_json() for subscription in report.subscriptions]).upper()
    for row in OTHER_ROWS:
        assert row not in kept


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("letter.pdf", b"%PDF-1.7\n", "PDF"),
        ("notes.txt", b"Dear customer,\nsee attached.\n", "not a bank statement"),
        ("export.csv", b"When,What,How much\n2025-01-03,NETFLIX.COM,-15.49\n", "--columns"),
        (
            "mixed.csv",
            b"Date,Description,Amount,Currency\n2025-01-03,NETFLIX.COM,-15.49,EUR\n"
            b"2025-02-03,NETFLIX.COM,-15.49,USD\n",
            "mixed currencies",
        ),
        (
            "once.csv",
            b"Date,Description,Amount\n2025-01-03,CINEMA CITY,-12.00\n"
            b"2025-01-09,BEST BUY,-249.00\n2025-02-11,CORNER GROCERY,-52.10\n",
            "no charge repeats",
        ),
    ],
)
def test_bad_input_exits_2_naming_the_file_and_writes_nothing(
    isolated_home: Path, tmp_path: Path, name: str, content: bytes, words: str
) -> None:
    """Not a statement, an unknown layout, mixed currencies, nothing recurring: exit 2."""
    path = tmp_path / name
    path.write_bytes(content)
    before = files_under(isolated_home)
    run = find(str(path))
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert str(path) in run.stderr and words in run.stderr
    assert run.stdout == ""
    assert files_under(isolated_home) == before


def test_a_missing_file_exits_2(isolated_home: Path, tmp_path: Path) -> None:
    """A path that does not exist: named, exit 2."""
    run = find(str(tmp_path / "nowhere.csv"))
    assert run.returncode == 2 and "nowhere.csv: no such file" in run.stderr


def test_a_wrong_columns_option_is_refused(isolated_home: Path) -> None:
    """--columns with an unknown role names the roles."""
    run = find(str(FIXTURES / "bank.csv"), "--columns", "when=Date")
    assert run.returncode == 2 and "roles: date, description" in run.stderr


def test_an_ambiguous_column_is_asked_on_a_terminal(isolated_home: Path, tmp_path: Path) -> None:
    """On a terminal, two description columns are a question; the answer is used."""
    import pty
    import select

    rows = ["Date,Payee,Description,Amount"] + [
        f"2025-{month:02d}-14,Streaming,NETFLIX.COM 866-579-7172 CA,-15.49"
        for month in range(1, 13)
    ]
    path = tmp_path / "export.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    leader, follower = pty.openpty()
    child = WarmPopen(
        [sys.executable, "-m", "subterminator_tui", "find", str(path)],
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=follower,
        env=dict(os.environ),
    )
    os.close(follower)
    seen = b""
    try:
        while b"number (Enter to stop)" not in seen:
            ready, _, _ = select.select([leader], [], [], 60)
            assert ready, seen
            seen += os.read(leader, 4096)
        assert b"which column is the description?" in seen
        assert b"1) Payee" in seen and b"2) Description" in seen
        os.write(leader, b"2\n")
        stdout, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
    assert child.returncode == 0
    assert "subterminator cancel netflix" in stdout.decode()


def test_keep_writes_one_file_of_subscriptions_and_no_other_row(isolated_home: Path) -> None:
    """--keep: only subscriptions.json appears, beside the journal, with no statement text."""
    before = files_under(isolated_home)
    run = find(str(FIXTURES / "varied-statement.mt940"), "--keep")
    assert run.returncode == 0, run.stderr
    written = sorted(set(files_under(isolated_home)) - set(before))
    assert written == [isolated_home / "xdg_state_home" / "subterminator" / "subscriptions.json"]
    kept = written[0].read_text(encoding="utf-8").upper()
    for row in ("SQ *DAILY GRIND", "TRADER JOE", "UBER *TRIP", "DIRECT DEP", "AMAZON.COM*"):
        assert row not in kept
    assert "were kept (one row each, no statement text)" in run.stdout


def test_no_command_on_a_terminal_opens_the_home(isolated_home: Path) -> None:
    """`subterminator` alone on a terminal shows the home; q leaves with exit 0."""
    import pty
    import select

    leader, follower = pty.openpty()
    child = WarmPopen(
        [sys.executable, "-m", "subterminator_tui"],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"},
    )
    os.close(follower)
    seen = b""
    try:
        while b"Your subscriptions" not in seen or b"Add statement" not in seen:
            ready, _, _ = select.select([leader], [], [], 60)
            assert ready, seen[-500:]
            seen += os.read(leader, 65536)
        os.write(leader, b"q")
        code = child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
    assert code == 0


def test_no_command_without_a_terminal_prints_the_usage(isolated_home: Path) -> None:
    """Piped (a script), no command is still a usage error: exit 2, the commands listed."""
    run = warm_children.run(
        [sys.executable, "-m", "subterminator_tui"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 2 and "find" in run.stderr


def test_an_escape_sequence_in_a_descriptor_never_reaches_the_terminal(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A merchant named with an escape sequence (clear screen, window title): shown inert."""
    name = "EVIL\x1b[2J\x1b]0;owned\x07 STREAMING"
    rows = ["Date,Description,Amount"] + [
        f"2025-{month:02d}-05,{name},-9.99" for month in range(1, 13)
    ]
    path = tmp_path / "export.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    for extra in ((), ("--json",)):
        run = find(str(path), *extra)
        assert run.returncode == 0, run.stderr
        assert "\x1b" not in run.stdout and "\x07" not in run.stdout
        assert "EVIL" in run.stdout.upper()
