"""Rules for any site: the built-in ``generic.toml``, and a service built from a bare address.

``subterminator cancel example.com`` has no service entry to go by. It still gets
everything a run needs: the site's registrable domain as the only allowed domain,
a goal named after the site, and generic success, failure, sign-in,
verification-code and CAPTCHA rules in every language that has a table in
``words/`` (the rules are built from those tables when ``generic.toml`` is read, and
each of their expressions is compiled when a page is first read with it). A
catalog service that could not source its own phrases sets ``generic_rules = true``
and gets the same rules after its own. Verification by these rules is reported as
such ("Verified by generic rules: ..."), never as if a service-specific rule held.
"""

from __future__ import annotations

import contextlib
import functools
import tomllib
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from subterminator_tui.errors import ServiceConfigError
from subterminator_tui.reach.urls import site_entry
from subterminator_tui.resources import builtin_generic_rules_file
from subterminator_tui.rules.built_rules import load_or_build
from subterminator_tui.rules.endings import BillerEntry, BillerRule
from subterminator_tui.rules.fields import DeferredPattern
from subterminator_tui.rules.language_words import LanguageWords, all_language_words
from subterminator_tui.rules.models import ServiceConfig
from subterminator_tui.rules.page_rules import CheckpointRule, PageRule
from subterminator_tui.rules.problems import describe_error, key_path
from subterminator_tui.rules.sentences import (
    STATEMENT_KINDS,
    SUCCESS_KINDS,
    alternation,
    control_regex,
    line_regex,
    naming_statement_regex,
    script_letters,
    statement_regex,
    success_patterns,
    success_phrases,
    words_needed,
)
from subterminator_tui.rules.sites import registrable_domain, site_url

#: The rule lists generic.toml fills, in the order ServiceConfig declares them.
RULE_LISTS: tuple[str, ...] = ("checkpoint", "success", "failure", "login", "two_factor", "captcha")


