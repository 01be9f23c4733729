"""The subscriptions home driven by keys, and pinned as snapshots at 80x24 and 120x36."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.settings import load_settings
from subterminator_tui.statements.kept import load_kept
from subterminator_tui.statements.overview import HomeRow
from subterminator_tui.tui.home import (
    HomeChoice,
    StatementPathScreen,
    SubscriptionsHome,
    create_home,
)
from subterminator_tui.tui.screens.help import HelpScreen
from tests.tui.conftest import quiet, wait_until

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "statements"
SnapCompare = Callable[..., bool]
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])


def sample_rows() -> list[HomeRow]:
    """Subscriptions from a statement, a cancelled one, a biller's, one known from a run."""
    return [
        HomeRow(
            "Adobe Creative Cloud",
            "adobe",
            "59.99 USD/mo",
            "2026-02-03",
            "charging",
            "subterminator cancel adobe",
        ),
        HomeRow(
            "Netflix",
            "netflix",
            "17.99 USD/mo",
            "2026-02-14",
            "cancelled, verified 2026-02-20; checked 2026-03-01: cancelled",
            "subterminator cancel netflix",
            run_id=12,
        ),
        HomeRow(
            "Apple subscription (via Apple)",
            "",
            "9.99 USD/mo",
            "2026-02-23",
            "charging",
            "at Apple",
            "Billed by Apple: On an iPhone or iPad: open Settings, tap your name, tap "
            "Subscriptions, pick the subscription and tap Cancel Subscription.",
        ),
        HomeRow(
            "Zoom", "zoom", "15.99 USD/mo", "2025-07-08", "stopped?", "subterminator cancel zoom"
        ),
        HomeRow(
            "noom",
            "noom",
            "",
            "",
            "cancels offline: letter ready",
            "subterminator cancel noom",
            run_id=9,
        ),
    ]


def home(rows: list[HomeRow] | None = None, added: list[Path] | None = None) -> SubscriptionsHome:
    """A home over fixed rows; adding a statement records the path and adds nothing."""
    shown = sample_rows() if rows is None else rows

    def add(path: Path) -> str:
        if added is not None:
            added.append(path)
        return f"{path.name}: 0 subscriptions kept."

    return SubscriptionsHome(lambda: shown, add)


async def _settled(pilot: Pilot[HomeChoice | None]) -> None:
    quiet(pilot.app)  # type: ignore[arg-type]
    await pilot.pause()


async def test_c_cancels_the_selected_service() -> None:
    """c on Netflix leaves the home with `cancel netflix`, the run opening as it does today."""
    app = home()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("down", "c")
    assert app.return_value == HomeChoice(("cancel", "netflix"))


async def test_r_rechecks_and_o_writes_the_receipt() -> None:
    """r re-checks the selected service; o asks for its last run's receipt."""
    app = home()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("down", "r")
    assert app.return_value == HomeChoice(("check", "netflix"))
    app = home()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("down", "o")
    assert app.return_value == HomeChoice(("receipt", "12"))


async def test_a_line_apple_bills_is_not_cancelled_here() -> None:
    """c on Apple's line stays on the home and says where to cancel instead."""
    app = home()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("down", "down", "c")
        await pilot.pause()
        assert app.is_running
        assert any("Billed by Apple" in str(n.message) for n in app._notifications)
        await pilot.press("q")
    assert app.return_value is None


async def test_no_receipt_without_a_finished_run() -> None:
    """o on a service never run says so and stays."""
    app = home()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("o")
        await pilot.pause()
        assert app.is_running
        assert any("no receipt" in str(n.message) for n in app._notifications)


async def test_a_adds_a_statement_by_its_path(tmp_path: Path) -> None:
    """a asks for a path; Enter hands it to the reader, and the table is read again."""
    added: list[Path] = []
    app = home(added=added)
    statement = tmp_path / "export.ofx"
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, StatementPathScreen), "the path")  # type: ignore[arg-type]
        app.screen.query_one(Input).value = str(statement)
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(added), "the statement read")  # type: ignore[arg-type]
    assert added == [statement]


async def test_help_lists_the_homes_keys_from_the_registry() -> None:
    """F1 shows cancel, re-check, receipt and add, with their keys."""
    app = home()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")  # type: ignore[arg-type]
        table = app.screen.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
    names = {str(row[1]) for row in rows}
    assert {"Cancel it", "Re-check", "Receipt", "Add statement"} <= names


async def test_the_palette_offers_the_homes_commands() -> None:
    """Ctrl+P lists the home's actions in the registry's words."""
    app = home()
    async with app.run_test(size=(120, 36)):
        titles = {command.title for command in app.get_system_commands(app.screen)}
    assert {"Cancel the selected subscription", "Add a statement"} <= titles


def test_the_factory_reads_kept_rows_and_adds_a_statement(isolated_home: Path) -> None:
    """create_home: no rows at first; adding a statement keeps its subscriptions."""
    app = create_home(load_settings())
    assert app.load_rows() == []
    said = app.add_statement_file(FIXTURES / "statement.mt940")
    assert said == "statement.mt940: 14 subscriptions kept."
    assert len(load_kept()) == 14
    assert {row.name for row in app.load_rows()} >= {"Netflix", "NordVPN"}


def test_a_bad_keymap_stops_the_home_before_it_opens(isolated_home: Path) -> None:
    """An unknown binding id in the keymap names itself."""
    (isolated_home / "config.toml").write_text('[keymap]\n"home.cancle" = "x"\n', "utf-8")
    with pytest.raises(ConfigurationError, match=r"home\.cancle"):
        create_home(load_settings())


@SIZES
class TestHomeSnapshots:
    """The home as it looks: rows, the selected row's way to cancel, the keys."""

    def test_rows(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """Five services: statement, cancelled and checked, Apple's line, stopped, run only."""
        assert snap_compare(home(), terminal_size=size, run_before=_settled)

    def test_empty(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """Nothing kept and no run yet: how to fill it."""
        assert snap_compare(home(rows=[]), terminal_size=size, run_before=_settled)

    def test_adding_a_statement(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        """a: the path question over the rows."""

        async def asked(pilot: Pilot[HomeChoice | None]) -> None:
            await pilot.press("a")
            await wait_until(
                pilot,  # type: ignore[arg-type]
                lambda: isinstance(pilot.app.screen, StatementPathScreen),
                "the path question",
            )
            await _settled(pilot)

        assert snap_compare(home(), terminal_size=size, run_before=asked)


def test_the_choice_runs_as_the_command_it_names(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    """What the home returns is dispatched as typed: here `services`, which lists them."""
    import sys

    from subterminator_tui.cli import home as cli_home
    from subterminator_tui.cli.main import main

    monkeypatch.setattr(cli_home, "run_home", lambda: ("services",))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main([]) == 0
    assert "netflix" in capsys.readouterr().out
