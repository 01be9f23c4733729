"""The shape of ``services.toml``: strict models every loaded service passes through.

Strict on purpose. A misspelt key (``target_anyy``) or a string where a list belongs
would otherwise be ignored, and an ignored checkpoint is a click nobody was asked
about. Unknown keys, wrong types, invalid regular expressions and rules without a
condition are all load-time errors; the loader turns them into messages naming the
file, the service and the key.
"""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from subterminator_tui.reach.identity_providers import IDENTITY_PROVIDERS, is_provider_name
from subterminator_tui.reach.urls import domain_allowed, ip_address, is_bare_host, local_origin
from subterminator_tui.rules.text import normalise_text

#: Keys the loader fills in; a ``services.toml`` that sets them is refused.
LOADER_KEYS: frozenset[str] = frozenset({"id", "source"})

_MODEL_CONFIG = ConfigDict(extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True)


def _as_tuple(value: object) -> object:
    """TOML gives lists; the models keep tuples so a loaded service cannot be mutated."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, list):
        return tuple(value)
    raise PydanticCustomError("list_type", "Input should be a valid list")


def _reject_blank_items(values: tuple[str, ...]) -> tuple[str, ...]:
    """An empty needle is a substring of everything, so the condition would always hold."""
    for index, value in enumerate(values):
        if not value.strip():
            raise ValueError(f"item {index} is empty; an empty string would match every page")
    return values


def compile_pattern(source: str) -> re.Pattern[str]:
    """Compile a rule's regular expression case-insensitively, or raise ValueError."""
    try:
        # The pattern reads normalised text, so it is written in the same form.
        pattern = re.compile(normalise_text(source), re.IGNORECASE)
    except re.error as error:
        raise ValueError(f"invalid regular expression '{source}': {error}") from None
    if pattern.search("") is not None:
        # ``a*`` or ``x|`` matches at position 0 of any text: the rule would always hold.
        raise ValueError(
            f"regular expression '{source}' matches an empty string, so it would match every page"
        )
    return pattern