def _as_tuple(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


class GenericRules(BaseModel):
    """The contents of ``generic.toml``: rule lists that hold for any site."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    checkpoint: Annotated[tuple[CheckpointRule, ...], BeforeValidator(_as_tuple)] = ()
    """Built-in checkpoints (none yet; the guard's defaults may move here)."""
    success: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Pages that state the cancellation happened."""
    failure: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Error pages, and pages that still offer to cancel."""
    login: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Sign-in pages."""
    two_factor: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Pages asking for a verification code."""
    captcha: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """CAPTCHA widgets and bot checks."""
    billed_elsewhere_by: Annotated[tuple[BillerEntry, ...], BeforeValidator(_as_tuple)] = ()
    """Companies that bill for others; their rules are built with every language's words."""
    billed_elsewhere: Annotated[tuple[BillerRule, ...], BeforeValidator(_as_tuple)] = ()
    """Pages saying another company (Apple, Google Play, Roku, ...) bills the subscription."""
    offline_only: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Pages saying cancelling takes a phone call, a chat or a letter."""
    renewed: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Account pages saying the plan renewed or a payment was taken (``check``)."""
    active: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Account pages saying the plan renews or naming its next payment (``check``)."""


def read_generic_rules(path: Path) -> GenericRules:
    """Parse and validate a generic rules file; ServiceConfigError names the file and key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ServiceConfigError(f"{path}: cannot be read: {error}") from None
    try:
        rules = GenericRules.model_validate(data)
    except ValidationError as error:
        problems = [
            f"{path}: key '{key_path(detail['loc'])}': {describe_error(detail)}"
            for detail in error.errors(include_url=False)
        ]
        raise ServiceConfigError("\n".join(problems)) from None
    return with_language_rules(rules, all_language_words())


def with_language_rules(rules: GenericRules, tables: tuple[LanguageWords, ...]) -> GenericRules:
    """``rules`` followed, list by list, by the rules every language table gives."""
    built: dict[str, list[dict[str, object]]] = {name: [] for name in _WORD_LISTS}
    for words in tables:
        for name, rule in language_rules(words):
            built[name].append(rule)
    billers = rules.billed_elsewhere_by
    built["billed_elsewhere"] += [biller_rule(biller, tables) for biller in billers]
    # Hand-offs hold on one page in any language: one rule each, every language inside.
    built["two_factor"].append(
        {
            "why": "The page asks for a verification code and has a field for it",
            "text_regex": [alternation(words, words.handoff.code, marked=True) for words in tables],
            "role": ["textbox", "spinbutton"],
            "element_regex": [
                alternation(words, words.handoff.code_field, marked=True) for words in tables
            ],
        }
    )
    built["captcha"].append(
        {
            "why": "A bot check in words",
            "text_regex": [
                alternation(words, words.handoff.captcha, marked=True) for words in tables
            ],
        }
    )
    built["success"].append(
        {
            "why": "The page title confirms the cancellation",
            "title_regex": [
                line_regex(words, words.success.heading, marked=True) for words in tables
            ],
        }
    )
    update = {
        name: (*getattr(rules, name), *(_as_rule(name, rule) for rule in items))
        for name, items in built.items()
    }
    return rules.model_copy(update=update)


_WORD_LISTS = (
    "success",
    "failure",
    "login",
    "two_factor",
    "captcha",
    "billed_elsewhere",
    "offline_only",
    "renewed",
    "active",
)


def _as_rule(name: str, rule: dict[str, object]) -> PageRule:
    # Each built expression is compiled when a page is first read with it: a process
    # that reads few lists (or none) pays for few of the languages' expressions. Each
    # reads the page with its inner full stops marked, as it was built to.
    deferred = {
        key: [
            item if isinstance(item, DeferredPattern) else DeferredPattern(item, marked=True)
            for item in value
        ]
        if key.endswith("_regex") and isinstance(value, list)
        else value
        for key, value in rule.items()
    }
    model = BillerRule if name == "billed_elsewhere" else PageRule
    return model.model_validate(deferred, strict=False)


def language_rules(words: LanguageWords) -> list[tuple[str, dict[str, object]]]:
    """The rules one language's table gives, as ``(list name, rule)``."""
    name = words.name
    endings = words.endings
    # A statement holds one of the language's own letters (its script gate): a page
    # without one never compiles it.
    letters = script_letters(words)

    # Every expression below is built from a list of phrases: one of the list's words
    # must be on the page before it is worth compiling (see required_words). The words
    # are found when a page is first read, as the expressions are compiled.
    def built(source: str, phrases: tuple[str, ...] | None, *, statement: bool) -> DeferredPattern:
        needed = functools.partial(words_needed, words, phrases)
        gate = letters if statement else ""
        return DeferredPattern(source, marked=True, needs_any=gate, needs_one_of=needed)

    built_from = success_phrases(words)
    rules: list[tuple[str, dict[str, object]]] = [
        (
            "success",
            {
                "why": f"The page states in {name} that {SUCCESS_KINDS[kind]}",
                "text_regex": [built(regex, built_from[kind], statement=kind in STATEMENT_KINDS)],
            },
        )
        for kind, regex in success_patterns(words, marked=True).items()
    ]

    def ending(phrases: tuple[str, ...], *, negatable: bool) -> DeferredPattern:
        source = statement_regex(words, phrases, negatable=negatable, marked=True)
        return built(source, phrases, statement=True)

    rules += [
        (
            "failure",
            {
                "why": f"The page still offers a button or link to cancel or to confirm the "
                f"cancellation ({name}): it is not finished",
                "role": ["button", "link"],
                "element_regex": [
                    control_regex(words, words.controls.cancel, anchored=True, marked=True)
                ],
            },
        ),
        (
            "failure",
            {
                "why": f"An error message ({name})",
                "text_regex": [alternation(words, words.failure.error, marked=True)],
            },
        ),
        (
            "login",
            {
                "why": f"A password field ({name}): the site wants you to sign in",
                "role": ["textbox"],
                "element_regex": [
                    control_regex(words, words.handoff.password, anchored=True, marked=True)
                ],
            },
        ),
        (
            "login",
            {
                "why": f"A sign-in heading ({name})",
                "heading_regex": [line_regex(words, words.handoff.sign_in, marked=True)],
            },
        ),
        (
            "offline_only",
            {
                "why": f"The page says cancelling takes a phone call, a chat or a letter ({name})",
                "text_regex": [ending(endings.offline_only, negatable=False)],
            },
        ),
        (
            "renewed",
            {
                "why": f"The page says the subscription renewed or a payment was taken ({name})",
                "text_regex": [ending(endings.renewed, negatable=True)],
            },
        ),
        (
            "active",
            {
                "why": f"The page says the subscription renews or names its next payment ({name})",
                "text_regex": [ending(endings.active, negatable=True)],
            },
        ),
    ]
    return rules


def biller_rule(biller: BillerEntry, tables: tuple[LanguageWords, ...]) -> dict[str, object]:
    """One rule for ``biller`` in every language: a sentence that names the biller (looked
    for first, once) and holds a language's "billed through" phrase.

    Every match names the biller, so a page without one of the words its names need never
    compiles the expression (each is about 50,000 characters of every language's words,
    a sixth of a CPU second): a page that names no biller compiles none of them.
    """
    source = naming_statement_regex(tables, biller.names, marked=True)
    # The names are one expression; any table reads it (it holds no placeholder).
    needed = functools.partial(words_needed, tables[0], (biller.names,))
    return {
        "why": biller.why or f"The page says {biller.biller} bills the subscription",
        "biller": biller.biller,
        "cancel_at": biller.cancel_at,
        "how": biller.how,
        "source": biller.source,
        "text_regex": [DeferredPattern(source, marked=True, needs_one_of=needed)],
    }


@functools.cache
def generic_rules() -> GenericRules:
    """The built-in ``generic.toml``, read once a process, built once a package
    (``built_rules``: the next process loads what the first one built)."""
    try:
        path = builtin_generic_rules_file()
    except FileNotFoundError as error:
        raise ServiceConfigError(str(error)) from None
    return load_or_build("generic-rules", GenericRules, lambda: read_generic_rules(path))


def is_generic_rule(rule: PageRule) -> bool:
    """Whether ``rule`` is one of the built-in generic rules (of any list)."""
    rules = generic_rules()
    return any(rule in getattr(rules, name) for name in RULE_LISTS)


def with_generic_rules(service: ServiceConfig) -> ServiceConfig:
    """``service`` with the generic rules appended after its own, list by list.

    The service's own rules come first, so when both hold the specific one is
    reported. Services without ``generic_rules`` are returned unchanged.
    """
    if not service.generic_rules:
        return service
    rules = generic_rules()
    extended = {
        name: (*getattr(service, name), *getattr(rules, name))
        for name in RULE_LISTS
        if getattr(rules, name)
    }
    # The parts were validated where they were read; copying keeps the frozen model.
    return service.model_copy(update=extended)


def site_name(domain: str) -> str:
    """A display name from a registrable domain: ``example.co.uk`` -> ``Example``."""
    label = domain.split(".", 1)[0]
    if label.startswith("xn--"):
        # A label that is not valid punycode keeps its ASCII form.
        with contextlib.suppress(UnicodeError):
            label = label.encode("ascii").decode("idna")
    return label[:1].upper() + label[1:] if label else domain


def default_goal(name: str) -> str:
    """The task given to the model for a site without its own goal."""
    return (
        f"Cancel the {name} subscription. Find the account, billing or subscription "
        "settings, start the cancellation and complete every step of it. Decline retention "
        "offers, discounts, pauses and plan changes. Call complete_task when the page "
        "confirms the cancellation, for example with a confirmation message or the date "
        "the subscription ends."
    )


def generic_service(url: str, *, goal: str | None = None, name: str | None = None) -> ServiceConfig:
    """A complete service for any site, from its address (``example.com`` or a full URL).

    The id is the registrable domain and the only allowed domain; the name comes
    from it unless ``name`` is given; the goal is :func:`default_goal` unless
    ``goal`` is given. Every rule list holds the generic rules. Raises
    SiteAddressError (a ConfigurationError) for an address that cannot be opened.
    """
    start_url = site_url(url)
    domain = registrable_domain(start_url)
    display_name = name or site_name(domain)
    try:
        rules_file = builtin_generic_rules_file()
    except FileNotFoundError as error:
        raise ServiceConfigError(str(error)) from None
    service = ServiceConfig.model_validate(
        {
            "id": domain,
            "source": rules_file,
            "name": display_name,
            "start_url": start_url,
            "allowed_domains": [site_entry(start_url, domain)],
            "goal": goal or default_goal(display_name),
            "generic_rules": True,
        }
    )
    return with_generic_rules(service)
