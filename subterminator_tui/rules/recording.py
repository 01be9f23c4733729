"""A playbook from a run the journal recorded: the calls that worked, as role + name steps.

The journal keeps, for every turn, the call, its outcome and the role and name of the
element it acted on as the page showed it (never the pilot's words). A recorded
playbook keeps only what can be replayed without a model and without leaking anything:

- steps match an element by role and a name pattern anchored at both ends, with the
  parts that change from run to run (numbers, dates, prices, e-mail addresses)
  generalised, so "Keep my plan until 12 March 2027" still matches next month;
- typed text is kept only when the page itself showed it (``Type CANCEL to confirm``);
  anything else, which a model may have taken from a person's guidance, becomes a
  neutral sentence. What a person typed at a hand-off never was a turn at all;
- steps for pages that may not appear (native dialogs, cookie banners) are optional;
- a detour the pilot undid (a click, then "back") is left out, and so is every call that
  was refused, failed or waited for the person's guidance.

Recording stops at the first call it cannot express as a step; the AI does the rest
on replay, from the page where the playbook stops.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from subterminator_tui.journal.rows import TurnRow
from subterminator_tui.rules.playbook_steps import PlaybookStep

#: Typed into a free-text field when what the model typed is not the page's own words.
NEUTRAL_TEXT = "I no longer need this subscription."

# The parts of a name that change between runs, each with the pattern that replaces it.
# A month counts only beside a number ("12 March", "Mar 3"): "May" alone is a word.
_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?"
)
_VARIABLE = re.compile(
    r"(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
    r"|(?P<number>\d[\d.,:/-]*)"
    rf"|(?P<month>(?<=\d\s){_MONTHS}|\b{_MONTHS}(?=\s\d))",
    re.IGNORECASE,
)
_PATTERNS = {"email": r"\S+@\S+", "number": r"\d[\d.,:/-]*", "month": r"[a-z]+\.?"}
# Consent banners come and go with cookies; a flow's own buttons never say these.
_OPTIONAL_NAMES = re.compile(
    r"\b(cookies?|consent|accept all|reject all|allow all|necessary only|got it)\b", re.I
)
_FIELD_LINE = re.compile(r"^\s*- (?:textbox|searchbox|combobox|spinbutton)\b")
_SKIPPED_TOOLS = frozenset(
    {
        "complete_task",
        "request_human_approval",
        "show_region",
        "browser_snapshot",
        "browser_take_screenshot",
        "browser_tabs",
        "browser_hover",
    }
)


@dataclass
class RecordedPlaybook:
    """The steps recorded from a run, and what was left out and why."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: The turn whose call could not be recorded (the playbook ends before it), if any.
    stopped_at: int | None = None


def name_pattern(name: str) -> str:
    """A regular expression for ``name`` that survives changing numbers, dates and addresses."""
    parts: list[str] = []
    position = 0
    for match in _VARIABLE.finditer(name):
        parts.append(_literal(name[position : match.start()]))
        parts.append(_PATTERNS[str(match.lastgroup)])
        position = match.end()
    parts.append(_literal(name[position:]))
    return "^" + "".join(parts) + "$"


def _literal(text: str) -> str:
    return r"\s+".join(re.escape(word) for word in text.split(" ")) if text else ""


def record_steps(turns: Sequence[TurnRow], start_url: str | None, run_id: int) -> RecordedPlaybook:
    """The playbook steps of a run's turns, in order (see the module docstring)."""
    recorded = RecordedPlaybook()
    page_before = ""
    for turn in turns:
        if turn.outcome != "ok" or turn.tool in _SKIPPED_TOOLS:
            page_before = turn.snapshot or page_before
            continue
        if turn.tool == "browser_navigate_back":
            if recorded.steps and recorded.steps[-1]["action"] in ("click", "navigate"):
                undone = recorded.steps.pop()
                recorded.notes.append(f"turn {turn.turn}: went back; left out {_said(undone)}")
            page_before = turn.snapshot or page_before
            continue
        steps = _steps_for(turn, page_before, start_url)
        if steps is None:
            recorded.stopped_at = turn.turn
            recorded.notes.append(
                f"turn {turn.turn}: {turn.tool} cannot be replayed without a model; the "
                "playbook ends before it and the AI takes over there"
            )
            break
        for step in steps:
            step["why"] = f"Recorded from run {run_id}, turn {turn.turn}"
            PlaybookStep.model_validate(step)  # what the loader would refuse, refused here
        recorded.steps.extend(steps)
        page_before = turn.snapshot or page_before
    return recorded


def _steps_for(
    turn: TurnRow, page_before: str, start_url: str | None
) -> list[dict[str, Any]] | None:
    """The steps one successful call becomes; None when it cannot be a step."""
    arguments = turn.arguments
    if turn.tool == "browser_press_key":
        return [{"action": "press", "key": str(arguments.get("key", ""))}]
    if turn.tool == "browser_handle_dialog":
        # A native dialog appears only sometimes (it may depend on the page's state).
        accept = arguments.get("accept", True) is not False
        return [{"action": "dialog", "accept": accept, "optional": True}]
    if turn.tool == "browser_wait_for":
        seconds = arguments.get("time")
        return [{"action": "wait", "seconds": float(seconds)}] if seconds else []
    if turn.tool == "browser_navigate":
        return [{"action": "navigate", "url": _relative(str(arguments.get("url", "")), start_url)}]
    if turn.tool not in ("browser_click", "browser_type", "browser_select_option"):
        return None
    if not turn.target_role or not (turn.target_name or "").strip():
        return None  # nothing to find the element by next time
    step: dict[str, Any] = {
        "action": {"browser_click": "click", "browser_type": "type"}.get(turn.tool, "select"),
        "role": turn.target_role,
        "name_regex": name_pattern(turn.target_name or ""),
    }
    if _OPTIONAL_NAMES.search(turn.target_name or ""):
        step["optional"] = True
    if turn.tool == "browser_select_option":
        values = arguments.get("values") or []
        if len(values) != 1:
            return None
        step["value"] = str(values[0])  # one of the page's own options
        return [step]
    if turn.tool == "browser_type":
        typed = str(arguments.get("text", ""))
        step["text"] = (
            typed if typed.strip() and typed in _page_words(page_before) else NEUTRAL_TEXT
        )
        if arguments.get("submit"):
            return [step, {"action": "press", "key": "Enter"}]
    return [step]


def _page_words(snapshot: str) -> str:
    """The page's text without its fields' lines, whose contents were typed, not shown."""
    return "\n".join(line for line in snapshot.splitlines() if not _FIELD_LINE.search(line))


def _relative(url: str, start_url: str | None) -> str:
    """A path when ``url`` is on the start page's host (ports change between runs), without
    the query and fragment, where sessions and tokens travel."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if start_url and parts.hostname == urlsplit(start_url).hostname:
        return path
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _said(step: dict[str, Any]) -> str:
    target = step.get("name_regex") or step.get("url") or ""
    return f"{step['action']} {target}".strip()
