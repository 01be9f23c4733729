"""What a request to the service does, read from the request itself.

*Gated*: its scheme, host and path (the query ignored) are a gated link's or a
gated form's, or they match a checkpoint rule's URL conditions (see
:func:`rule_addressing`), or, for any method that changes state, its path's last
step (``/cancel/pause/cancel-anyway`` is a choice posted from the pause page: it says
"cancel anyway", not "pause"), its fields or its operation name (a GraphQL
``operationName``, a JSON ``action``) say an irreversible or money-moving word of
the checkpoint rules, normalised the same way as a button's name and in every
language they know, or it carries an amount of money beside a charge or plan-change
word (the money checkpoint's amounts and words, rules/money.py). *State-changing*:
any other method than GET, HEAD or OPTIONS. *Safe*: the rest.

A GET is judged by its address alone: its path words would otherwise hold every
ordinary page of a cancellation flow (``/cancel/confirm`` is the page that asks,
not the step). The gated addresses are the ones the page links or posts to
under a gated name, so a GET that does the step is still caught.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

from subterminator_tui.browser.interception import InterceptedRequest
from subterminator_tui.rules.commit import (
    commit_in_fields,
    commit_in_names,
    commit_in_path,
    commit_rule,
    deletes_subject,
    ends_subject,
    kept_fields,
    passes_through,
    step_in_path,
)
from subterminator_tui.rules.effects import normalise_url
from subterminator_tui.rules.matching import address_matches, rule_naming
from subterminator_tui.rules.money import money_in_fields
from subterminator_tui.rules.page_rules import CheckpointRule

RequestClass = Literal["gated", "state_changing", "safe"]

#: Methods that only read.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: JSON keys whose value names the operation (read as words, like a path).
_ACTION_KEYS = frozenset(
    {"action", "operation", "operationname", "op", "intent", "command", "type", "event", "mutation"}
)
#: Field names whose values are never shown, even masked ones are only dots.
_SECRET_FIELD = re.compile(r"pass|pwd|secret|token|otp|code|card|cvc|cvv|iban|pin", re.I)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[/_\-.+=&?:]+")
_GRAPHQL_NAME = re.compile(r"\b(?:mutation|query)\s+([A-Za-z_]\w*)")
_GRAPHQL_FIELD = re.compile(r"\bmutation\b[^{]*\{\s*([A-Za-z_]\w*)")
_MULTIPART_NAME = re.compile(rb'name="([^"]{1,80})"')
#: Bodies larger than this are read only this far (a form or an API call is far smaller).
_BODY_LIMIT = 65536


@dataclass(frozen=True)
class RequestJudgement:
    """What a request is, why, and what it carries (field names, values masked)."""

    kind: RequestClass
    why: str = ""
    #: Decoded field names (form fields, JSON keys, multipart parts).
    fields: tuple[str, ...] = ()
    #: ``name=value`` pairs to show a person (secret-looking values masked, long ones cut).
    shown: tuple[str, ...] = ()
    rule: CheckpointRule | None = None
    #: Gated for the money it carries (an amount beside a charge or plan word).
    spends_money: bool = False
    #: Gated because it finishes the subscription's own operation (rules/commit.py).
    commit: bool = False


def words(text: str) -> str:
    """``cancelSubscription`` / ``cancel-subscription`` / ``/api/cancel_sub`` as plain words."""
    return " ".join(_SEPARATORS.sub(" ", _CAMEL.sub(" ", text)).split()).lower()


def address_key(url: str) -> str:
    """Scheme, host and path of ``url``, the way two addresses are compared (query ignored)."""
    parts = urlsplit(normalise_url(url))
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def classify(
    request: InterceptedRequest,
    rules: Iterable[CheckpointRule],
    gated_address: Callable[[str], str | None],
    commit_named: Callable[[str], str | None] | None = None,
) -> RequestJudgement:
    """Gated, state-changing or safe; ``gated_address`` says why an address is gated (or None),
    ``commit_named`` what the control that sends to an address says it ends (or None)."""
    pairs, said = _decoded(request)
    # A flag that names the operation but is set off keeps the subscription: its name is
    # no word of what the request does (``cancel_at_period_end=false`` resumes).
    kept = kept_fields(pairs)
    said = [text for text in said if text not in kept]
    fields, shown = _names_and_shown(pairs)
    state_changing = request.method not in SAFE_METHODS
    key = address_key(request.url)
    why = gated_address(key)
    if why is not None:
        return RequestJudgement("gated", why, fields, shown)
    query = parse_qsl(urlsplit(request.url).query, keep_blank_values=True)
    texts = [
        # What the request does is its path's last step, not the pages it is sent from.
        words(step_in_path(_without_bare_end(urlsplit(request.url).path))),
        *(words(f"{k} {v}" if _identifier(v) else k) for k, v in query),
        *(words(text) for text in said),
    ]
    rules = tuple(rules)
    addressed = rule_addressing(rules, key, texts, state_changing=state_changing)
    if addressed is not None:
        why = f"its address matches a checkpoint rule's URL: {addressed.explain()}"
        return RequestJudgement("gated", why, fields, shown, addressed)
    if state_changing:
        rule = rule_naming(rules, texts)
        if rule is not None:
            return RequestJudgement("gated", rule.explain(), fields, shown, rule)
        # Raw values: an amount's separators ("9.99") are what words() takes apart.
        named = [(words(name), value) for name, value in (*query, *pairs)]
        named += [("", text) for text in said]
        money = money_in_fields(named, texts)
        if money is not None:
            rule = money_rule(f"it carries {money}")
            return RequestJudgement("gated", rule.explain(), fields, shown, rule, True)
        # The commit: whatever its button said, a request that finishes the subscription's
        # own operation is asked before it leaves.
        operation = _commit_of(request, query, pairs, said, commit_named)
        if operation is not None:
            rule = commit_rule(f"a {request.method} whose {operation}")
            return RequestJudgement("gated", rule.explain(), fields, shown, rule, commit=True)
        return RequestJudgement("state_changing", "", fields, shown)
    return RequestJudgement("safe")


def _commit_of(
    request: InterceptedRequest,
    query: list[tuple[str, str]],
    pairs: list[tuple[str, str]],
    said: list[str],
    commit_named: Callable[[str], str | None] | None,
) -> str | None:
    """What says a state-changing request ends the subscription (its address, its method,
    its fields, or the control that sends it), in words for the question, or None."""
    path = urlsplit(request.url).path
    operation = commit_in_path(path) or ends_subject(path) or commit_in_names(said)
    if operation is not None:
        return f"address or fields say '{operation}'"
    if request.method == "DELETE" and deletes_subject(path):
        return f"address is the subscription itself ({path})"
    field = commit_in_fields([*query, *pairs], path)
    if field is not None:
        return f"fields set {field}"
    if commit_named is not None and not passes_through(path):
        named = commit_named(address_key(request.url))
        if named is not None:
            return f"control says '{named}'"
    return None


#: Tools whose effect the guard traces to a control or a form (judged as if clicked): a
#: rule naming one of them gates acting at its address, so a request sent there is that act.
#: A rule naming only keys or dialogs judges what cannot be traced on its pages, not them.
_ACTING_TOOLS = frozenset(
    {"browser_click", "browser_type", "browser_select_option", "browser_fill_form"}
)
#: Tools that open an address: a rule naming one gates merely loading its pages.
_OPENING_TOOLS = frozenset({"browser_navigate", "browser_tabs"})


def rule_addressing(
    rules: Iterable[CheckpointRule], key: str, texts: Sequence[str], *, state_changing: bool
) -> CheckpointRule | None:
    """The first rule whose URL conditions (``url_any``/``url_regex``) hold for the address
    ``key`` (scheme, host and path, the query ignored), for a request of this kind.

    A request changing state is gated where a rule gates acting (no ``tool``, or one whose
    effect is judged as a click); a GET only where a rule gates opening the page
    (``browser_navigate``), since loading the page that asks is not the step. Page
    conditions other than the URL have no page to be read on and are not required; a
    rule's ``target_*`` words must be named by the request's ``texts`` too.
    """
    for rule in rules:
        if not address_matches(rule, key):
            continue
        tools = {tool.strip().lower() for tool in rule.tool}
        wanted = _ACTING_TOOLS if state_changing else _OPENING_TOOLS
        if tools and not tools & wanted:
            continue
        if not tools and not state_changing:
            continue
        if (rule.target_any or rule.target_regex) and rule_naming([rule], texts) is None:
            continue
        return rule
    return None


def money_rule(detail: str) -> CheckpointRule:
    """The built-in money checkpoint, decided already (``detail`` says why)."""
    why = f"Built-in: this step may spend money ({detail})"
    # A rule needs a condition to be valid; this one was already decided by its caller.
    return CheckpointRule.model_validate({"why": why, "tool": ["any"]}, strict=False)


def is_speculative(request: InterceptedRequest) -> bool:
    """A prefetch or a prerender: a load no person or model chose (``Sec-Purpose``)."""
    if request.resource_type == "Prefetch":
        return True
    purpose = " ".join(
        value for name, value in request.headers.items() if name.lower() in _PURPOSE_HEADERS
    )
    return "prefetch" in purpose.lower() or "prerender" in purpose.lower()


_PURPOSE_HEADERS = frozenset({"sec-purpose", "purpose", "x-purpose"})


def decode_body(request: InterceptedRequest) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
    """(field names, ``name=value`` pairs to show, texts that may name the operation)."""
    pairs, texts = _decoded(request)
    names, shown = _names_and_shown(pairs)
    return names, shown, texts


def _names_and_shown(pairs: list[tuple[str, str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    names = tuple(dict.fromkeys(name for name, _value in pairs))
    shown = tuple(f"{name}={_shown_value(name, value)}" for name, value in pairs[:20])
    return names, shown


def _decoded(request: InterceptedRequest) -> tuple[list[tuple[str, str]], list[str]]:
    """The body's ``(name, value)`` fields, and the texts that may name the operation."""
    body = request.body[:_BODY_LIMIT]
    if not body:
        return [], []
    kind = request.content_type
    pairs: list[tuple[str, str]] = []
    texts: list[str] = []
    if kind == "application/x-www-form-urlencoded" or (not kind and b"=" in body):
        pairs = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    elif "json" in kind or body.lstrip()[:1] in (b"{", b"["):
        try:
            value = json.loads(body)
        except ValueError:
            value = None
        pairs = list(_json_pairs(value))
        texts += _graphql_names(value)
    elif kind.startswith("multipart/"):
        pairs = [(m.decode("utf-8", "replace"), "") for m in _MULTIPART_NAME.findall(body)]
    else:
        text = body.decode("utf-8", "replace")
        texts.append(text[:200])
    for name, value in pairs:
        texts.append(name)
        if name.rsplit(".", 1)[-1].lower() in _ACTION_KEYS or _identifier(value):
            texts.append(value)
    return pairs, texts


