"""The header's token count: the share the provider served from its cache, and the cost."""

from __future__ import annotations

from textual.app import App, ComposeResult

from subterminator_tui.tui.widgets.run_header import RunHeader


class _HeaderOnly(App[None]):
    def compose(self) -> ComposeResult:
        yield RunHeader()


async def test_the_header_shows_the_cached_share_and_the_cost_once_known() -> None:
    """Tokens, the part read from the cache, and the run's cost when it has a price."""
    # Wide enough for every field: a narrow header drops tokens first (status stays).
    async with _HeaderOnly().run_test(size=(160, 10)) as pilot:
        header = pilot.app.query_one(RunHeader)
        header.tokens, header.cached_tokens, header.cost = 2_000, 1_500, 0.0123
        assert "2,000 tokens (75% cached)  $0.0123" in header.render()
        header.cached_tokens, header.cost = 0, None
        shown = header.render()
        assert "2,000 tokens" in shown and "cached" not in shown and "$" not in shown
