"""Money is a built-in checkpoint, whatever the button is called and in any language.

A retention page does not have to say "pay": "Continue" under "$14.97 today",
"Keep my benefits" under "annual plan, $99 billed today", "Take a break for 1
month ($2.99)" all spend the person's money. So the guard asks before any call
whose target, chosen option or region (its form, dialog, card, list item) shows
an amount of money together with a charge or a plan change, and before any key
on a page whose open dialog does.

An *amount* is a currency sign (every Unicode currency symbol, and the signs
written as letters: ``kr``, ``zł``, ``R$``, ``円``...) or an ISO 4217 code next to
a number in any locale's format (``$14.97``, ``14,97 €``, ``1.299,00 EUR``,
``¥1,200``, ``1 200 kr``). An amount *in the target itself* or in the chosen
option always asks: a control that names a price is a purchase. An amount in the
region asks only with a charge or plan-change word beside it ("today", "billed",
"annual", "offer", "stay on", "free ... then", "heute", "facturé", "請求" ...), so an
account page's "Premium plan · $22.99/month" beside "Cancel membership" does not; nor
does a control that plainly declines or closes ("No thanks", "Continue to cancel",
"Close"). A saving beside a plan word or a tier ("Upgrade to annual and save 20%")
asks with no amount at all. The region is what the browser reports: the control's
card, dialog, list item or form, with the headers above it and the page's main heading.
Every word comes from the language tables (``money.*``); the currency signs written
with letters come from CLDR (Babel) for every locale of those languages.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import tomllib
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from subterminator_tui.rules.kept_expressions import compile_kept
from subterminator_tui.rules.language_words import languages
from subterminator_tui.rules.sentences import every_language, longest_first
from subterminator_tui.rules.text import normalise_text

_ISO_CODES_TEXT = (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN "
    "BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD "
    "FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY "
    "KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP "
    "MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR "
    "RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SYP SZL THB TJS TMT TND "
    "TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XOF XPF YER ZAR ZMW ZWL"
)
# Currencies written with letters or ideographs rather than a symbol of category Sc,
# besides the ones CLDR gives (see _cldr_signs).
_WORD_SIGNS = (
    *("R$", "kr", "zł", "Kč", "Ft", "lei", "лв", "Rs", "Rp", "RM", "CHF", "Fr."),
    *("円", "元", "원"),
)
#: CLDR signs that are also ordinary words before a number ("den 12." is a Danish date).
_NOT_SIGNS = frozenset({"den", "din", "Le", "DA", "UM", "FC", "KM", "SR", "LS", "VT"})


#: The currency signs CLDR writes and the characters Unicode calls currency symbols, saved
#: beside this module: computing them reads every locale's data file, about a third of a
#: CPU second in every process that reads an amount. ``test_rules_money`` checks the file
#: against the computation; ``python -m subterminator_tui.rules.money`` writes it again.
SIGNS_FILE = Path(__file__).with_name("currency_signs.toml")


@functools.cache
def _saved_signs() -> dict[str, Any]:
    return tomllib.loads(SIGNS_FILE.read_text(encoding="utf-8"))


def _cldr_signs() -> tuple[str, ...]:
    """The currency signs written with letters (:func:`computed_cldr_signs`), as saved."""
    return tuple(_saved_signs()["cldr_signs"])


@functools.cache
def _currency_symbols() -> str:
    """Every currency symbol Unicode knows (category Sc), as saved, escaped for a class."""
    return "".join(re.escape(char) for char in _saved_signs()["currency_symbols"])


def computed_cldr_signs() -> list[str]:
    """Every currency sign CLDR writes in the languages the rules know, in every region's
    locale (``R$``, ``zł``, ``₹``, ``Rp``, ``HK$``, ``ر.س.``...), as a page shows them:
    longest first, so a longer sign is tried before one it begins with."""
    # Imported here: only writing or checking the saved file reads CLDR.
    from babel import Locale, localedata

    tags = {tag.split("-")[0] for tag in languages()}
    signs: set[str] = set(_WORD_SIGNS)
    for identifier in localedata.locale_identifiers():
        if identifier.split("_")[0] not in tags:
            continue
        for sign in Locale.parse(identifier).currency_symbols.values():
            plain = normalise_text(sign).strip()
            # A bare Latin word ("Le", "den") is too often an ordinary word beside a number.
            # A sign holding a symbol ("US$", "CA$") is found by the symbol itself.
            if any(unicodedata.category(char) == "Sc" for char in plain):
                continue
            if plain and plain not in _NOT_SIGNS and not (plain.isascii() and plain.isalpha()):
                signs.add(plain)
    return longest_first(signs)


def computed_currency_symbols() -> str:
    """Every character of Unicode's category Sc, in code point order."""
    return "".join(
        chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Sc"
    )


