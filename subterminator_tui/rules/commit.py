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
* or it says so in its fields or its method: a status set to an ended state
  (``status=cancelled``), a flag that names the operation set on
  (``cancel_at_period_end=true``) or automatic renewal set off (``auto_renew=false``), a
  recurring pledge set to nothing (``amount=0`` beside a period), a subject's own ending
  verb (``/account/delete``, ``/auto_renew/disable``), a DELETE of the subscription
  itself (``DELETE /v1/subscriptions/<id>``, or a form's ``_method=delete``);
* or the form control that sends it says so ("Cancel subscription", "Kündigen",
  "Delete account", "Stop the Daily Bugle subscription"), when the request does not say
  it only passes through the flow;
* a path that only passes through the flow is not it: ``/cancel/survey``,
  ``/cancel/start``, ``/survey/end`` and a "Next" are answers and steps, not the
  commit (``end`` alone never names it: every survey has an end); nor is a flag that
  names the operation set off (``cancel_at_period_end=false`` keeps the subscription).

The ending verbs, the subjects and the parts that pass through are words of every
language table (``[commit]``); the names and values of fields (``status``, ``amount``,
``true``) are an API's identifiers, the same whatever the page's language, and stay here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from subterminator_tui.rules.kept_expressions import compile_kept
from subterminator_tui.rules.page_rules import CheckpointRule
from subterminator_tui.rules.sentences import every_language, every_language_pattern
from subterminator_tui.rules.text import normalise_text

#: Path parts that say nothing of the operation: ids, versions, formats.
_NOISE = re.compile(r"^(?:\d+|v\d+|[0-9a-f]{8,}|[0-9a-f-]{20,}|api|json|html|php|aspx?)$", re.I)
_SPLIT = re.compile(r"[/_\-.]+|(?<=[a-z0-9])(?=[A-Z])")


@functools.cache
def _whole(pick: str) -> re.Pattern[str]:
    """The list ``pick`` of every language (``commit.operation``), matching a whole part."""
    return compile_kept(rf"^(?:{every_language(pick)})$", re.IGNORECASE)


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


def step_in_path(path: str) -> str:
    """The words of a request's path that say what it does: its last part that is not an id,
    with the part before it when the last only finishes or asks (``/pause/confirm``).

    The parts before are where in the flow the request is sent from: a choice posted to
    ``/cancel/pause/cancel-anyway`` declines the pause, it does not pause.
    """
    parts = _parts(path)
    if not parts:
        return ""
    last = parts[-1]
    if len(parts) >= 2 and (_is("commit.finishing", last) or _is("commit.asking", last)):
        return f"{parts[-2]} {last}"
    return last


def opens_its_flow(labels: Sequence[str], action: str) -> bool:
    """Whether a control that submits to ``action`` is the way into the cancellation flow:
    its name says the operation ("End membership") with no finishing word, and its form's
    address names the flow and only passes through it (``/cancel/start``).

    Such a control sends the service nothing that ends or buys anything: the step that
    does comes later and is asked then. A price on the page beside it is the plan being
    ended, not a charge.
    """
    path = urlsplit(action).path
    parts = _parts(path)
    if len(parts) < 2 or not passes_through(path) or says_finish(labels):
        return False
    if commit_in_labels(labels) is None:
        return False
    return any(_is("commit.operation", part) or _subject(part) for part in parts[:-1])


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


#: Field names (their last part) whose value is the state the request sets.
_STATE_KEYS = frozenset({"status", "state", "subscription status", "membership status"})
#: Values of a state that has ended.
_ENDED_VALUES = frozenset(
    {
        *("cancel", "canceled", "cancelled", "canceling", "cancelling", "terminated"),
        *("ended", "inactive", "unsubscribed", "closed", "deleted", "stopped", "disabled"),
    }
)
#: Field names of an automatic renewal or a list subscription that is on while the flag
#: is. A bare "renew" is not one: "renew=no" also answers how to renew (by hand), which
#: keeps the subscription.
_RENEWAL_KEYS = frozenset(
    {"auto renew", "autorenew", "auto renewal", "auto renew enabled", "is subscribed"}
)
#: Field names that hold the amount of a pledge or a donation.
_AMOUNT_KEYS = frozenset(
    {"amount", "selected amount", "pledge amount", "donation amount", "tip amount"}
)
#: Words that make an amount recurring: a period field, a pledge's or a donation's path.
_RECURRING = frozenset(
    {
        *("period", "interval", "frequency", "recurrence", "recurring", "renew"),
        *("pledge", "pledges", "donation", "donations", "donate", "tip", "tips", "giving"),
    }
)
_ON_VALUES = frozenset({"", "true", "1", "on", "yes", "y"})
_OFF_VALUES = frozenset({"false", "0", "off", "no", "n"})
_ZERO = re.compile(r"^0+(?:[.,]0+)?$")
_BRACKETS = re.compile(r"[\[\]]+")


def _key(name: str) -> str:
    """A field's own name as words: ``form[cancel_at_period_end]`` is "cancel at period end"."""
    last = _BRACKETS.sub(".", name).strip(".").rsplit(".", 1)[-1]
    return " ".join(w for w in _SPLIT.split(last) if w).lower()


def _subject(words: str) -> bool:
    """Whether one part or one word names what is ended (a subscription, a pledge)."""
    return _is("commit.subject", words)


def _ending(word: str) -> bool:
    """Whether a word ends the subject beside it (``delete``, ``kündigen``, ``stop``)."""
    return _is("commit.ending", word)


#: Words that may follow the operation in a flag's name (``cancel_at_period_end``); a
#: ``cancel_reason`` or a ``cancellation_feedback`` is an answer, not a flag.
_FLAG_TAIL = frozenset(
    {
        *("at", "period", "end", "immediately", "now", "the", "of", "cycle", "billing"),
        *("subscription", "membership", "plan", "account", "auto", "renew", "renewal"),
    }
)


def _names_operation(key: str) -> bool:
    """A flag's name says the operation: ``cancel``, ``cancel_at_period_end``,
    ``unsubscribe``, ``delete_account``; a verb that ends anything (``delete``) only
    beside a subject."""
    words = key.split()
    if not words:
        return False
    if _is("commit.operation", key):
        return True
    if not set(words[1:]) <= _FLAG_TAIL:
        return False
    if _is("commit.operation", words[0]):
        return True
    return _ending(words[0]) and any(_subject(word) for word in words[1:])


def kept_fields(pairs: Sequence[tuple[str, str]]) -> frozenset[str]:
    """Names of flags that name the operation but are set off (``cancel_at_period_end=false``):
    such a request keeps the subscription, so the name is no word of what it does."""
    return frozenset(
        name
        for name, value in pairs
        if value.strip().lower() in _OFF_VALUES and _names_operation(_key(name))
    )


def commit_in_fields(pairs: Sequence[tuple[str, str]], path: str) -> str | None:
    """What a state-changing request's fields set that ends the subscription, or None:
    an ended status, an operation flag on, a renewal flag off, a recurring amount of 0,
    or a form's ``_method=delete`` on the subscription's own address."""
    words = {word for part in _parts(path) for word in (part, *part.split())}
    keys = {word for name, _value in pairs for word in _key(name).split()}
    recurring = bool(_RECURRING & (words | keys))
    on_subject = any(_subject(word) for word in words)
    for name, raw in pairs:
        key, value = _key(name), raw.strip().lower()
        said = f"{name}={raw}" if raw else name
        overridden = name.lower() == "_method" and value == "delete" and deletes_subject(path)
        ended = key in _STATE_KEYS and " ".join(_SPLIT.split(value)).strip() in _ENDED_VALUES
        # A bare "delete" flag says nothing; on a subject's own address it does.
        flag = value in _ON_VALUES and (_names_operation(key) or (_ending(key) and on_subject))
        # Beside an amount the request configures the subscription (renewed by hand from
        # now on); alone, automatic renewal off is how it ends.
        renewal_off = value in _OFF_VALUES and key in _RENEWAL_KEYS and not _sets_amount(pairs)
        nothing = key in _AMOUNT_KEYS and _ZERO.match(value) is not None and recurring
        if overridden or ended or flag or renewal_off or nothing:
            return said
    return None


def _sets_amount(pairs: Sequence[tuple[str, str]]) -> bool:
    """Whether the request sets an amount above zero (it keeps paying, differently)."""
    return any(
        _key(name) in _AMOUNT_KEYS and any(c.isdigit() for c in value) and not _ZERO.match(value)
        for name, value in ((name, raw.strip()) for name, raw in pairs)
    )


def _resource_parts(path: str) -> list[str]:
    """A path's parts without ids: a part with a digit in a long token is an id too
    (``sub_1P5atYC1Uv10``, ``pm_9aB7``)."""
    return [
        part
        for part, segment in zip(_parts(path), _segments(path), strict=True)
        if not (len(segment) >= 6 and any(c.isdigit() for c in segment))
    ]


def _segments(path: str) -> list[str]:
    """The raw segments :func:`_parts` keeps, in the same order."""
    found = []
    for segment in path.split("/"):
        words = " ".join(w for w in _SPLIT.split(segment) if w).lower() if segment else ""
        if words and not _NOISE.match(segment):
            found.append(segment)
    return found


def deletes_subject(path: str) -> bool:
    """Whether a DELETE of ``path`` deletes the subscription itself: its last segment names
    it, or the one before names it and the last is its id or name (``/api/account``,
    ``/v1/subscriptions/<id>``, ``/subscription/main``); ``/subscriptions/12/discount``
    deletes something of it, not it."""
    segments = [" ".join(w for w in _SPLIT.split(s) if w).lower() for s in path.split("/") if s]
    if not segments:
        return False
    return _subject(segments[-1]) or (len(segments) >= 2 and _subject(segments[-2]))


def ends_subject(path: str) -> str | None:
    """The subject and the verb that ends it, as the path's last two parts
    (``/account/delete``, ``/auto_renew/disable``, ``/membership/end``), or None."""
    parts = _resource_parts(path)
    if len(parts) >= 2 and _subject(parts[-2]) and _ending(parts[-1]):
        return f"{parts[-2]} {parts[-1]}"
    words = parts[-1].split() if parts else []
    if len(words) == 2 and _ending(words[0]) and _subject(words[1]):
        return parts[-1]
    if len(words) == 2 and _ending(words[1]) and _subject(words[0]):
        return parts[-1]
    return None


def passes_through(path: str) -> bool:
    """Whether the path says the request only passes through the flow (``/cancel/start``,
    ``/cancel/survey``, ``/offer/decline``): its button's words do not make it the commit."""
    parts = _parts(path)
    if not parts:
        return False
    return any(_is("commit.passing", words) for words in (parts[-1], *parts[-1].split()))


def commit_in_labels(labels: Sequence[str]) -> str | None:
    """The operation a state-changing control's own name says ("Cancel subscription",
    "Kündigen", "Unsubscribe", "Delete account", "Stop the Daily Bugle subscription"),
    or None.

    A name that also keeps, pauses, resumes, changes or declines ("Keep my subscription",
    "Continue to cancel") does not: it names the flow, not the step that ends it. Nor does
    a verb whose subject is further off ("Remove this card from your account").

    """
    for label in labels:
        text = normalise_text(label).strip()
        if not text or _keeping_pattern().search(text):
            continue
        found = every_language_pattern("controls.cancel").search(text)
        if found is not None:
            return found.group(0).strip()
        words = _words(text)
        for index, word in enumerate(words):
            # The object follows the verb ("Stop the ... subscription") or, in languages
            # that put the verb last, precedes it ("Aus der Mailingliste austragen").
            near = [*words[max(0, index - 3) : index], *words[index + 1 : index + 5]]
            pairs = [" ".join(near[k : k + 2]) for k in range(len(near))]
            if _ending(word) and any(_subject(w) for w in (*near, *pairs)):
                return text
    return None


def _words(label: str) -> list[str]:
    return [word for word in re.split(r"[^\w]+", label.lower()) if word]


@functools.cache
def _keeping_pattern() -> re.Pattern[str]:
    """Names that keep, pause, resume, change or decline, in every language."""
    picks = ("controls.not_a_cancellation", "controls.resume", "money.decline")
    return compile_kept("|".join(f"(?:{every_language_pattern(p).pattern})" for p in picks), re.I)
