"""The header: service, pilot or model, turn n/max, elapsed time, tokens so far and cost."""

from __future__ import annotations

from time import monotonic

from textual.reactive import reactive
from textual.widgets import Static


def format_elapsed(seconds: float) -> str:
    """``mm:ss`` (``h:mm:ss`` past an hour)."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class RunHeader(Static):
    """One line at the top of the app."""

    service = reactive("")
    driver = reactive("")
    turn = reactive(0)
    max_turns = reactive(0)
    tokens = reactive(0)
    #: Of ``tokens``, prompt tokens the provider served from its cache.
    cached_tokens = reactive(0)
    #: The run's cost in US dollars once known (None: not yet, or no price for the model).
    cost: reactive[float | None] = reactive(None)
    elapsed = reactive(0.0)
    state = reactive("starting")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._started: float | None = None
        self._stopped: float | None = None

    def on_mount(self) -> None:
        """Tick once a second for the elapsed time."""
        self.set_interval(1.0, self._tick)

    def start_clock(self) -> None:
        """The run began."""
        self._started = monotonic()

    def stop_clock(self) -> None:
        """The run ended: the elapsed time freezes."""
        self._stopped = monotonic()
        self._tick()

    def _tick(self) -> None:
        if self._started is not None:
            self.elapsed = (self._stopped or monotonic()) - self._started

    def render(self) -> str:
        """The header text: status and turn first, then whatever else fits the width."""
        # In order of importance: a narrow terminal drops from the end, never the status.
        parts = [
            "[b]SubTerminator[/b]",
            self.state,
            f"turn {self.turn}/{self.max_turns}" if self.max_turns else "turn -",
            self.service or "…",
            format_elapsed(self.elapsed),
            self.driver or "…",
            self._tokens_text(),
        ]
        width = self.size.width - 2 if self.size.width else 10_000
        while len(parts) > 3 and _visible_length(parts) > width:
            parts.pop()
        return "  ·  ".join(parts)

    def _tokens_text(self) -> str:
        text = f"{self.tokens:,} tokens"
        if self.cached_tokens and self.tokens:
            text += f" ({self.cached_tokens / self.tokens:.0%} cached)"
        if self.cost is not None:
            text += f"  ${self.cost:.4f}"
        return text


def _visible_length(parts: list[str]) -> int:
    """The header's length on screen (markup excluded)."""
    return sum(len(part.replace("[b]", "").replace("[/b]", "")) for part in parts) + 5 * (
        len(parts) - 1
    )
