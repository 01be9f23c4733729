"""The commit: the step that really ends the subscription, known by what it does.

A label can say anything ("Cancel Premium" finishes the flow on one site and only
opens it on another); what the control does cannot hide. A state-changing request
(any method but GET, HEAD or OPTIONS) whose address, operation name or fields name
the subscription's own operation is the commit, whatever its button says:

* the operation is ending the subscription or the account: cancel, terminate,
  unsubscribe, end a subscription or membership, close, delete or deactivate the
  account, in the words of every language table (``words/<language>.toml``, its
  ``[commit]`` lists);
* it is named where a request says what it does: the last part of the path that is
  not an id (``/api/subscription/cancel``, ``/plans/42/cancel``), a path that names
  the operation and then finishes it (``/cancel/confirm``, ``/cancel/finish``), a
  GraphQL operation or mutation (``cancelSubscription``), or a JSON or form field
  whose name or value says it (``action=cancel``);
* a path that only passes through the flow is not it: ``/cancel/survey``,
  ``/cancel/start``, ``/survey/end`` and a "Next" are answers and steps, not the
  commit (``end`` alone never names it: every survey has an end).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from urllib.parse import unquote

from subterminator_tui.rules.page_rules import CheckpointRule
from subterminator_tui.rules.sentences import every_language, every_language_pattern
from subterminator_tui.rules.text import normalise_text

#: Path parts that say nothing of the operation: ids, versions, formats.
_NOISE = re.compile(r"^(?:\d+|v\d+|[0-9a-f]{8,}|[0-9a-f-]{20,}|api|json|html|php|aspx?)$", re.I)
_SPLIT = re.compile(r"[/_\-.]+|(?<=[a-z0-9])(?=[A-Z])")


@functools.cache
def _whole(pick: str) -> re.Pattern[str]:
    """The list ``pick`` of every language (``commit.operation``), matching a whole part."""
    return re.compile(rf"^(?:{every_language(pick)})$", re.IGNORECASE)


def _is(pick: str, words: str) -> bool:
    """Whether the words of one path part or identifier are one phrase of ``pick``."""
    return _whole(pick).match(words) is not None


def _parts(path: str) -> list[str]:
    """A path's parts as words (normalised, lower case), ids and formats left out."""
    parts = []
    for segment in unquote(path).split("/"):
        if not segment:
            continue
        words = _identifier_words(segment)
        if words and not _NOISE.match(segment):
            parts.append(words)
    return parts


def _identifier_words(name: str) -> str:
    """``cancel-subscription``, ``cancel_subscription`` and ``cancelSubscription`` alike as
    ``cancel subscription``, read as every rule reads text."""
    return normalise_text(" ".join(w for w in _SPLIT.split(name) if w)).lower().strip()


def commit_in_path(path: str) -> str | None:
    """The operation a state-changing request's path finishes (``cancel``), or None."""
    parts = _parts(path)
    if not parts:
        return None
    last = parts[-1]
    if _is("commit.operation", last):
        return last
    if len(parts) >= 2 and _is("commit.finishing", last) and _is("commit.operation", parts[-2]):
        return f"{parts[-2]} {last}"
    return None


def finish_in_path(path: str) -> str | None:
    """The finishing step a path names (``/membership/finish``, ``/cancel/confirm``), or None.

    For a navigation typed to an address no page showed: opening ``/cancel`` only opens
    the flow, but a GET to its last step can be the commit on a careless service.
    """
    parts = _parts(path)
    # "confirm" is the name of the page that asks as often as of the step that does.
    if len(parts) < 2 or not _is("commit.finishing", parts[-1]) or _is("commit.asking", parts[-1]):
        return None
    if any(_is("commit.operation", part) or _is("commit.subject", part) for part in parts[:-1]):
        return " ".join(parts[-2:])
    return None


def says_finish(labels: Sequence[str]) -> bool:
    """Whether a control's labels name a finishing step ("Finish cancellation", "Confirm"),
    not only the operation ("End membership" opens the flow that ends it)."""
    finishing = every_language_pattern("commit.finish_label")
    return any(finishing.search(normalise_text(label)) for label in labels)


def asks_before_opening(
    rule: CheckpointRule | None, labels: Sequence[str]
) -> CheckpointRule | None:
    """``rule`` as it applies to a plain link, which only opens a page: a built-in word
    ("End membership") asks there only when the link says it finishes something; a
    service's own rule always does."""
    if rule is None or not rule.why.startswith("Built-in") or says_finish(labels):
        return rule
    return None


def commit_in_names(names: Sequence[str]) -> str | None:
    """The operation an operation name, a field or an action value names, or None.

    ``names`` are identifiers (``cancelSubscription``, ``action=cancel`` as ``cancel``),
    never free text: a sentence that mentions cancelling is not an operation.
    """
    for name in names:
        words = _identifier_words(name)
        if _is("commit.operation", words):
            return words
    return None


def commit_rule(detail: str) -> CheckpointRule:
    """The built-in commit checkpoint, decided already (``detail`` says what was seen)."""
    why = f"Built-in: this step ends the subscription ({detail})"
    # A rule needs a condition to be valid; this one was already decided by its caller.
    return CheckpointRule.model_validate({"why": why, "tool": ["any"]}, strict=False)
