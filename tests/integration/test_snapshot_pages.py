"""Live Playwright MCP answers from every practice page match the captured fixtures.

The walker (tests/fixtures/demoflix_walk.py) drives the real gateway over every
Demoflix page, variants included, once for this module. Each live answer must
normalize with the recorded title and URL and have the recorded structure (the
same sections and the same sequence of element roles and names); refs, boxes and
inline text (the next billing date moves with the calendar) are not compared.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from subterminator_tui.browser.snapshot import (
    NormalizedSnapshot,
    normalize_snapshot,
    split_sections,
)
from tests.conftest import browser_parts_missing, wait_until_no_profile_processes
from tests.fixtures.demoflix_walk import FIXTURES, capture_all
from tests.support.isolation import isolate
from tests.support.run_once import once_per_run

pytestmark = pytest.mark.browser

PAGES = sorted(path.stem for path in FIXTURES.glob("*.md"))
Captured = dict[str, tuple[str, NormalizedSnapshot]]


@pytest.fixture(scope="module")
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Captured, Path]:
    """Every practice page's live raw answer and normalized form, walked once per test run
    (by one worker; the others read its walk: ``tests/support/run_once.py``).

    Module-scoped, so the function-scoped isolated home does not apply yet: the
    same isolation is set up here for the duration of the walk.
    """
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)

    def walk() -> tuple[Captured, Path]:
        workdir = tmp_path_factory.mktemp("walk")
        with pytest.MonkeyPatch.context() as patch:
            home = tmp_path_factory.mktemp("walk-home")
            isolate(home, patch)
            pages = asyncio.run(capture_all(workdir))
        return pages, workdir

    return once_per_run(request, "demoflix-walk", walk)


def portless(text: str) -> str:
    """The practice site's free port replaced by the fixtures' fixed one."""
    return re.sub(r"http://127\.0\.0\.1:\d+", "http://127.0.0.1:8000", text)


def fixture_meta(name: str) -> dict[str, str]:
    """The recorded URL and title of ``name``."""
    data: dict[str, str] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def fixture_raw(name: str) -> str:
    """The recorded raw answer of ``name``."""
    return (FIXTURES / f"{name}.md").read_text(encoding="utf-8")


def structure(snapshot: NormalizedSnapshot) -> list[tuple[int, str, str]]:
    """The tree as (depth, role, name) in document order: no refs, boxes or inline text."""
    return [(element.depth, element.role, element.name) for element in snapshot.elements]


def test_walk_visits_exactly_the_captured_pages(live: tuple[Captured, Path]) -> None:
    """The live walk produces the same set of pages the fixtures hold."""
    pages, _ = live
    assert sorted(pages) == PAGES


@pytest.mark.parametrize("name", PAGES)
def test_live_page_has_the_recorded_title(live: tuple[Captured, Path], name: str) -> None:
    """Each live page normalizes with the title recorded in its .json."""
    pages, _ = live
    assert pages[name][1].title == fixture_meta(name)["title"]


@pytest.mark.parametrize("name", PAGES)
def test_live_page_has_the_recorded_url(live: tuple[Captured, Path], name: str) -> None:
    """Each live page is at the recorded URL (the site's port aside)."""
    pages, _ = live
    assert portless(pages[name][1].url) == fixture_meta(name)["url"]


@pytest.mark.parametrize("name", PAGES)
def test_live_answer_normalizes_again_from_its_raw_text(
    live: tuple[Captured, Path], name: str
) -> None:
    """The raw live answer alone (no gateway state) normalizes to the same page."""
    pages, workdir = live
    raw, snapshot = pages[name]
    again = normalize_snapshot(raw, workdir)
    assert (again.url, again.title, again.content) == (
        snapshot.url,
        snapshot.title,
        snapshot.content,
    )
    assert again.content.strip()


@pytest.mark.parametrize("name", PAGES)
def test_live_answer_has_the_recorded_sections(live: tuple[Captured, Path], name: str) -> None:
    """The raw answer has the same markdown sections as the recorded one."""
    pages, _ = live
    assert list(split_sections(pages[name][0])) == list(split_sections(fixture_raw(name)))


@pytest.mark.parametrize("name", PAGES)
def test_live_tree_has_the_recorded_roles_and_names(live: tuple[Captured, Path], name: str) -> None:
    """The live tree has the recorded roles and names, at the same depths, in the same order."""
    pages, workdir = live
    recorded = normalize_snapshot(fixture_raw(name), workdir)
    assert structure(pages[name][1]) == structure(recorded)


@pytest.mark.parametrize("name", PAGES)
def test_live_links_have_the_recorded_targets(live: tuple[Captured, Path], name: str) -> None:
    """Link targets (``/url``) are the recorded ones, in order."""
    pages, workdir = live
    recorded = normalize_snapshot(fixture_raw(name), workdir)
    assert [portless(e.url or "") for e in pages[name][1].find("link")] == [
        e.url or "" for e in recorded.find("link")
    ]


@pytest.mark.parametrize("name", PAGES)
def test_live_states_are_the_recorded_ones(live: tuple[Captured, Path], name: str) -> None:
    """States such as ``checked`` are the recorded ones, element by element."""
    pages, workdir = live
    recorded = normalize_snapshot(fixture_raw(name), workdir)
    assert [e.states for e in pages[name][1].elements] == [e.states for e in recorded.elements]


def test_walk_leaves_no_browser_behind(live: tuple[Captured, Path]) -> None:
    """No process still uses any of the walk's profiles after it finished."""
    _, workdir = live
    for profile in sorted(workdir.glob("profile-*")):
        assert wait_until_no_profile_processes(profile.resolve()) == [], profile