def write_signs_file(path: Path = SIGNS_FILE) -> None:
    """Compute the signs and save them to ``path`` (JSON strings are TOML strings)."""
    lines = [
        "# Written by `python -m subterminator_tui.rules.money` from CLDR (Babel's data) and",
        "# Unicode (Python's unicodedata); test_rules_money checks it still agrees. Do not edit.",
        f"currency_symbols = {json.dumps(computed_currency_symbols(), ensure_ascii=False)}",
        "cldr_signs = [",
        *(f"    {json.dumps(sign, ensure_ascii=False)}," for sign in computed_cldr_signs()),
        "]",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# A number as any locale writes it: 14.97, 14,97, 1,299.00, 1.299,00, 1 200, 1'200, 99.
_NUMBER = r"\d{1,3}(?:[.,' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"


@functools.cache
def _amount() -> re.Pattern[str]:
    symbol = f"[{_currency_symbols()}]"
    words = "|".join([*(re.escape(word) for word in _cldr_signs()), *_ISO_CODES_TEXT.split()])
    # The sign before (US$14.97, € 5, EUR 9) or after (14,97 €, 1 200 kr, 1,200円) the
    # number; a code or a word sign stands alone ("EUR", not the end of "NEURO").
    before = rf"(?:{symbol}|(?<![A-Za-z])(?:{words}))\s?(?:{_NUMBER})(?!\d)"
    after = rf"(?<![\d.,])(?:{_NUMBER})\s?(?:{symbol}|(?:{words})(?![A-Za-z]))"
    return compile_kept(f"{before}|{after}")


@functools.cache
def _change() -> re.Pattern[str]:
    """Words that say money moves now, that the plan changes, or that a free period ends."""
    return _every("money.charge", "money.plan", "money.free_then")


@functools.cache
def _plan() -> re.Pattern[str]:
    """A plan change, or a tier: beside a saving either is an offer to spend."""
    return _every("money.plan", "money.tier")


@functools.cache
def _saving() -> re.Pattern[str]:
    return _every("money.saving")


@functools.cache
def _decline() -> re.Pattern[str]:
    """A control that plainly turns the offer down: the way on, not the purchase."""
    return compile_kept(rf"^\s*(?:{every_language('money.decline')})", re.IGNORECASE)


@functools.cache
def _every(*picks: str) -> re.Pattern[str]:
    return compile_kept("|".join(every_language(pick) for pick in picks), re.IGNORECASE)


def shows_amount(text: str) -> str | None:
    """The first amount of money in ``text`` (as the page wrote it, normalised), or None."""
    match = _amount().search(normalise_text(text))
    return match.group(0) if match else None


def shows_charge(text: str) -> str | None:
    """An amount of money beside a charge or plan-change word in ``text``, or None; or a
    saving beside a plan word ("Upgrade to annual and save 20%"), which needs no amount."""
    normal = normalise_text(text)
    amount = shows_amount(normal)
    if amount is not None and _change().search(normal):
        return amount
    saving = _saving().search(normal)
    if saving is not None and _plan().search(normal):
        return saving.group(0)
    return None


def money_in_fields(pairs: Iterable[tuple[str, str]], words: Iterable[str]) -> str | None:
    """An amount of money a request carries beside a charge or plan-change word, or None.

    ``pairs`` are the request's fields as ``(name words, value)``, ``words`` everything
    else it says (its path, field names, enumerated values). The amount is a value that
    reads as one (``€9.99``, ``9,99 EUR``) or a number in a field named for money
    (``amount``, ``price``, ``Betrag``...), with the currency another field names. No
    field can talk it out of asking: a page writes "declined" into a request as easily
    as "annual", and only the service knows which it obeys.
    """
    fields = list(pairs)
    currency = next(
        (
            value.strip()
            for name, value in fields
            if _every("money.currency_field").search(name) and 0 < len(value.strip()) <= 4
        ),
        "",
    )
    amount: str | None = None
    for name, value in fields:
        amount = shows_amount(value)
        named = _every("money.amount_field").search(name)
        if amount is None and named and _NUMERIC.fullmatch(value.strip()):
            amount = f"{currency} {value.strip()}".strip()
        if amount is not None:
            break
    if amount is None:
        return None
    said = normalise_text(" ".join([*words, *(f"{name} {value}" for name, value in fields)]))
    change = _change().search(said)
    if change is None:
        return None
    return f"{amount} with '{change.group(0)}'"


_NUMERIC = re.compile(rf"-?(?:{_NUMBER})")


def declines(labels: Iterable[str]) -> bool:
    """Whether a control's labels plainly turn an offer down ("No thanks", "Continue to cancel")."""
    return any(_decline().search(normalise_text(label)) for label in labels if label)


def money_shown(labels: Sequence[str], region: str = "") -> str | None:
    """Why a control moves money, or None: an amount on the control itself, else a charge
    in its region (form, dialog, card, list item) unless the control plainly declines."""
    for label in labels:
        amount = shows_amount(label)
        if amount is not None:
            return f"it reads {amount}"
    charge = shows_charge(region) if region else None
    if charge is not None and not declines(labels):
        return f"the part of the page it belongs to shows {charge} with a charge or plan change"
    return None


if __name__ == "__main__":
    write_signs_file()
