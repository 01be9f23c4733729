"""The subscriptions a person chose to keep from their statements, and nothing else.

``find --keep`` and the app's "add a statement" write here: one row per subscription
found (its name, service, price, cadence, last charge, yearly cost and how to cancel),
never the statement's lines, not even the subscription's own descriptor. The file is
``subscriptions.json`` beside the journal (the platform's state directory), readable
by its owner only.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from subterminator_tui.errors import ConfigurationError
from subterminator_tui.settings import user_state_dir
from subterminator_tui.statements.finding import FindReport, Subscription

#: The file's name in the state directory.
KEPT_FILE_NAME = "subscriptions.json"


def kept_file() -> Path:
    """Where kept subscriptions live: ``<state dir>/subscriptions.json``."""
    return user_state_dir() / KEPT_FILE_NAME


@dataclass(frozen=True, slots=True)
class KeptSubscription:
    """One subscription as kept: what a row of the home needs, no statement text."""

    name: str
    service_id: str
    amount: str
    currency: str
    cadence: str
    last_charge: str
    yearly_cost: str
    billed_by: str
    paid_through: str
    how_to_cancel: str
    how_to_cancel_short: str
    statement: str
    """The file it was found in (its name only), so a newer export replaces it."""
    lapsed: bool

    @classmethod
    def of(cls, subscription: Subscription) -> KeptSubscription:
        """The parts of ``subscription`` worth keeping."""
        return cls(
            name=subscription.name,
            service_id=subscription.service_id,
            amount=str(subscription.amount),
            currency=subscription.currency,
            cadence=subscription.cadence,
            last_charge=subscription.last_charge.isoformat(),
            yearly_cost=str(subscription.yearly_cost),
            billed_by=subscription.billed_by,
            paid_through=subscription.paid_through,
            how_to_cancel=subscription.how_to_cancel,
            how_to_cancel_short=subscription.how_to_cancel_short,
            statement=subscription.statement,
            lapsed=subscription.lapsed,
        )

    @property
    def last_day(self) -> datetime.date:
        """The last charge as a date."""
        return datetime.date.fromisoformat(self.last_charge)


def load_kept(path: Path | None = None) -> list[KeptSubscription]:
    """The kept subscriptions ([] when none were kept); a damaged file says where it is."""
    target = path or kept_file()
    try:
        data: Any = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        raise ConfigurationError(
            f"{target}: cannot be read ({error}). Delete it and add your statements again."
        ) from None
    try:
        return [KeptSubscription(**row) for row in data["subscriptions"]]
    except (KeyError, TypeError) as error:
        raise ConfigurationError(
            f"{target}: not a list of subscriptions ({error}). Delete it and add your "
            "statements again."
        ) from None


def keep(report: FindReport, path: Path | None = None) -> list[KeptSubscription]:
    """Add ``report``'s subscriptions; those from the same statement files are replaced."""
    target = path or kept_file()
    read = {statement.path.name for statement in report.statements}
    rows = [row for row in load_kept(target) if row.statement not in read]
    rows.extend(KeptSubscription.of(subscription) for subscription in report.subscriptions)
    _write(target, {"subscriptions": [asdict(row) for row in rows]})
    return rows


def _write(target: Path, data: dict[str, Any]) -> None:
    """Whole or not at all, and readable by its owner only."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".subscriptions-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2)
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
