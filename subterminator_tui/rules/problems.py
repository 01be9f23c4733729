"""Validation problems in words for someone editing TOML, not Python."""

from __future__ import annotations

import difflib

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from subterminator_tui.rules.models import LOADER_KEYS, ServiceConfig
from subterminator_tui.rules.page_rules import CheckpointRule, PageRule
from subterminator_tui.rules.playbook_steps import PlaybookStep

# Which model a key path's first part leads into, for "did you mean" suggestions.
_LIST_MODELS: dict[str, type[BaseModel]] = {
    "checkpoint": CheckpointRule,
    "success": PageRule,
    "failure": PageRule,
    "login": PageRule,
    "two_factor": PageRule,
    "captcha": PageRule,
    "playbook": PlaybookStep,
}


def key_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as a TOML user reads it: ``('success', 0, 'url_any')`` ->
    ``success[0].url_any``."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def describe_error(detail: ErrorDetails) -> str:
    """One pydantic error in words for someone editing TOML, not Python."""
    kind = detail["type"]
    if kind == "extra_forbidden":
        return "unknown key" + _suggestion(detail["loc"])
    if kind == "missing":
        return "required key is missing"
    if kind == "value_error":
        return str(detail.get("ctx", {}).get("error", detail["msg"]))
    return detail["msg"]


def _suggestion(loc: tuple[int | str, ...]) -> str:
    """``; did you mean 'target_any'?`` when a known key is one typo away."""
    model: type[BaseModel] = ServiceConfig
    if len(loc) == 3 and isinstance(loc[0], str):
        model = _LIST_MODELS.get(loc[0], ServiceConfig)
    elif len(loc) != 1:
        return ""
    known = [key for key in model.model_fields if key not in LOADER_KEYS]
    close = difflib.get_close_matches(str(loc[-1]), known, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""
