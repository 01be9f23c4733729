"""What a model's tokens cost: the tokens a call used, a price table (per model, per
million tokens) and the sums.

The table lives in the settings (``[prices."claude-sonnet-*"]`` in config.toml),
so a person can correct a price or add a model without a release; the defaults
below are list prices when this was written. Keys are model names or
shell-style patterns; the most specific matching key wins (an exact name over a
pattern, a longer pattern over a shorter one). A model with no price gets no
cost (None), never a guessed one.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class Usage:
    """Tokens one model call used, as the provider counted them.

    ``input_tokens`` is every token of the prompt the model read, whether served
    from the prompt cache or not, so sums stay comparable with runs recorded
    before caching; ``cache_read_tokens`` and ``cache_write_tokens`` say how much
    of it came from, or went into, the provider's cache.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def uncached_input_tokens(self) -> int:
        """Prompt tokens billed at the full input price."""
        return max(0, self.input_tokens - self.cache_read_tokens - self.cache_write_tokens)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


#: Anthropic's multipliers of the input price for cache reads and cache writes (5 minutes).
ANTHROPIC_CACHE_READ = 0.1
ANTHROPIC_CACHE_WRITE = 1.25


class ModelPrice(BaseModel):
    """US dollars per million tokens of one model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    """Prompt tokens not served from the cache."""

    output: float = Field(ge=0)
    """Generated tokens."""

    cache_read: float | None = Field(default=None, ge=0)
    """Prompt tokens read from the cache; the input price when unset."""

    cache_write: float | None = Field(default=None, ge=0)
    """Prompt tokens written to the cache; the input price when unset."""

    def cost(self, usage: Usage) -> float:
        """What ``usage`` costs, in US dollars."""
        read = self.input if self.cache_read is None else self.cache_read
        write = self.input if self.cache_write is None else self.cache_write
        total = (
            usage.uncached_input_tokens * self.input
            + usage.cache_read_tokens * read
            + usage.cache_write_tokens * write
            + usage.output_tokens * self.output
        )
        return total / 1_000_000


def _anthropic(input_price: float, output_price: float) -> ModelPrice:
    return ModelPrice(
        input=input_price,
        output=output_price,
        cache_read=round(input_price * ANTHROPIC_CACHE_READ, 4),
        cache_write=round(input_price * ANTHROPIC_CACHE_WRITE, 4),
    )


#: List prices (US dollars per million tokens); the settings' ``prices`` extend or replace them.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "claude-opus-*": _anthropic(5.0, 25.0),
    "claude-sonnet-*": _anthropic(3.0, 15.0),
    "claude-haiku-*": _anthropic(1.0, 5.0),
    "gpt-4.1*": ModelPrice(input=2.0, output=8.0, cache_read=0.5),
    "gpt-4.1-mini*": ModelPrice(input=0.4, output=1.6, cache_read=0.1),
    "gpt-4o*": ModelPrice(input=2.5, output=10.0, cache_read=1.25),
    "gpt-4o-mini*": ModelPrice(input=0.15, output=0.6, cache_read=0.075),
    "gpt-5*": ModelPrice(input=1.25, output=10.0, cache_read=0.125),
}


def price_for(model: str | None, table: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The price of ``model`` in ``table``: an exact key, else the longest matching pattern."""
    if not model:
        return None
    if model in table:
        return table[model]
    matching = [key for key in table if fnmatch.fnmatchcase(model, key)]
    if not matching:
        return None
    return table[max(matching, key=len)]


def cost_of(usage: Usage, model: str | None, table: Mapping[str, ModelPrice]) -> float | None:
    """What ``usage`` of ``model`` costs at ``table``'s price; None when it has none."""
    price = price_for(model, table)
    return None if price is None else price.cost(usage)


def describe_tokens(
    input_tokens: int | None,
    output_tokens: int | None,
    cache_read_tokens: int | None = None,
    cache_write_tokens: int | None = None,
    cost: float | None = None,
) -> str:
    """``1,234 in (1,000 from cache, 120 written to it), 56 out, $0.0021``, for every front end."""
    text = f"{input_tokens or 0:,} in"
    cache = [
        f"{count:,} {what}"
        for count, what in ((cache_read_tokens, "from cache"), (cache_write_tokens, "cached"))
        if count
    ]
    if cache:
        text += f" ({', '.join(cache)})"
    text += f", {output_tokens or 0:,} out"
    if cost is not None:
        text += f", ${cost:.4f}"
    return text
