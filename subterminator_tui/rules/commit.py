"""The commit: the step that really ends the subscription, known by what it does.

A label can say anything ("Cancel Premium" finishes the flow on one site and only
opens it on another); what the control does cannot hide. A state-changing request
(any method but GET, HEAD or OPTIONS) whose address, operation name or fields name
the subscription's own operation is the commit, whatever its button says:

* the operation is ending the subscription or the account: cancel, terminate,
  unsubscribe, end a subscription or membership, close, delete or deactivate the
  account (in every language the rules know);
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

import re
from collections.abc import Sequence

from subterminator_tui.rules.page_rules import CheckpointRule

#: Words that name ending the subscription as a path part or an operation, by language.
#: Multi-word operations are written as the words a path or an identifier splits into.
_OPERATION = re.compile(
    r"""(?xi)
    ^(?:cancel|cancell?ation|cancel\ (?:subscription|membership|plan|account|service|trial)
      |terminate|termination|terminate\ (?:subscription|membership|contract|account)
      |unsubscribe|opt\ out
      |end\ (?:subscription|membership|plan|contract)
      |(?:close|delete|deactivate|remove)\ (?:my\ )?account
      |kuendigen|kündigen|kuendigung|kündigung|abo\ kuendigen|abo\ kündigen
      |resilier|résilier|resiliation|résiliation|annuler|annulation
      |cancelar|cancelacion|cancelación|baja|dar\ de\ baja
      |disdire|disdetta|annulla|annullare
      |opzeggen|beeindigen
      |anuluj|anulowanie|wypowiedz|avsluta|saga\ upp|opsig|opsigelse|si\ opp|oppsigelse
      |peruuta|irtisano|zrusit|zrušit|iptal|otmena|otmenit|отменить|отмена|расторгнуть
      |解約|退会|キャンセル|해지|취소|取消|退订|取消订阅|إلغاء|ביטול|रद्द
      |huy|hủy|batalkan|berhenti\ berlangganan|ยกเลิก|ακύρωση
    )$
    """
)
#: A path part that finishes the operation named before it (``/cancel/confirm``).
_FINISHING = frozenset(
    {
        "confirm",
        "confirmed",
        "finish",
        "finalize",
        "finalise",
        "complete",
        "submit",
        "do",
        "now",
        "execute",
        "process",
        "bestaetigen",
        "bestätigen",
        "confirmer",
        "confirmar",
        "conferma",
    }
)
#: Finishing words that as often name the page that asks ("/cancel/confirm" shows a form).
_ASKING = frozenset(
    {
        "confirm",
        "confirmed",
        "bestaetigen",
        "bestätigen",
        "confirmer",
        "confirmar",
        "conferma",
        "submit",
    }
)
#: Path parts that say nothing of the operation: ids, versions, formats.
_NOISE = re.compile(r"^(?:\d+|v\d+|[0-9a-f]{8,}|[0-9a-f-]{20,}|api|json|html|php|aspx?)$", re.I)
_SPLIT = re.compile(r"[/_\-.]+|(?<=[a-z0-9])(?=[A-Z])")


def _parts(path: str) -> list[str]:
    """A path's parts as lower-case words, ids and formats left out."""
    parts = []
    for segment in path.split("/"):
        if not segment:
            continue
        words = " ".join(w for w in _SPLIT.split(segment) if w).lower()
        if words and not _NOISE.match(segment):
            parts.append(words)
    return parts


def commit_in_path(path: str) -> str | None:
    """The operation a state-changing request's path finishes (``cancel``), or None."""
    parts = _parts(path)
    if not parts:
        return None
    last = parts[-1]
    if _OPERATION.match(last):
        return last
    if last in _FINISHING and len(parts) >= 2 and _OPERATION.match(parts[-2]):
        return f"{parts[-2]} {last}"
    return None


#: What a subscription is called in a path (``/membership/finish``).
_SUBJECT = frozenset(
    {
        "subscription",
        "subscriptions",
        "membership",
        "memberships",
        "plan",
        "plans",
        "account",
        "abo",
        "abonnement",
        "contract",
        "trial",
        "premium",
        "billing",
    }
)


def finish_in_path(path: str) -> str | None:
    """The finishing step a path names (``/membership/finish``, ``/cancel/confirm``), or None.

    For a navigation typed to an address no page showed: opening ``/cancel`` only opens
    the flow, but a GET to its last step can be the commit on a careless service.
    """
    parts = _parts(path)
    # "confirm" is the name of the page that asks as often as of the step that does.
    if len(parts) < 2 or parts[-1] not in _FINISHING - _ASKING:
        return None
    if any(_OPERATION.match(part) or part in _SUBJECT for part in parts[:-1]):
        return " ".join(parts[-2:])
    return None


def says_finish(labels: Sequence[str]) -> bool:
    """Whether a control's labels name a finishing step ("Finish cancellation", "Confirm"),
    not only the operation ("End membership" opens the flow that ends it)."""
    return any(
        word in _FINISHING or word in ("yes", "done") for label in labels for word in _words(label)
    )


def _words(label: str) -> list[str]:
    return [word for word in re.split(r"[^\w]+", label.lower()) if word]


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
        words = " ".join(w for w in _SPLIT.split(name) if w).lower().strip()
        if _OPERATION.match(words):
            return words
    return None


def commit_rule(detail: str) -> CheckpointRule:
    """The built-in commit checkpoint, decided already (``detail`` says what was seen)."""
    why = f"Built-in: this step ends the subscription ({detail})"
    # A rule needs a condition to be valid; this one was already decided by its caller.
    return CheckpointRule.model_validate({"why": why, "tool": ["any"]}, strict=False)
