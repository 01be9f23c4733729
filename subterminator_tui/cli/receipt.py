"""``subterminator receipt RUN``: one self-contained HTML file that proves what a run did.

A person keeps it, or attaches it to a complaint or a chargeback: the service, the
times, each approved step (what, when, approved by whom), the request the service
answered for it (once the request log exists), screenshots before and after it, the
text shown after it and on what evidence the cancellation was verified, and the
journal's record of every turn. Everything comes from the journal, which holds no
typed secret; every text from a page is HTML-escaped, and screenshots are embedded
as data, so the file opens anywhere and links nothing.

Exit codes: 0 written; 2 the run is not in the journal or the file cannot be written.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import html
import json
from collections.abc import Sequence
from pathlib import Path

from subterminator_tui.cli.journal_views import ending_rows, outcome_words
from subterminator_tui.command_run import run_command
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.guarded.request_evidence import step_requests
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal, RunRow, StepEvidenceRow, StepRow, TurnRow
from subterminator_tui.settings import load_settings

_STYLE = (
    "body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
    "table{border-collapse:collapse;width:100%}"
    "td,th{border:1px solid #bbb;padding:.3rem .5rem;text-align:left;vertical-align:top}"
    "pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem;border:1px solid #ddd}"
    ".shots{display:flex;gap:1rem;flex-wrap:wrap}.shots figure{margin:0;flex:1 1 24rem}"
    ".shots img{max-width:100%;border:1px solid #999}.note{color:#555}"
)
# The file may be opened anywhere: it loads nothing, runs nothing, links nothing.
_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _table(*rows: tuple[str, str]) -> str:
    """A two-column table; the values are HTML already (escaped by the caller)."""
    body = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    return f"<table>{body}</table>"


def _grid(headers: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    """A table with a header row; every cell is HTML already."""
    head = "".join(f"<th>{header}</th>" for header in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    moment = datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _e(text: object) -> str:
    """Page text and journal values are inert here: escaped, never markup."""
    return html.escape(str(text if text is not None else "-"), quote=True)


def _image(path: str | None, caption: str) -> str:
    if not path:
        return f"<figure><figcaption>{_e(caption)}: none taken</figcaption></figure>"
    try:
        data = Path(path).read_bytes()
    except OSError:
        return (
            f"<figure><figcaption>{_e(caption)}: no longer on this computer</figcaption></figure>"
        )
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{encoded}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def request_answers(
    journal: Journal, run_id: int, step: StepRow
) -> list[tuple[str, str, int, float]]:
    """The requests the service answered for ``step``: (method, path, status, time).

    From the request gate's log; empty when the run kept none (a run before the gate,
    or a browser without one), and the receipt says so.
    """
    rows = step_requests(RequestLog(journal), run_id, step.id)
    return [(row.method, row.path, row.status, row.sent_at) for row in rows if row.status]


def _step_html(
    journal: Journal, run_id: int, step: StepRow, evidence: StepEvidenceRow | None
) -> str:
    answers = request_answers(journal, run_id, step)
    if answers:
        cells = [(_e(m), _e(p), _e(status), _e(_when(t))) for m, p, status, t in answers]
        requests = _grid(("method", "path", "status", "time"), cells)
    else:
        requests = '<p class="note">Not recorded: this journal keeps no request log.</p>'
    who = (evidence.approved_by if evidence else None) or "the person running SubTerminator"
    after = (evidence.after_text or "").strip() if evidence else ""
    before_shot = _image(evidence.before_screenshot if evidence else None, "before (approved)")
    after_shot = _image(evidence.after_screenshot if evidence else None, "after")
    facts = _table(
        ("asked because", _e(step.why)),
        ("on page", _e(step.url)),
        ("decision", f"{_e(step.decision)} by {_e(who)}"),
        ("sent", _e(_when(step.dispatched_at))),
        ("outcome", f"{_e(step.outcome)} ({_e(step.state.replace('_', ' '))})"),
    )
    return (
        f"<h3>{_e(step.action)}</h3>{facts}<h4>The request the service answered</h4>{requests}"
        f'<div class="shots">{before_shot}{after_shot}</div>'
        f"<h4>Text shown after the step</h4><pre>{_e(after or 'not recorded')}</pre>"
    )


def _turns_html(turns: list[TurnRow]) -> str:
    rows = [
        (
            str(turn.turn),
            _e(turn.tool),
            _e(json.dumps(turn.arguments, ensure_ascii=False)),
            _e(f"{turn.target_role or ''} {turn.target_name or ''}".strip()),
            _e(turn.outcome),
            _e(turn.url),
        )
        for turn in turns
    ]
    return _grid(("turn", "tool", "arguments", "target", "outcome", "page"), rows)


def receipt_html(journal: Journal, run: RunRow, *, now: float | None = None) -> str:
    """The whole receipt for ``run`` as one HTML document."""
    steps = journal.steps(run.id)
    evidence = journal.step_evidence(run.id)
    steps_html = "\n".join(_step_html(journal, run.id, s, evidence.get(s.id)) for s in steps) or (
        '<p class="note">No step was approved in this run.</p>'
    )
    verified = ("yes" if run.verified else "no") + (
        " (by generic rules)" if run.verified_by == "generic" else ""
    )
    driven = run.pilot + (f" ({run.model})" if run.model else "")
    summary = _table(
        ("service", _e(run.service)),
        ("start page", _e(run.start_url)),
        ("started", _e(_when(run.started_at))),
        ("ended", _e(_when(run.ended_at))),
        ("outcome", _e(outcome_words(run))),
        ("verified", _e(verified)),
        ("evidence", _e(run.message or run.error)),
        ("last page", _e(run.final_url)),
        ("driven by", _e(driven)),
    )
    # A run that ended without a click (billed elsewhere, offline only): where to go next.
    ending = [
        (_e(label), f"<pre>{_e(value.strip())}</pre>" if label == "Letter" else _e(value))
        for label, value in ending_rows(run.ending)
    ]
    ending_html = f"<h2>Where to cancel</h2>\n{_table(*ending)}" if ending else ""
    written = _when(now if now is not None else datetime.datetime.now(tz=datetime.UTC).timestamp())
    title = f"SubTerminator receipt: run {run.id}, {run.service}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_POLICY}">
<title>{_e(title)}</title><style>{_STYLE}</style></head>
<body>
<h1>{_e(title)}</h1>
{summary}
{ending_html}
<h2>Approved steps</h2>
{steps_html}
<h2>The journal's record</h2>
{_turns_html(journal.turns(run.id))}
<p class="note">Written from SubTerminator's journal on {_e(written)}.
Nothing typed at a sign-in is in this file.</p>
</body></html>
"""


def write_receipt(target: Path, document: str) -> None:
    """Write the receipt; ConfigurationError naming the file when it cannot be written."""
    try:
        target.write_text(document, encoding="utf-8")
    except OSError as error:
        raise ConfigurationError(f"Cannot write the receipt to {target}: {error}") from None


def run_receipt(args: argparse.Namespace) -> int:
    """Write the receipt of run ``args.run`` to ``args.output`` (default: receipt-RUN.html)."""

    async def receipt() -> int:
        with Journal(load_settings().resolved_journal()) as journal:
            run = journal.run(args.run)
            if run is None:
                raise ConfigurationError(f"No run {args.run} in the journal ({journal.path}).")
            document = receipt_html(journal, run)
        target = Path(args.output or f"receipt-{run.id}.html")
        write_receipt(target, document)
        print(f"Receipt of run {run.id} ({run.service}) written to {target}")
        return 0

    return run_command(receipt)
