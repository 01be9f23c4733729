"""Who a statement line paid: the merchant's name behind a bank's descriptor.

"NETFLIX.COM 866-579-7172 CA" is Netflix; "PAYPAL *SPOTIFY" is Spotify paid through
PayPal; "GOOGLE *YouTube" is YouTube billed by Google; "APPLE.COM/BILL" is something
Apple bills. The prefixes and who they stand for are data (``intermediaries.toml``),
validated here by a strict model like every other table of words.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator

from subterminator_tui.rules.fields import STRICT_MODEL_CONFIG, NonBlank, as_tuple


def _compile_all(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern) for pattern in patterns)


Regexes = Annotated[
    tuple[re.Pattern[str], ...], BeforeValidator(as_tuple), AfterValidator(_compile_all)
]


class Biller(BaseModel):
    """A company that sells the subscription itself and is where it is cancelled."""

    model_config = STRICT_MODEL_CONFIG

    name: NonBlank
    """Shown to the person: ``Apple``, ``Google Play``, ``Amazon``."""
    ending: NonBlank
    """The ``biller`` of the billed_elsewhere ending (generic.toml) that says how to cancel."""
    patterns: Annotated[tuple[str, ...], BeforeValidator(as_tuple)]
    """How its lines start; a ``merchant`` group is the app or channel it sold."""
    source: NonBlank
    """Where the descriptor was read."""
    own_services: Annotated[tuple[str, ...], BeforeValidator(as_tuple)] = ()
    """The biller's own services under the same prefix: billed directly, not elsewhere."""
    one_line_for_all: bool = False
    """Every subscription it bills reads the same (APPLE.COM/BILL): the line cannot say
    which service it is."""


class Payer(BaseModel):
    """A wallet that only paid: the service cancels, the wallet can stop paying."""

    model_config = STRICT_MODEL_CONFIG

    name: NonBlank
    """Shown to the person: ``PayPal``."""
    patterns: Annotated[tuple[str, ...], BeforeValidator(as_tuple)]
    """How its lines start; the ``merchant`` group is who was paid."""
    source: NonBlank
    """Where the descriptor was read."""
    cancel_at: NonBlank
    """The wallet's own page of automatic payments."""
    how: NonBlank
    """The steps, in one sentence."""
    how_source: NonBlank
    """Where the steps were read."""


class Prefixes(BaseModel):
    """Text before the merchant's name that names no one the person deals with."""

    model_config = STRICT_MODEL_CONFIG

    patterns: Annotated[tuple[str, ...], BeforeValidator(as_tuple)]
    """Regular expressions anchored at the start of the descriptor."""
    source: str = ""
    """Where they were read, when they came from a list."""


class Intermediaries(BaseModel):
    """``intermediaries.toml``: billers, payers, processors and bank prefixes."""

    model_config = STRICT_MODEL_CONFIG

    biller: Annotated[tuple[Biller, ...], BeforeValidator(as_tuple)]
    """Apple, Google Play, Amazon."""
    payer: Annotated[tuple[Payer, ...], BeforeValidator(as_tuple)]
    """PayPal."""
    processor: Annotated[tuple[Prefixes, ...], BeforeValidator(as_tuple)]
    """Square, Toast, Paddle, ..."""
    bank_prefix: Annotated[tuple[Prefixes, ...], BeforeValidator(as_tuple)]
    """POS, CHECKCARD 0312, SEPA-LASTSCHRIFT, ..."""


@functools.cache
def intermediaries() -> Intermediaries:
    """The bundled table, read and validated once."""
    text = resources.files(__package__).joinpath("intermediaries.toml").read_text("utf-8")
    return Intermediaries.model_validate(tomllib.loads(text))


@dataclass(frozen=True, slots=True)
class Merchant:
    """Who a descriptor paid, and through whom."""

    name: str
    """A readable name: ``Netflix``, ``Spotify``, ``YouTube``; ``Apple`` when Apple says no more."""
    key: str
    """What charges of one merchant share (letters and digits of its first words)."""
    text: str
    """The descriptor upper-cased, spaces collapsed, prefixes kept: what catalog
    descriptors are matched against."""
    merchant_text: str
    """The part after any biller, payer, processor or bank prefix: who was paid."""
    biller: str = ""
    """The billed_elsewhere ending's biller (``Apple``) when another company bills it."""
    biller_name: str = ""
    """The biller as shown (``Google Play``)."""
    payer: str = ""
    """``PayPal`` when a wallet paid it."""
    domain: str = ""
    """A web address in the descriptor (``netflix.com``), when there is one."""


