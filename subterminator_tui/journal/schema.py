"""The journal's tables, its schema version and the migrations between versions.

Version 1 (runs, turns) had no version number; version 2 adds the facts of every
irreversible step (question, decision, dispatch, outcome, each written when it
happens) and the process that ran each run, so an interrupted run can be told
from a live one; version 3 adds where a run started and whose rules verified it
(``subterminator cancel example.com`` runs are verified by generic rules, and say so),
and the role and name of the element each turn acted on, so ``subterminator record``
can turn a run into a playbook; version 4 adds serve mode's call records (one per
served call, by ``ref_id``), their console messages and each caller's read cursors;
version 5 links each call record to its turn, so a served call's page is stored once
(in its record) and the turn reads it from there; version 6 adds the request log (what
left the browser for the service, and what it answered); version 7 adds each approved
step's evidence (who approved it, screenshots before and after, the text shown after it) for
``subterminator receipt``; version 8 adds how a run ended when no click could end it (the
biller, or the contact details and letter, as JSON) and the later checks of a service's
state (``subterminator check``), each beside the run it checks; version 9 keeps each model
call's prompt-cache reads and writes as the provider reported them, per turn and per run,
and the run's cost from the price table in the settings; version 10 adds a run's events, the
facts that are neither a turn nor a step (a guard miss: a commit that went out without a
question and that the service confirmed). Files are migrated in place, in
one transaction; rows written before version 5 keep their copies.
"""

from __future__ import annotations

import apsw

from subterminator_tui.errors import JournalError

SCHEMA_VERSION = 10

