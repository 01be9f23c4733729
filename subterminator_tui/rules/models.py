"""The shape of a service in ``services.toml``: the strict model every loaded service passes.

Its page rules and checkpoints are in ``page_rules``, its playbook steps in
``playbook_steps``, the field types they share in ``fields``. Strict on purpose: a
misspelt key (``target_anyy``) or a string where a list belongs would otherwise be
ignored, and an ignored checkpoint is a click nobody was asked about. Unknown keys,
wrong types, invalid regular expressions and rules without a condition are all
load-time errors; the loader turns them into messages naming the file, the service
and the key.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Field,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from subterminator_tui.reach.identity_providers import IDENTITY_PROVIDERS, is_provider_name
from subterminator_tui.reach.urls import (
    canonical_host,
    domain_allowed,
    ip_address,
    is_bare_host,
    is_local_address,
    local_origin,
    origin_of,
    web_host,
)
from subterminator_tui.rules.fields import STRICT_MODEL_CONFIG, Needles, NonBlank, as_tuple
from subterminator_tui.rules.page_rules import CheckpointRule, PageRule
from subterminator_tui.rules.playbook_steps import PlaybookStep

#: Keys the loader fills in; a ``services.toml`` that sets them is refused.
LOADER_KEYS: frozenset[str] = frozenset({"id", "source"})

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


class ServiceConfig(BaseModel):
    """Everything SubTerminator knows about one service, as ``[services.<id>]`` defines it."""

    model_config = STRICT_MODEL_CONFIG

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
    descriptor_sources: Annotated[
        tuple[Annotated[str, AfterValidator(_https_address)], ...], BeforeValidator(as_tuple)
    ] = ()
    """Where ``billing_descriptors`` were read: the service's help page or a public list
    of billing descriptors (https)."""
    billing_descriptors: Needles = ()
    """How the service's charges read on bank and card statements (``NETFLIX.COM``),
    matched as whole words, ignoring case, by ``subterminator find``."""
    generic_rules: bool = False
    """The built-in generic rules (``generic.toml``) apply after this service's own."""
    extends: str | None = None
    """The service this one inherited its unset keys from (resolved by the loader)."""
    checkpoint: Annotated[tuple[CheckpointRule, ...], BeforeValidator(as_tuple)] = ()
    """Ask the human before a matching call runs."""
    default_checkpoints: bool = True
    """Also apply the built-in checkpoints (finish, confirm, pay, ... in four languages);
    false turns them off, and every run says so loudly."""
    success: Annotated[tuple[PageRule, ...], BeforeValidator(as_tuple)] = ()
    """Verified success: any rule holding means the cancellation is confirmed."""
    failure: Annotated[tuple[PageRule, ...], BeforeValidator(as_tuple)] = ()
    """Failure pages; a failure rule holding beats any success rule."""
    login: Annotated[tuple[PageRule, ...], BeforeValidator(as_tuple)] = ()
    """Sign-in pages: hand the browser to the human."""
    two_factor: Annotated[tuple[PageRule, ...], BeforeValidator(as_tuple)] = ()
    """Two-step verification pages: hand the browser to the human."""
    captcha: Annotated[tuple[PageRule, ...], BeforeValidator(as_tuple)] = ()
    """Captcha and bot checks: hand the browser to the human."""
    playbook: Annotated[tuple[PlaybookStep, ...], BeforeValidator(as_tuple)] = ()
    """A scripted flow that can run without a model."""

    def __hash__(self) -> int:
        # Equal services have the same id, so this agrees with equality. Hashing every rule
        # instead compiles each expression they hold (a DeferredPattern hashes as its
        # compiled expression): a statement's possible services, deduplicated, took 5 CPU s.
        return hash(self.id)

    @field_validator("practice_variants")
    @classmethod
    def _only_for_practice(cls, value: Any, info: ValidationInfo) -> Any:
        if value and not info.data.get("practice"):
            raise ValueError(f"'{info.field_name}' only applies to practice services")
        return value

    @field_validator("billing_descriptors")
    @classmethod
    def _descriptors_have_sources(cls, value: tuple[str, ...], info: ValidationInfo) -> Any:
        if value and not info.data.get("descriptor_sources"):
            raise ValueError(
                "name where the descriptors were read in descriptor_sources (a help page "
                "or a public list of billing descriptors)"
            )
        for descriptor in value:
            if len(descriptor.strip()) < 3:
                raise ValueError(f"'{descriptor}' is too short: it would match other charges")
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
            raise ValueError(
                f"'{start_url}' is outside allowed_domains {list(domains)}"
                + _port_exact_advice(start_url, domains)
            )
        return start_url


def _port_exact_advice(start_url: str, domains: Sequence[str]) -> str:
    """For a site on this computer or network: the port-exact entry to write, since a bare
    local address means its default ports only (another program listens on the rest)."""
    host = web_host(start_url)
    if host is None or not is_local_address(canonical_host(host)):
        return ""
    entry = origin_of(start_url)
    if entry in domains:
        return ""
    return f'; a site on this computer is one origin: write "{entry}" in allowed_domains'
