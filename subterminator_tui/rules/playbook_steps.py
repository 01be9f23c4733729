"""Playbook steps: a known cancellation flow, replayed step by step without a model."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, Field, model_validator

from subterminator_tui.rules.fields import (
    STRICT_MODEL_CONFIG,
    NonBlank,
    compile_optional_pattern,
)

#: What a step does.
Action = Literal["click", "type", "select", "press", "navigate", "wait", "dialog"]

# For each action: the keys it needs (a tuple of alternatives counts once) and may use.
_TARGET_KEYS = ("name", "name_regex")
_STEP_REQUIRES: dict[str, tuple[tuple[str, ...], ...]] = {
    "click": (_TARGET_KEYS,),
    "type": (_TARGET_KEYS, ("text",)),
    "select": (_TARGET_KEYS, ("value",)),
    "press": (("key",),),
    "navigate": (("url",),),
    "wait": (("seconds",),),
    # Answers a native alert/confirm/prompt; ``accept`` defaults to true.
    "dialog": (),
}
_STEP_ACTION_KEYS = (
    "role",
    "name",
    "name_regex",
    "text",
    "value",
    "key",
    "url",
    "seconds",
    "accept",
)


class PlaybookStep(BaseModel):
    """One scripted step of a known cancellation flow, replayed without a model."""

    model_config = STRICT_MODEL_CONFIG

    action: Action
    """What to do: click, type, select, press, navigate, wait, or answer a dialog."""
    role: str | None = None
    """The target element's role, e.g. ``button``; narrows ``name`` / ``name_regex``."""
    name: NonBlank | None = None
    """A case-insensitive substring of the target element's accessible name."""
    name_regex: Annotated[re.Pattern[str] | None, BeforeValidator(compile_optional_pattern)] = None
    """A regular expression for the target's name (e.g. ``^Continue$``), case-insensitive."""
    text: str | None = None
    """The text to type (``type`` steps)."""
    value: str | None = None
    """The option to choose (``select`` steps)."""
    key: NonBlank | None = None
    """The key to press, e.g. ``Enter`` (``press`` steps)."""
    url: NonBlank | None = None
    """Where to go (``navigate`` steps); a path is resolved against the start URL."""
    seconds: Annotated[float, Field(gt=0)] | None = None
    """How long to wait (``wait`` steps)."""
    accept: bool | None = None
    """Accept (true, the default) or dismiss the native dialog (``dialog`` steps)."""
    optional: bool = False
    """The step may be absent (a survey that only sometimes appears); skip it then."""
    why: str = ""
    """Why this step is in the flow."""

    @model_validator(mode="after")
    def _fits_its_action(self) -> PlaybookStep:
        needs = _STEP_REQUIRES[self.action]
        allowed = {"role", *(key for alternatives in needs for key in alternatives)}
        if self.action in ("press", "navigate", "wait", "dialog"):
            allowed.discard("role")
        if self.action == "dialog":
            allowed.add("accept")
        stray = [key for key in _STEP_ACTION_KEYS if getattr(self, key) is not None]
        for key in stray:
            if key not in allowed:
                raise ValueError(f"key '{key}' does not apply to a '{self.action}' step")
        for alternatives in needs:
            present = [key for key in alternatives if getattr(self, key) is not None]
            if not present:
                raise ValueError(f"a '{self.action}' step needs {' or '.join(alternatives)}")
            if len(present) > 1:
                raise ValueError(f"set {' or '.join(alternatives)}, not both")
        return self
