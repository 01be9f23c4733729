"""Compaction on real saved web pages, read through the real browser (not a test).

    .venv/bin/python benchmarks/compaction_corpus.py CORPUS_DIR [--seed 23] [--limit N]
        [--json results.json]

CORPUS_DIR holds saved pages (``*.html``) and a ``manifest.json`` naming where
each came from; the pages are not part of the repository (they belong to their
sites). Each page is served on 127.0.0.1 with its scripts removed and, at random
places (seeded), controls planted into it: visible ones a canceller needs (a
"Manage subscription" link, a "Cancel subscription" button, an account-settings
link, in one of four languages, and a checkbox) and hidden ones (``display:
none``, ``hidden``, ``visibility: hidden``, inline and ``!important`` so no page style
can show them) that must stay hidden. Every page is
opened through the same guarded browser ``cancel --url`` and ``serve
--any-site`` use (Playwright MCP, Chromium, the egress filter) and measured as
the model would read it: compact tokens (four characters a token), the full
tree's tokens, the planted visible controls kept with their refs (among those
the full tree has: a page's own styles may hide where one landed), hidden ones
surfaced, and pages that could not be read.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from subterminator_tui.errors import SubTerminatorError  # noqa: E402
from subterminator_tui.pilots.compaction import estimate_tokens  # noqa: E402
from subterminator_tui.pilots.page_view import NAIVE_VIEW, page_for_model  # noqa: E402
from subterminator_tui.rules import generic_service  # noqa: E402
from subterminator_tui.serve.agent_answer import COMPACT_PAGE  # noqa: E402
from subterminator_tui.session.browser import open_service_browser  # noqa: E402
from subterminator_tui.settings import load_settings  # noqa: E402

#: (manage link, cancel button, account link) in four languages; entities keep any charset.
LANGUAGES = (
    ("Manage subscription", "Cancel subscription", "Account settings"),
    ("Abonnement verwalten", "Abo k&uuml;ndigen", "Kontoeinstellungen"),
    (
        "G&eacute;rer l&#39;abonnement",
        "R&eacute;silier l&#39;abonnement",
        "Param&egrave;tres du compte",
    ),
    (
        "Administrar suscripci&oacute;n",
        "Cancelar suscripci&oacute;n",
        "Configuraci&oacute;n de la cuenta",
    ),
)
_SCRIPT = re.compile(rb"<script\b.*?</script\s*>", re.IGNORECASE | re.DOTALL)
_SPOTS = re.compile(rb"<(?:p|div|li|section|article|span|h[1-6]|ul|table)\b", re.IGNORECASE)
_BODY = re.compile(rb"<body\b[^>]*>", re.IGNORECASE)
#: A page's own controls: a control planted inside one is not where it seems. HTML's
#: parser closes an open <button> before a planted one (and the hidden <div> around
#: it with it), so a control meant to be hidden would really be on screen.
_CONTROL_TAG = re.compile(rb"<(/?)(?:button|a|select|label|textarea)\b", re.IGNORECASE)


def _spots(page: bytes, start: int) -> list[int]:
    """Tag starts after ``start`` where a control can go: outside the page's own controls."""
    events = [(m.start(), 0, m) for m in _SPOTS.finditer(page, start)]
    events += [(m.start(), 1, m) for m in _CONTROL_TAG.finditer(page, start)]
    depth = 0
    found: list[int] = []
    for position, kind, match in sorted(events, key=lambda event: event[:2]):
        if kind == 1:
            depth = max(0, depth - 1) if match[1] else depth + 1
        elif depth == 0:
            found.append(position)
    return found


@dataclass
class Planted:
    """One planted control: its marker (part of its name), whether it is visible, its kind."""

    marker: str
    visible: bool
    kind: str


@dataclass
class PageResult:
    """What one page measured."""

    file: str
    readable: bool
    error: str = ""
    compact_tokens: int = 0
    full_tokens: int = 0
    compaction_ms: float = 0.0
    in_tree: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    hidden_surfaced: list[str] = field(default_factory=list)


def plant(page: bytes, rng: random.Random, number: int) -> tuple[bytes, list[Planted]]:
    """``page`` without scripts and with the planted controls at random places."""
    page = _SCRIPT.sub(b"", page)
    manage, cancel, account = rng.choice(LANGUAGES)
    tag = f"p{number}"
    controls = [
        (f'<a href="/manage-{tag}">{manage} V1{tag}</a>', Planted(f"V1{tag}", True, "link")),
        (f'<button type="button">{cancel} V2{tag}</button>', Planted(f"V2{tag}", True, "button")),
        (f'<a href="/account-{tag}">{account} V3{tag}</a>', Planted(f"V3{tag}", True, "link")),
        (
            f'<label><input type="checkbox"> I understand V4{tag}</label>',
            Planted(f"V4{tag}", True, "checkbox"),
        ),
        (
            f'<button type="button" style="display:none !important">{cancel} H1{tag}</button>',
            Planted(f"H1{tag}", False, "button"),
        ),
        (
            f'<a href="/billing-{tag}" hidden style="display:none !important">{manage} H2{tag}</a>',
            Planted(f"H2{tag}", False, "link"),
        ),
        (
            f'<div style="visibility:hidden !important"><button>{cancel} H3{tag}</button></div>',
            Planted(f"H3{tag}", False, "button"),
        ),
    ]
    body = _BODY.search(page)
    start = body.end() if body else 0
    spots = _spots(page, start) or [start]
    placed = sorted(((rng.choice(spots), snippet) for snippet, _ in controls), reverse=True)
    for position, snippet in placed:
        page = page[:position] + snippet.encode() + page[position:]
    return page, [planted for _, planted in controls]