def _compile_patterns(value: object) -> object:
    """Accept one pattern or a list of them, as users write either."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise PydanticCustomError("pattern_type", "Input should be a string or a list of strings")
    compiled: list[re.Pattern[str]] = []
    for item in items:
        if isinstance(item, re.Pattern):
            compiled.append(item)
        elif isinstance(item, str):
            compiled.append(compile_pattern(item))
        else:
            raise PydanticCustomError(
                "pattern_type", "Input should be a string or a list of strings"
            )
    return tuple(compiled)


def _compile_optional_pattern(value: object) -> object:
    """A single optional pattern (a playbook step's ``name_regex``)."""
    return compile_pattern(value) if isinstance(value, str) else value


def _reject_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


#: Case-insensitive substrings; any (or, for ``text_all``, every) must be present.
Needles = Annotated[
    tuple[str, ...], BeforeValidator(_as_tuple), AfterValidator(_reject_blank_items)
]
#: Regular expressions compiled with re.IGNORECASE at load time.
Patterns = Annotated[tuple[re.Pattern[str], ...], BeforeValidator(_compile_patterns)]
NonBlank = Annotated[str, AfterValidator(_reject_blank)]

#: The groups ``subterminator services`` lists catalog services under.
Category = Literal[
    "streaming",
    "music",
    "news",
    "software",
    "fitness",
    "delivery",
    "cloud",
    "games",
    "creators",
    "dating",
]


def _iso_date(value: object) -> object:
    """TOML has dates (``2026-11-22``); a quoted ``"2026-11-22"`` is accepted too."""
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            raise PydanticCustomError(
                "date_format", "Input should be a date such as 2026-11-22"
            ) from None
    return value


def _https_address(value: str) -> str:
    if not value.startswith("https://") or len(value) <= len("https://"):
        raise ValueError(f"'{value}' is not an https:// address")
    return value


class PageRule(BaseModel):
    """A judgement about one page: it holds when ALL of its conditions hold.

    Every comparison ignores case. ``text_*`` conditions read the page's visible text
    (title, accessible names and text nodes), never link targets: "rejoin" inside a
    link's URL must not turn an unfinished cancellation into a success.
    """

    model_config = _MODEL_CONFIG

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
            shown = [item.pattern if isinstance(item, re.Pattern) else item for item in values]
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

    model_config = _MODEL_CONFIG

    action: Action
    """What to do: click, type, select, press, navigate, wait, or answer a dialog."""
    role: str | None = None
    """The target element's role, e.g. ``button``; narrows ``name`` / ``name_regex``."""
    name: NonBlank | None = None
    """A case-insensitive substring of the target element's accessible name."""
    name_regex: Annotated[re.Pattern[str] | None, BeforeValidator(_compile_optional_pattern)] = None
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


class ServiceConfig(BaseModel):
    """Everything SubTerminator knows about one service, as ``[services.<id>]`` defines it."""

    model_config = _MODEL_CONFIG

    id: str = Field(exclude=True)
    """The table key (``netflix`` in ``[services.netflix]``); set by the loader."""
    source: Path = Field(exclude=True)
    """The file that defined this service; set by the loader."""
    name: NonBlank
    """The display name, e.g. ``Netflix``."""
    practice: NonBlank | None = None
    """A bundled practice site (e.g. ``demoflix``); then ``start_url`` is a path on it."""
    practice_variants: Needles = ()
    """Practice-site variants to switch on, e.g. ``two_factor``."""
    expected: Literal["cancelled", "not_cancelled"] | None = None
    """How a practice scenario should end, for tests and demos."""
    allowed_domains: Needles
    """Domains (and their subdomains) the browser may visit; anything else is refused."""
    sign_in_domains: Needles = ()
    """Identity providers the person may sign in with (``google``, ``apple``, ``microsoft``,
    ``facebook``, ``amazon``, ``okta``, ``auth0``) or their bare hosts: reachable only while
    a sign-in hand-off is open, never by the model."""
    start_url: NonBlank
    """Where a run starts: a full http(s) URL, or a path for practice services."""
    goal: NonBlank
    """The task given to the model."""
    prompt: str = ""
    """Service-specific advice added to the system prompt."""
    max_turns: Annotated[int, Field(gt=0)] | None = None
    """A tighter turn budget than the global default."""
    unverified: bool = False
    """The rules have not been checked against the real site yet."""
    category: Category | None = None
    """What kind of service this is (streaming, music, news, software, fitness, ...)."""
    help_url: Annotated[str, AfterValidator(_https_address)] | None = None
    """The service's own help page these rules were researched from (https)."""
    researched: Annotated[datetime.date, BeforeValidator(_iso_date)] | None = None
    """The day ``help_url`` was read."""
    generic_rules: bool = False
    """The built-in generic rules (``generic.toml``) apply after this service's own."""
    extends: str | None = None
    """The service this one inherited its unset keys from (resolved by the loader)."""
    checkpoint: Annotated[tuple[CheckpointRule, ...], BeforeValidator(_as_tuple)] = ()
    """Ask the human before a matching call runs."""
    default_checkpoints: bool = True
    """Also apply the built-in checkpoints (finish, confirm, pay, ... in four languages);
    false turns them off, and every run says so loudly."""
    success: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Verified success: any rule holding means the cancellation is confirmed."""
    failure: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Failure pages; a failure rule holding beats any success rule."""
    login: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Sign-in pages: hand the browser to the human."""
    two_factor: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Two-step verification pages: hand the browser to the human."""
    captcha: Annotated[tuple[PageRule, ...], BeforeValidator(_as_tuple)] = ()
    """Captcha and bot checks: hand the browser to the human."""
    playbook: Annotated[tuple[PlaybookStep, ...], BeforeValidator(_as_tuple)] = ()
    """A scripted flow that can run without a model."""

    @field_validator("practice_variants", "expected")
    @classmethod
    def _only_for_practice(cls, value: Any, info: ValidationInfo) -> Any:
        if value and not info.data.get("practice"):
            raise ValueError(f"'{info.field_name}' only applies to practice services")
        return value

    @field_validator("allowed_domains")
    @classmethod
    def _bare_domains(cls, domains: tuple[str, ...]) -> tuple[str, ...]:
        if not domains:
            raise ValueError("list at least one domain, such as 'netflix.com'")
        for domain in domains:
            if "*" in domain:
                raise ValueError(f"'{domain}': write the bare domain; subdomains are included")
            if local_origin(domain) is not None:
                continue
            if not is_bare_host(domain):
                raise ValueError(
                    f"'{domain}' is not a bare domain such as 'netflix.com' (an address on "
                    "this computer or network may name its port: 'http://127.0.0.1:8000')"
                )
        return tuple(
            domain.lower().rstrip("/") if local_origin(domain) else domain.lower().strip(".")
            for domain in domains
        )

    @field_validator("sign_in_domains")
    @classmethod
    def _sign_in_hosts(cls, entries: tuple[str, ...]) -> tuple[str, ...]:
        for entry in entries:
            if is_provider_name(entry) or local_origin(entry) is not None:
                continue
            # A single label ("gogle") is a misspelt provider, not an identity provider's host.
            dotted = "." in entry.strip(".") or ip_address(entry) is not None
            if "*" in entry or not is_bare_host(entry) or not dotted:
                known = ", ".join(IDENTITY_PROVIDERS)
                raise ValueError(
                    f"'{entry}' is neither a known identity provider ({known}) nor a bare "
                    "domain such as 'login.example.com'"
                )
        return tuple(
            entry.strip().lower().rstrip("/")
            if local_origin(entry)
            else entry.strip().lower().strip(".")
            for entry in entries
        )

    @field_validator("start_url")
    @classmethod
    def _start_url_fits(cls, start_url: str, info: ValidationInfo) -> str:
        if info.data.get("practice"):
            if not start_url.startswith("/"):
                raise ValueError("a practice service's start_url is a path such as '/account'")
            return start_url
        if not start_url.lower().startswith(("https://", "http://")):
            raise ValueError("must be a full http(s) URL such as 'https://www.netflix.com/account'")
        domains = info.data.get("allowed_domains")
        if domains and not domain_allowed(start_url, domains):
            raise ValueError(f"'{start_url}' is outside allowed_domains {list(domains)}")
        return start_url
