"""The field types every rule model shares: strict models, needles, patterns.

Strict on purpose. A misspelt key (``target_anyy``) or a string where a list belongs
would otherwise be ignored, and an ignored checkpoint is a click nobody was asked
about. Unknown keys, wrong types, invalid regular expressions and empty needles are
all load-time errors.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, ConfigDict
from pydantic_core import PydanticCustomError

from subterminator_tui.rules.text import normalise_text

#: Every rule model's configuration: unknown keys refused, no coercion, immutable.
STRICT_MODEL_CONFIG = ConfigDict(
    extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True
)


def as_tuple(value: object) -> object:
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


def compile_optional_pattern(value: object) -> object:
    """A single optional pattern (a playbook step's ``name_regex``)."""
    return compile_pattern(value) if isinstance(value, str) else value


def _reject_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


#: Case-insensitive substrings; any (or, for ``text_all``, every) must be present.
Needles = Annotated[tuple[str, ...], BeforeValidator(as_tuple), AfterValidator(_reject_blank_items)]
#: Regular expressions compiled with re.IGNORECASE at load time.
Patterns = Annotated[tuple[re.Pattern[str], ...], BeforeValidator(_compile_patterns)]
NonBlank = Annotated[str, AfterValidator(_reject_blank)]