class CorpusSite:
    """The planted pages on 127.0.0.1, by path."""

    def __init__(self, pages: dict[str, bytes]) -> None:
        self.pages = pages
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = owner.pages.get(self.path.split("?", 1)[0])
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> CorpusSite:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _control_line(text: str, control: Planted) -> str | None:
    """The line of the planted control itself (not a container whose name includes it)."""
    shape = re.compile(rf'- {control.kind} "[^"\n]*{control.marker}')
    return next((line for line in text.splitlines() if shape.search(line)), None)


def planted_corpus(
    corpus: Path, seed: int, limit: int | None
) -> tuple[dict[str, bytes], dict[str, list[Planted]]]:
    """The corpus's pages by path, planted, and what was planted in each."""
    files = sorted(corpus.glob("*.html"))[:limit]
    rng = random.Random(seed)
    pages: dict[str, bytes] = {}
    planted: dict[str, list[Planted]] = {}
    for number, path in enumerate(files):
        pages[f"/{path.name}"], planted[path.name] = plant(path.read_bytes(), rng, number)
    return pages, planted


async def measure(pages: dict[str, bytes], planted: dict[str, list[Planted]]) -> list[PageResult]:
    """Every planted page read through the guarded browser and compacted."""
    files = [path.lstrip("/") for path in pages]
    results: list[PageResult] = []
    with CorpusSite(pages) as site, tempfile.TemporaryDirectory() as profile:
        service = generic_service(site.base_url + "/")
        async with open_service_browser(
            service, load_settings(), headless=True, profile_dir=Path(profile)
        ) as opened:
            for name in files:
                result = PageResult(name, readable=False)
                results.append(result)
                try:
                    answer = await opened.gateway.call(
                        "browser_navigate", {"url": f"{site.base_url}/{name}"}
                    )
                except SubTerminatorError as error:
                    result.error = str(error)[:200]
                    continue
                snapshot = answer.snapshot
                if snapshot is None:
                    result.error = "no page in the answer"
                    continue
                result.readable = True
                started = time.perf_counter()
                # The page as serve --any-site answers an agent with it.
                compact = page_for_model(snapshot, COMPACT_PAGE)
                result.compaction_ms = (time.perf_counter() - started) * 1000
                result.compact_tokens = estimate_tokens(compact)
                result.full_tokens = estimate_tokens(page_for_model(snapshot, NAIVE_VIEW))
                for control in planted[name]:
                    full_line = _control_line(snapshot.content, control)
                    compact_line = _control_line(compact, control)
                    if not control.visible:
                        if control.marker in compact or control.marker in snapshot.content:
                            result.hidden_surfaced.append(control.marker)
                        continue
                    if full_line is None or "[ref=" not in full_line:
                        continue
                    result.in_tree.append(control.marker)
                    if compact_line is not None and "[ref=" in compact_line:
                        result.kept.append(control.marker)
                    else:
                        result.lost.append(control.marker)
    return results


def summary(results: list[PageResult]) -> dict[str, Any]:
    """The corpus figures."""
    readable = [r for r in results if r.readable]
    compact = [r.compact_tokens for r in readable]
    full = [r.full_tokens for r in readable]
    in_tree = sum(len(r.in_tree) for r in readable)
    kept = sum(len(r.kept) for r in readable)
    return {
        "pages": len(results),
        "unreadable": len(results) - len(readable),
        "compact_median_tokens": statistics.median(compact) if compact else 0,
        "compact_max_tokens": max(compact, default=0),
        "pages_over_600": sum(1 for value in compact if value > 600),
        "full_median_tokens": statistics.median(full) if full else 0,
        "full_max_tokens": max(full, default=0),
        "ratio_median": statistics.median(f / c for f, c in zip(full, compact, strict=True) if c)
        if compact
        else 0,
        "planted_visible_in_tree": in_tree,
        "planted_visible_kept": kept,
        "planted_visible_kept_share": kept / in_tree if in_tree else 1.0,
        "hidden_surfaced": sum(len(r.hidden_surfaced) for r in readable),
        "compaction_ms_median": statistics.median(r.compaction_ms for r in readable)
        if readable
        else 0,
        "compaction_ms_max": max((r.compaction_ms for r in readable), default=0),
    }


def main() -> int:
    """Measure the corpus, print the figures, optionally write them as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="folder of saved pages with manifest.json")
    parser.add_argument("--seed", type=int, default=23, help="where the controls are planted")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"{args.corpus} is not a folder of saved pages.", file=sys.stderr)
        return 2
    results = asyncio.run(measure(*planted_corpus(args.corpus, args.seed, args.limit)))
    figures = summary(results)
    for key, value in figures.items():
        print(f"{key:30} {value:,.3f}" if isinstance(value, float) else f"{key:30} {value:,}")
    for result in results:
        if not result.readable:
            print(f"unreadable: {result.file}: {html.escape(result.error)}")
        if result.lost:
            print(f"lost on {result.file}: {', '.join(result.lost)}")
        if result.hidden_surfaced:
            print(f"hidden surfaced on {result.file}: {', '.join(result.hidden_surfaced)}")
    if args.json:
        document = {"summary": figures, "pages": [asdict(result) for result in results]}
        args.json.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