_VERSION_1 = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    model TEXT,
    pilot TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    success INTEGER,
    verified INTEGER,
    reason TEXT,
    turns INTEGER,
    final_url TEXT,
    error TEXT,
    message TEXT,
    model_calls INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER
);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    turn INTEGER NOT NULL,
    pilot TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    outcome TEXT,
    error TEXT,
    url TEXT,
    title TEXT,
    snapshot TEXT,
    latency REAL,
    input_tokens INTEGER,
    output_tokens INTEGER
);
CREATE INDEX IF NOT EXISTS turns_by_run ON turns(run_id, turn);
"""

#: Each version's changes from the one before, applied in order.
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (
        "ALTER TABLE runs ADD COLUMN pid INTEGER",
        "ALTER TABLE runs ADD COLUMN pid_started REAL",
        """CREATE TABLE steps (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            turn INTEGER NOT NULL,
            asked_at REAL NOT NULL,
            why TEXT NOT NULL,
            action TEXT NOT NULL,
            url TEXT,
            decision TEXT,
            decided_at REAL,
            dispatched_at REAL,
            outcome TEXT,
            finished_at REAL
        )""",
        "CREATE INDEX steps_by_run ON steps(run_id, id)",
    ),
    3: (
        "ALTER TABLE runs ADD COLUMN start_url TEXT",
        "ALTER TABLE runs ADD COLUMN verified_by TEXT",
        "ALTER TABLE turns ADD COLUMN target_role TEXT",
        "ALTER TABLE turns ADD COLUMN target_name TEXT",
    ),
    4: (
        """CREATE TABLE call_records (
            id INTEGER PRIMARY KEY,
            ref_id TEXT NOT NULL UNIQUE,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            principal TEXT NOT NULL,
            session TEXT NOT NULL,
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            status TEXT NOT NULL,
            result TEXT,
            snapshot TEXT,
            url TEXT,
            error TEXT,
            latency REAL NOT NULL,
            created_at REAL NOT NULL
        )""",
        "CREATE INDEX call_records_by_session ON call_records(principal, session, id)",
        """CREATE TABLE console_messages (
            id INTEGER PRIMARY KEY,
            record_id INTEGER NOT NULL REFERENCES call_records(id),
            level TEXT NOT NULL,
            message TEXT NOT NULL,
            url TEXT,
            line INTEGER,
            column_number INTEGER
        )""",
        "CREATE INDEX console_messages_by_record ON console_messages(record_id, id)",
        """CREATE TABLE read_cursors (
            principal TEXT NOT NULL,
            session TEXT NOT NULL,
            ref_id TEXT NOT NULL,
            read_at REAL NOT NULL,
            PRIMARY KEY (principal, session)
        )""",
    ),
    5: (
        "ALTER TABLE call_records ADD COLUMN turn_id INTEGER REFERENCES turns(id)",
        "CREATE INDEX call_records_by_turn ON call_records(turn_id)",
    ),
    # The request log: what left the browser for the service, and what it answered.
    6: (
        """CREATE TABLE IF NOT EXISTS requests (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            turn INTEGER NOT NULL,
            sent_at REAL NOT NULL,
            kind TEXT NOT NULL,
            method TEXT NOT NULL,
            host TEXT NOT NULL,
            path TEXT NOT NULL,
            resource_type TEXT NOT NULL,
            fields TEXT NOT NULL,
            verdict TEXT NOT NULL,
            step_id INTEGER REFERENCES steps(id),
            status INTEGER,
            answered_at REAL
        )""",
        "CREATE INDEX IF NOT EXISTS requests_by_run ON requests(run_id, id)",
    ),
    # What a receipt proves an approved step with: who approved it, the screenshots
    # before and after it, and the text a person saw after it (scrubbed).
    7: (
        """CREATE TABLE step_evidence (
            step_id INTEGER PRIMARY KEY REFERENCES steps(id),
            approved_by TEXT,
            before_screenshot TEXT,
            after_screenshot TEXT,
            after_text TEXT
        )""",
    ),
    # How a run ended when no click could end it, and the later checks of a service.
    8: (
        "ALTER TABLE runs ADD COLUMN ending TEXT",
        """CREATE TABLE checks (
            id INTEGER PRIMARY KEY,
            service TEXT NOT NULL,
            run_id INTEGER REFERENCES runs(id),
            checked_at REAL NOT NULL,
            state TEXT NOT NULL,
            url TEXT,
            why TEXT NOT NULL
        )""",
        "CREATE INDEX checks_by_service ON checks(service, id)",
    ),
    # Prompt-cache reads and writes as the provider reported them, and the run's cost.
    9: (
        "ALTER TABLE turns ADD COLUMN cache_read_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN cache_write_tokens INTEGER",
        "ALTER TABLE runs ADD COLUMN cache_read_tokens INTEGER",
        "ALTER TABLE runs ADD COLUMN cache_write_tokens INTEGER",
        "ALTER TABLE runs ADD COLUMN cost REAL",
    ),
    # A run's events beside its turns and steps: a guard miss is kept as its own fact.
    10: (
        """CREATE TABLE IF NOT EXISTS run_events (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            at REAL NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL
        )""",
        "CREATE INDEX IF NOT EXISTS run_events_by_run ON run_events(run_id, id)",
    ),
}


def schema_version(db: apsw.Connection) -> int:
    """The file's version: ``user_version``, or 1 for a version-1 file that never set it."""
    found = db.execute("PRAGMA user_version").fetchone()
    version = int(found[0]) if found else 0
    if version == 0:
        has_runs = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='runs'"
        ).fetchone()
        return 1 if has_runs else 0
    return version


def migrate(db: apsw.Connection, path: str) -> None:
    """Bring the file to SCHEMA_VERSION in one transaction; a newer file is refused."""
    version = schema_version(db)
    if version > SCHEMA_VERSION:
        raise JournalError(
            f"The journal {path} was written by a newer SubTerminator (schema {version}, this "
            f"one knows {SCHEMA_VERSION}). Upgrade SubTerminator, or point SUBTERMINATOR_JOURNAL "
            "at another file."
        )
    if version == SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        if version == 0:
            for statement in _VERSION_1.split(";"):
                if statement.strip():
                    db.execute(statement)
            version = 1
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in _MIGRATIONS[target]:
                db.execute(statement)
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