def _without_bare_end(path: str) -> str:
    """``path`` without parts that are only "end": a survey's or a wizard's last page
    (``/survey/end``) says where the flow is, not what the request does, whereas a button
    that says "End" does. ``/membership/end-now`` keeps its words."""
    return "/".join(part for part in path.split("/") if part.lower() != "end")


def _identifier(value: str) -> bool:
    """A short value without spaces: an enumerated choice, never a typed sentence, and never
    an address (a sign-in's ``next=/cancel/confirm`` says where to go after, not what to do)."""
    if value.startswith("/") or "://" in value:
        return False
    return 0 < len(value) <= 64 and not any(c.isspace() for c in value)


def _shown_value(name: str, value: str) -> str:
    if _SECRET_FIELD.search(name):
        return "•••"
    return value if len(value) <= 60 else value[:57] + "..."


def _json_pairs(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every key of a JSON document (dotted), with its scalar value as text."""
    if isinstance(value, dict):
        for key, item in value.items():
            name = f"{prefix}{key}"
            if isinstance(item, dict | list):
                yield name, ""
                yield from _json_pairs(item, f"{name}.")
            else:
                yield name, "" if item is None else str(item)
    elif isinstance(value, list):
        for item in value[:50]:
            yield from _json_pairs(item, prefix)


def _graphql_names(value: Any) -> list[str]:
    """A GraphQL request's operation name and its mutation's first field."""
    found: list[str] = []
    for document in value if isinstance(value, list) else [value]:
        if not isinstance(document, dict):
            continue
        name = document.get("operationName")
        if isinstance(name, str):
            found.append(name)
        query = document.get("query")
        if isinstance(query, str):
            found += _GRAPHQL_NAME.findall(query) + _GRAPHQL_FIELD.findall(query)
    return found
