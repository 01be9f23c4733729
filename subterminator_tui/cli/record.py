"""``subterminator record RUN``: a verified run becomes its service's playbook."""

from __future__ import annotations

import argparse
import sys

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.journal.store import Journal
from subterminator_tui.plurals import plural
from subterminator_tui.session.record import record_playbook
from subterminator_tui.settings import load_settings


def run_record(args: argparse.Namespace) -> int:
    """Record the run, say what was written and what was left out."""
    try:
        with Journal(load_settings().resolved_journal()) as journal:
            done = record_playbook(
                journal, args.run, service_id=args.service, services=args.services
            )
    except SubTerminatorError as failure:
        print(f"error: {failure}", file=sys.stderr)
        return failure.exit_code
    steps = done.recorded.steps
    print(
        f"Recorded {plural(len(steps), 'step')} from run {args.run} as the playbook of "
        f"'{done.service_id}' in {done.path}"
        + (
            " (it replaces the earlier definition there; the old file is services.toml.bak)."
            if done.replaced
            else "."
        )
    )
    for note in done.recorded.notes:
        print(f"  note: {note}")
    print(
        f"Next time: subterminator cancel {done.service_id} (the playbook runs without a model "
        "while its steps match; the AI takes over where they stop)."
    )
    return 0
