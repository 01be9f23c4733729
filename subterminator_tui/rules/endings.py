"""Endings no click can reach: billed by another company, or cancelled only offline.

A subscription bought through Apple, Google Play, Roku, Amazon or a mobile carrier is
cancelled there, and the service's own site says so and offers nothing to click.
Some services take cancellations only by phone, chat or letter. A run that meets such
a page ends at once with its own outcome: ``billed_elsewhere`` names the biller and
its own place to cancel; ``offline_only`` lists the contact details the page shows
and drafts a letter. The billers live in ``generic.toml``, the words in
``words/<language>.toml``; they apply to every service: they describe what any page
says, not one site's flow.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.rules.fields import STRICT_MODEL_CONFIG, compile_pattern
from subterminator_tui.rules.page_rules import PageRule


def _valid_names(value: str) -> str:
    compile_pattern(value)
    return value


def _https_or_empty(value: str) -> str:
    if value and not value.startswith("https://"):
        raise ValueError(f"'{value}' is not an https:// address")
    return value


class BillerRule(PageRule):
    """The page says another company bills the subscription; ``biller`` is who."""

    biller: str
    """The company that bills and cancels it: ``Apple``, ``Google Play``, ``Roku``, ..."""
    cancel_at: Annotated[str, AfterValidator(_https_or_empty)] = ""
    """The biller's own page for cancelling (https), or "" when there is no single one."""
    how: str = ""
    """The biller's own steps, in one sentence, for the person."""
    source: str = ""
    """Where ``cancel_at`` and ``how`` were read (the biller's help page)."""


class BillerEntry(BaseModel):
    """A company that bills for others, as ``generic.toml`` names it (no words of a language).

    Its rule (:class:`BillerRule`) is built for every language: the page holds that
    language's "billed through" phrase with ``names`` in the place of ``{biller}``.
    """

    model_config = STRICT_MODEL_CONFIG

    biller: str
    """The company that bills and cancels it: ``Apple``, ``Google Play``, ``Roku``, ..."""
    names: Annotated[str, AfterValidator(_valid_names)]
    """A regular expression for the company's names on a page (``apple(?!\\s+pay)|itunes``)."""
    cancel_at: Annotated[str, AfterValidator(_https_or_empty)] = ""
    """The biller's own page for cancelling (https), or "" when there is no single one."""
    how: str = ""
    """The biller's own steps, in one sentence, for the person."""
    source: str = ""
    """Where ``cancel_at`` and ``how`` were read (the biller's help page)."""
    why: str = ""
    """Why the ending applies, in words a person reviewing a run understands."""


# Contact details as pages print them: international or national phone numbers,
# e-mail addresses, and a postal address line (a number, a street word, more words).
_PHONE = re.compile(r"(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(?\d{2,5}\)?[\s.-]?){2,5}\d{2,5}(?!\w)")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_ADDRESS = re.compile(
    r"\b\d{1,5}\s+[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*\s+"
    r"(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Lane|Way|Drive|Dr\.?|"
    r"Straße|Strasse|Weg|Platz|rue|avenue|calle)\b[^.;\n]{0,80}"
    # German addresses put the number after the street: "Musterstraße 1, 10115 Berlin".
    r"|\b[A-ZÄÖÜ][\wäöüß-]*(?:straße|strasse|weg|platz|allee)\s+\d+[a-z]?"
    r"(?:,\s*\d{5}\s+[A-ZÄÖÜ][\wäöüß-]+)?",
)
_DIGITS = re.compile(r"\d")
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}")


def contact_details(text: str) -> tuple[str, ...]:
    """The phone numbers, e-mail and postal addresses in ``text``, in page order, once each."""
    found: list[tuple[int, str]] = []
    for match in _EMAIL.finditer(text):
        found.append((match.start(), match.group().strip()))
    for match in _ADDRESS.finditer(text):
        found.append((match.start(), match.group().strip().rstrip(",")))
    for match in _PHONE.finditer(text):
        number = match.group().strip()
        # A date, a price or a year is not a phone number: at least seven digits, no date.
        if (
            len(_DIGITS.findall(number)) >= 7
            and not _DATE.fullmatch(number)
            and not _inside(match.start(), found)
        ):
            found.append((match.start(), number))
    seen: list[str] = []
    for _start, found_value in sorted(found):
        # Page text is shown on terminals: no control character (escape sequences) survives.
        value = "".join(char for char in found_value if char.isprintable()).strip()
        if value and value not in seen:
            seen.append(value)
    return tuple(seen)


def _inside(position: int, found: list[tuple[int, str]]) -> bool:
    return any(start <= position < start + len(value) for start, value in found)


def cancellation_letter(service_name: str, snapshot: NormalizedSnapshot) -> str:
    """A letter that cancels the subscription, ready to sign and send."""
    account = _ACCOUNT_NUMBER.search(snapshot.visible_text)
    reference = f"Membership or account number: {account.group(1)}\n" if account else ""
    return (
        f"To: {service_name} customer service\n"
        "Date: [date]\n\n"
        f"Subject: Cancellation of my {service_name} subscription\n\n"
        "Dear Sir or Madam,\n\n"
        f"I hereby cancel my {service_name} subscription with effect from the earliest "
        "possible date, and I withdraw any authorisation to charge my payment method after "
        "that date. Please confirm the cancellation and its effective date to me in writing.\n\n"
        f"Name: [your name]\nE-mail address of the account: [your e-mail]\n{reference}\n"
        "Yours faithfully,\n[your name]\n"
    )


_ACCOUNT_NUMBER = re.compile(
    r"\b(?:membership|account|customer|member)\s+(?:number|no\.?|id)\s*:?\s*([A-Z0-9][\w-]{3,30})",
    re.IGNORECASE,
)
