"""Page rules: a judgement about one page, and the checkpoint asked before a call."""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import BaseModel, model_validator

from subterminator_tui.rules.fields import STRICT_MODEL_CONFIG, DeferredPattern, Needles, Patterns


class PageRule(BaseModel):
    """A judgement about one page: it holds when ALL of its conditions hold.

    Every comparison ignores case. ``text_*`` conditions read the page's visible text
    (title, accessible names and text nodes), never link targets: "rejoin" inside a
    link's URL must not turn an unfinished cancellation into a success.
    """

    model_config = STRICT_MODEL_CONFIG

    #: Keys that test the page; a rule needs at least one of them.
    CONDITION_KEYS: ClassVar[tuple[str, ...]] = (
        "url_any",
        "url_regex",
        "title_any",
        "title_regex",
        "text_any",
        "text_all",
        "text_regex",
        "heading_any",
        "heading_regex",
        "element_any",
        "element_regex",
    )

    why: str = ""
    """Why this rule exists, in words a person reviewing a run understands."""
    url_any: Needles = ()
    """Substrings of the full URL; any one suffices."""
    url_regex: Patterns = ()
    """Regular expressions searched in the full URL; any one suffices."""
    title_any: Needles = ()
    """Substrings of the page title; any one suffices."""
    title_regex: Patterns = ()
    """Regular expressions searched in the page title; any one suffices."""
    text_any: Needles = ()
    """Substrings of the visible text (never link URLs); any one suffices."""
    text_all: Needles = ()
    """Substrings of the visible text that must ALL be present."""
    text_regex: Patterns = ()
    """Regular expressions searched in the visible text; any one suffices."""
    heading_any: Needles = ()
    """Substrings of any heading's name; any one suffices."""
    heading_regex: Patterns = ()
    """Regular expressions searched in each heading's name; any one suffices."""
    element_any: Needles = ()
    """Substrings of any element's accessible name; any one suffices."""
    element_regex: Patterns = ()
    """Regular expressions searched in each element's accessible name; any one suffices."""
    role: Needles = ()
    """Narrows ``element_any`` / ``element_regex`` to elements with one of these roles."""

    def condition_keys(self) -> list[str]:
        """The condition keys this rule sets, in declaration order."""
        return [key for key in self.CONDITION_KEYS if getattr(self, key)]

    def summary(self) -> str:
        """The rule's conditions in TOML-like shorthand, e.g. ``url_any=['/done']``."""
        parts: list[str] = []
        for key in (*self.condition_keys(), *(["role"] if self.role else [])):
            values = getattr(self, key)
            shown = [
                item.pattern if isinstance(item, re.Pattern | DeferredPattern) else item
                for item in values
            ]
            parts.append(f"{key}={shown!r}")
        return ", ".join(parts)

    def explain(self) -> str:
        """The rule's ``why`` when it has one, else its conditions."""
        return self.why or self.summary()

    @model_validator(mode="after")
    def _needs_a_condition(self) -> PageRule:
        if self.role and not (self.element_any or self.element_regex):
            raise ValueError("'role' narrows element_any / element_regex; add one of them")
        if not self.condition_keys():
            raise ValueError(
                "a rule needs at least one condition ("
                + ", ".join(self.CONDITION_KEYS)
                + "); without one it would hold on every page"
            )
        return self


class CheckpointRule(PageRule):
    """Ask the human BEFORE a pending tool call runs, when the page and the call match.

    ``target_*`` conditions read the element(s) the call targets, resolved by ref in
    the latest snapshot, never the model's own ``element`` description: a model (or
    text injected into the page) can call "Finish cancellation" "Continue". When a
    call's target ref does not resolve in the snapshot, ``target_*`` conditions do NOT
    hold; the browser gateway refuses such stale refs before anything is clicked.
    """

    CONDITION_KEYS: ClassVar[tuple[str, ...]] = (
        *PageRule.CONDITION_KEYS,
        "tool",
        "target_any",
        "target_regex",
        "target_role",
    )

    tool: Needles = ()
    """Tool names (e.g. ``browser_click``); the pending call must be one of them."""
    target_any: Needles = ()
    """Substrings of a targeted element's accessible name; any one suffices."""
    target_regex: Patterns = ()
    """Regular expressions searched in a targeted element's accessible name."""
    target_role: Needles = ()
    """Roles a targeted element must have; alone, any target with such a role matches."""