_SPACES = re.compile(r"\s+")
_PHONE = re.compile(r"(?<!\w)(?:\+?1[-. ]?)?\(?\d{3}\)?[-. ]?\d{3}[-. ]?\d{4}(?!\w)")
_DOMAIN = re.compile(
    r"\b(?:WWW\.)?([A-Z0-9][A-Z0-9-]*(?:\.[A-Z0-9-]+)*\.(?:COM|NET|ORG|IO|CO|TV|US|APP|FM|AI|ME|DE|FR|ES|UK|INFO))\b"
)
_REFERENCE = re.compile(
    r"(?:\*|#|\bREF\b:?)\s*(?=[A-Z]*\d)[A-Z0-9]{4,}\b|\b(?=[A-Z]*\d)[A-Z0-9]{6,}\b|\b\d{3,}\b"
)
_DATE_IN_TEXT = re.compile(r"\b\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\b")
# A US state or a country code at the end of a card line ("LOS GATOS CA"), never the
# whole name.
_TRAILING_REGION = re.compile(r"\s+(?:[A-Z]{2}|USA|GBR|DEU|FRA|ESP|IRL|NLD|LUX)$")
_NOISE_WORDS = frozenset(
    {
        "INC",
        "LLC",
        "LTD",
        "GMBH",
        "SARL",
        "SA",
        "BV",
        "CO",
        "CORP",
        "THE",
        "BILL",
        "PAYMENT",
        "SUBSCRIPTION",
        "MEMBERSHIP",
        "RECURRING",
        "ONLINE",
        "WWW",
        "HTTPS",
        "HTTP",
        "COM",
    }
)


_UNKNOWN = "Unknown"


def normalise_descriptor(descriptor: str) -> str:
    """Upper-case, spaces collapsed: the form descriptors are compared in."""
    return _SPACES.sub(" ", descriptor.upper()).strip()


def name_merchant(descriptor: str) -> Merchant:
    """Who ``descriptor`` paid, with its biller or payer when the line names one."""
    table = intermediaries()
    text = normalise_descriptor(descriptor)
    rest = _strip_prefixes(text, table.bank_prefix)
    biller = biller_name = payer = ""
    for entry in table.biller:
        match = _first_match(entry.patterns, rest)
        if match is None:
            continue
        named = (match.groupdict().get("merchant") or "").strip()
        if named and any(named.startswith(own) for own in entry.own_services):
            rest = named
            break
        biller, biller_name = entry.ending, entry.name
        if not named or _readable_name(named, "") == _UNKNOWN:
            # "Amazon Channels*2K4LZ0AB3": only an order reference follows the star.
            named = rest.split("*")[0].strip() or entry.name.upper()
        rest = named
        break
    else:
        for wallet in table.payer:
            match = _first_match(wallet.patterns, rest)
            if match is not None:
                payer = wallet.name
                rest = (match.groupdict().get("merchant") or "").strip() or wallet.name.upper()
                break
    rest = _strip_prefixes(rest, table.processor)
    domain_match = _DOMAIN.search(rest)
    domain = domain_match.group(1).lower() if domain_match else ""
    name = _readable_name(rest, domain)
    return Merchant(
        name=name,
        key=_merchant_key(name, biller_name),
        text=text,
        merchant_text=rest,
        biller=biller,
        biller_name=biller_name,
        payer=payer,
        domain=domain,
    )


def _first_match(patterns: tuple[str, ...], text: str) -> re.Match[str] | None:
    for pattern in _compiled(patterns):
        match = pattern.search(text)
        if match is not None:
            return match
    return None


@functools.cache
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern) for pattern in patterns)


def _strip_prefixes(text: str, groups: tuple[Prefixes, ...]) -> str:
    for group in groups:
        for pattern in _compiled(group.patterns):
            stripped = pattern.sub("", text, count=1).strip()
            if stripped and stripped != text:
                return stripped
    return text


def _readable_name(text: str, domain: str) -> str:
    """The merchant's words without phone numbers, references, places and web dressing."""
    words = text
    if domain:
        # "NETFLIX.COM" names Netflix: the address's first label is the brand.
        brand = domain.removeprefix("www.").split(".")[0]
        words = words.replace(domain.upper(), brand.upper()).replace("WWW.", "")
    words = _PHONE.sub(" ", words)
    words = _DATE_IN_TEXT.sub(" ", words)
    words = _REFERENCE.sub(" ", words)
    words = re.sub(r"[^A-Z0-9&+' ]", " ", words.replace("/", " "))
    words = _SPACES.sub(" ", words).strip()
    while _TRAILING_REGION.search(words) and len(words.split()) > 1:
        words = _TRAILING_REGION.sub("", words)
    kept = [word for word in words.split() if word not in _NOISE_WORDS]
    if not kept:
        kept = words.split()[:1]
    if not kept:
        return _UNKNOWN
    return " ".join(
        word if any(c.isdigit() for c in word) else word.capitalize() for word in kept[:3]
    )


def _merchant_key(name: str, biller_name: str) -> str:
    first = re.sub(r"[^A-Z0-9]", "", name.upper().split(" ")[0]) if name else ""
    return f"{biller_name.upper()}:{first}" if biller_name else first
