"""The journal's database connection: opened with clear errors, written with one error for
every failed write.

The database is opened with apsw, which bundles a current SQLite: the system's
3.40 is inside the range of SQLite's WAL-reset bug (3.7.0-3.51.2), whose conditions
(two connections to one WAL database, as a run and ``runs`` have) arise here.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

import apsw

from subterminator_tui.errors import JournalError, JournalWriteError
from subterminator_tui.journal.schema import migrate

#: Milliseconds a writer waits for another process's lock before it counts as a failure.
_BUSY_MS = 5_000


class JournalConnection:
    """One connection to the journal database (WAL, synchronous=FULL, a current SQLite)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise JournalError(
                f"Cannot create the journal's folder {path.parent}: {error.strerror or error}. "
                "Point SUBTERMINATOR_JOURNAL at a file in a folder you can write."
            ) from None
        if path.is_dir():
            raise JournalError(f"The journal path {path} is a folder; name a file instead.")
        _make_private(path)
        try:
            self._db = apsw.Connection(str(path))
            self._db.set_busy_timeout(_BUSY_MS)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            migrate(self._db, str(path))
        except (apsw.NotADBError, apsw.CorruptError) as error:
            raise JournalError(
                f"The journal {path} is damaged or not a SubTerminator journal ({error}). Move "
                "it aside (e.g. mv it to journal.sqlite3.broken) and run again; a new one is made."
            ) from None
        except (apsw.ReadOnlyError, apsw.CantOpenError, apsw.PermissionsError) as error:
            raise JournalError(
                f"Cannot write the journal {path} ({error}). Make it and its folder writable, "
                "or point SUBTERMINATOR_JOURNAL at another file."
            ) from None
        except apsw.Error as error:
            raise JournalError(f"Cannot open the journal {path}: {error}.") from None

    @property
    def connection(self) -> apsw.Connection:
        """The open connection, for the journal's other tables (call_log.py, request_log.py)."""
        return self._db

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        try:
            yield
        except apsw.Error as error:
            raise JournalWriteError(
                f"The journal {self.path} could not record {what} ({error}); nothing more was "
                "sent to the browser. Free some disk space or fix the file's permissions."
            ) from None

    def _select(self, sql: str, values: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Rows as plain tuples (apsw's own row types are narrower than the columns)."""
        return [tuple(row) for row in self._db.execute(sql, values).fetchall()]

    def _insert(self, what: str, sql: str, values: tuple[Any, ...]) -> int:
        with self._writing(what):
            self._db.execute(sql, values)
            return int(self._db.last_insert_rowid())

    def _update(self, what: str, sql: str, values: tuple[Any, ...]) -> None:
        with self._writing(what):
            self._db.execute(sql, values)


def _make_private(path: Path) -> None:
    """Create the journal file readable by its owner only (SQLite gives its WAL and shared
    memory files the same mode): it holds every page and address of every run."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(path, 0o600)
