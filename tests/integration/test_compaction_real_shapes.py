"""Compaction on pages shaped like the real web, read through the real browser.

Each page (tests/fixtures/real_web_shapes.py) is served on 127.0.0.1 and opened
through the guarded browser ``cancel --url`` uses (Playwright MCP, Chromium, the
egress filter), once for the module; the page the model would read is then
checked: what a canceller never needs collapsed to counted lines, every control
that matters kept with its ref, hidden controls still hidden, every text bounded.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.pilots.compaction import estimate_tokens
from subterminator_tui.pilots.page_view import page_for_model
from subterminator_tui.rules import generic_service
from subterminator_tui.session.browser import open_service_browser
from subterminator_tui.settings import load_settings
from tests.conftest import browser_parts_missing
from tests.fixtures.real_web_shapes import HIDDEN, MUST_KEEP, PAGES
from tests.support.isolation import isolate

pytestmark = pytest.mark.browser


class _Site:
    """The shaped pages on a free loopback port."""

    def __init__(self) -> None:
        bodies = {f"/{name}": build().encode() for name, build in PAGES.items()}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = bodies.get(self.path, b"")
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


async def _read_all(profile: Path) -> dict[str, NormalizedSnapshot]:
    with _Site() as base_url:
        service = generic_service(base_url + "/")
        async with open_service_browser(
            service, load_settings(), headless=True, profile_dir=profile
        ) as opened:
            pages: dict[str, NormalizedSnapshot] = {}
            for name in PAGES:
                answer = await opened.gateway.call(
                    "browser_navigate", {"url": f"{base_url}/{name}"}
                )
                assert answer.snapshot is not None
                pages[name] = answer.snapshot
            return pages


@pytest.fixture(scope="module")
def read(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, NormalizedSnapshot]]:
    """Every shaped page as the browser read it, once for the module, in an isolated home."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with pytest.MonkeyPatch.context() as patch:
        home = tmp_path_factory.mktemp("shapes-home")
        isolate(home, patch)
        yield asyncio.run(_read_all(home / "profile"))


def _line(text: str, marker: str) -> str | None:
    """The line naming ``marker``, the one with a ref when there are several."""
    lines = [line for line in text.splitlines() if marker in line]
    return next((line for line in lines if "[ref=" in line), lines[0] if lines else None)


@pytest.mark.parametrize("name", sorted(MUST_KEEP))
def test_every_control_that_matters_is_kept_with_its_ref(
    read: dict[str, NormalizedSnapshot], name: str
) -> None:
    """Account, subscription, sign-in and cancel controls, fields, dialogs' and focused ones."""
    compact = page_for_model(read[name])
    for marker in MUST_KEEP[name]:
        line = _line(compact, marker)
        assert line is not None and "[ref=" in line, (name, marker, compact)


@pytest.mark.parametrize("name", ["long-article", "footer-farm", "comment-thread", "product-cards"])
def test_a_large_page_compacts_to_a_few_hundred_tokens(
    read: dict[str, NormalizedSnapshot], name: str
) -> None:
    """Pages of thousands of tokens read in at most 400, and say what they left out."""
    snapshot = read[name]
    compact = page_for_model(snapshot)
    assert estimate_tokens(snapshot.content) > 2_000
    assert estimate_tokens(compact) <= 400, compact
    assert "not shown" in compact


def test_an_article_body_is_collapsed_to_a_count(read: dict[str, NormalizedSnapshot]) -> None:
    """80 paragraphs become a handful of lines and a count of the rest."""
    compact = page_for_model(read["long-article"])
    assert compact.count("The committee met again") <= 3
    assert "more paragraph items not shown" in compact or "texts" in compact


def test_a_footer_link_farm_is_counted_not_listed(read: dict[str, NormalizedSnapshot]) -> None:
    """200 footer links are one count; the two that matter stay."""
    compact = page_for_model(read["footer-farm"])
    assert "Footer topic" not in compact
    assert "links not shown" in compact


def test_repeated_cards_and_comments_are_sampled(read: dict[str, NormalizedSnapshot]) -> None:
    """60 product cards and 90 comments keep a few rows and count the rest."""
    cards = page_for_model(read["product-cards"])
    comments = page_for_model(read["comment-thread"])
    assert cards.count("Add to cart") <= 3
    assert comments.count('"Reply"') <= 3


def test_a_dialog_stays_with_everything_in_it(read: dict[str, NormalizedSnapshot]) -> None:
    """An open dialog and its controls are never collapsed."""
    compact = page_for_model(read["product-cards"])
    assert _line(compact, "dialog") is not None
    assert "Stay for 50% off" in compact


@pytest.mark.parametrize("name", sorted(PAGES))
def test_hidden_controls_stay_hidden(read: dict[str, NormalizedSnapshot], name: str) -> None:
    """Controls the page hides (display:none, hidden) never reach the model."""
    compact = page_for_model(read[name])
    for marker in HIDDEN:
        assert marker not in compact


def test_no_single_text_can_blow_up_the_page(read: dict[str, NormalizedSnapshot]) -> None:
    """A 200,000-character title, a 100,000-character heading, a 50,000-character name."""
    snapshot = read["long-texts"]
    assert len(snapshot.title) > 100_000
    compact = page_for_model(snapshot)
    assert estimate_tokens(compact) <= 400, compact[:2000]
    assert "more characters]" in compact
    assert max(len(line) for line in compact.splitlines()) <= 300
