"""The field types every rule model shares: strict models, needles, patterns.

Strict on purpose. A misspelt key (``target_anyy``) or a string where a list belongs
would otherwise be ignored, and an ignored checkpoint is a click nobody was asked
about. Unknown keys, wrong types, invalid regular expressions and empty needles are
all load-time errors.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, ConfigDict, GetCoreSchemaHandler
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from subterminator_tui.rules.kept_expressions import compile_kept
from subterminator_tui.rules.text import mark_inner_dots, normalise_text

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
        pattern = compile_kept(normalise_text(source), re.IGNORECASE)
    except re.error as error:
        raise ValueError(f"invalid regular expression '{source}': {error}") from None
    if pattern.search("") is not None:
        # ``a*`` or ``x|`` matches at position 0 of any text: the rule would always hold.
        raise ValueError(
            f"regular expression '{source}' matches an empty string, so it would match every page"
        )
    return pattern


class DeferredPattern:
    """A rule's regular expression compiled (by :func:`compile_pattern`) the first time it
    is read, for the rules the code builds, never for the ones a person writes.

    The built-in generic rules hold a few hundred large expressions built from every
    language's table; compiling them all takes seconds of CPU, and most processes (listing
    services, starting the server, a run that stops on its first page) read few of them or
    none. Their words were validated when the tables were read, and a unit test compiles
    every one, so nothing a person can get wrong moves to a later moment. It reads like
    the :class:`re.Pattern` it stands for: the same ``pattern`` and ``flags``, the same
    searches, equal to it and hashed like it.

    A ``marked`` expression was built to read text whose full stops inside a date or a
    number are marked (:func:`~subterminator_tui.rules.text.mark_inner_dots`, which is
    far smaller and quicker to compile and run); it marks what it searches.

    ``needs_any`` names characters of which the expression cannot match without one (a
    language's own letters, where every sentence it reads holds one): a text with none of
    them is answered at once, so a page in Latin letters never compiles the expressions
    of the languages written in others. ``needs_one_of`` does the same with words (each
    written as the expression writes it): a page in English never compiles the German
    statements, whose every match holds one of their own words. It may be given as a
    function that finds them, called on the first search (a process that reads no page
    never looks for them either).
    """

    __slots__ = (
        "_compiled",
        "_needed",
        "_needed_words",
        "_needs_one_of",
        "_pattern",
        "marked",
        "needs_any",
        "source",
    )

    def __init__(
        self,
        source: str,
        *,
        marked: bool = False,
        needs_any: str = "",
        needs_one_of: tuple[str, ...] | Callable[[], tuple[str, ...]] = (),
    ) -> None:
        self.source = source
        """The expression as built, before the normaliser (as :func:`compile_pattern` takes it)."""
        self.marked = marked
        """Whether the expression reads text with its inner full stops marked."""
        self.needs_any = needs_any
        """Characters (any case) of which every text the expression matches holds one."""
        self._needs_one_of = needs_one_of
        self._needed: re.Pattern[str] | None = None
        self._needed_words: re.Pattern[str] | None = None
        self._pattern: str | None = None
        self._compiled: re.Pattern[str] | None = None

    @property
    def needs_one_of(self) -> tuple[str, ...]:
        """Expressions of words (any case) of which every text it matches holds one."""
        if callable(self._needs_one_of):
            self._needs_one_of = self._needs_one_of()
        return self._needs_one_of

    def compiled(self) -> re.Pattern[str]:
        """The compiled expression (compiled on the first call; raises ValueError as
        :func:`compile_pattern` does)."""
        if self._compiled is None:
            self._compiled = compile_pattern(self.source)
        return self._compiled

    @property
    def is_compiled(self) -> bool:
        """Whether the expression has been compiled yet."""
        return self._compiled is not None

    @property
    def pattern(self) -> str:
        """The expression as compiled (normalised), without compiling it."""
        if self._pattern is None:
            self._pattern = normalise_text(self.source)
        return self._pattern

    @property
    def flags(self) -> int:
        """The compiled expression's flags."""
        return self.compiled().flags

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """:meth:`re.Pattern.search` on the compiled expression (on ``string`` marked, for a
        ``marked`` one: the same length, so a match's span is the same)."""
        if self.needs_any and not self._holds_a_needed_character(string, pos, endpos):
            return None
        if self.needs_one_of and not self._holds_a_needed_word(string, pos, endpos):
            return None
        return self.compiled().search(
            mark_inner_dots(string) if self.marked else string, pos, endpos
        )

    def _holds_a_needed_character(self, string: str, pos: int, endpos: int) -> bool:
        # One class, case-insensitive as the expression is: it reads the same characters.
        if self._needed is None:
            self._needed = re.compile(f"[{re.escape(self.needs_any)}]", re.IGNORECASE)
        return self._needed.search(string, pos, endpos) is not None

    def _holds_a_needed_word(self, string: str, pos: int, endpos: int) -> bool:
        # Kept once found: every page is read with every rule, and the shared expression
        # of the same words would otherwise be looked up by the whole tuple each time.
        if self._needed_words is None:
            self._needed_words = _words_pattern(self.needs_one_of)
        return self._needed_words.search(string, pos, endpos) is not None

    def __eq__(self, other: object) -> bool:
        # A marked expression reads other text than the same expression unmarked, so the
        # two judge differently and are not equal (the letters it needs change nothing).
        if isinstance(other, DeferredPattern):
            # The same text compiles to the same expression; a differing one may still
            # normalise to it, and then the compiled expressions decide.
            return self.marked == other.marked and (
                self.source == other.source or self.compiled() == other.compiled()
            )
        if isinstance(other, re.Pattern):
            return not self.marked and self.compiled() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.compiled())

    def __repr__(self) -> str:
        marked = ", marked=True" if self.marked else ""
        return f"DeferredPattern({self.source!r}{marked})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validated as itself; serialised as its expression, as pydantic does a re.Pattern."""
        return core_schema.is_instance_schema(
            cls, serialization=core_schema.plain_serializer_function_ser_schema(lambda p: p.pattern)
        )


@functools.cache
def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    # One small expression per set of words (languages' lists repeat across their rules),
    # case-insensitive as the expression they stand before is: it reads the same letters.
    return re.compile("|".join(f"(?:{word})" for word in words), re.IGNORECASE)


#: A rule's regular expression: compiled when loaded, or (built-in rules) when first read.
RulePattern = re.Pattern[str] | DeferredPattern


def _compile_patterns(value: object) -> object:
    """Accept one pattern or a list of them, as users write either."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise PydanticCustomError("pattern_type", "Input should be a string or a list of strings")
    compiled: list[RulePattern] = []
    for item in items:
        if isinstance(item, re.Pattern | DeferredPattern):
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
#: Regular expressions compiled with re.IGNORECASE at load time (the built-in rules' when
#: first read: :class:`DeferredPattern`).
Patterns = Annotated[tuple[RulePattern, ...], BeforeValidator(_compile_patterns)]
NonBlank = Annotated[str, AfterValidator(_reject_blank)]
