"""Regenerate the README's screenshots: ``.venv/bin/python scripts/screenshots.py``.

Writes ``screenshots/main.svg``, ``checkpoint.svg``, ``handoff.svg`` and
``end.svg``: the app as a first run of ``make demo`` shows it (the playbook
driving, no model), through the CLI's app factory and the scripted session built
from the real captured demoflix pages, a frozen clock, no image previews, a
100x30 terminal, so the images change only when the app's look does, and show no
host name or path. tests/tui/test_screenshots_current.py fails when they are stale.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the scenes live with the tests

from tests.fakes.scripted_session import freeze_header_clock  # noqa: E402
from tests.tui.conftest import SCREENSHOT_SCENES, SCREENSHOT_SIZE  # noqa: E402

_RANDOM_ID = re.compile(r"\bterminal-\d+-")


async def render(name: str) -> str:
    """Bring scene ``name`` up and return its SVG."""
    scene = SCREENSHOT_SCENES[name]()
    async with scene.app.run_test(size=SCREENSHOT_SIZE) as pilot:
        await scene.run_before(pilot)
        svg = scene.app.export_screenshot(simplify=True)
        scene.app.exit()
    # Rich names the SVG's classes with a random number; a fixed one keeps reruns byte-identical.
    return _RANDOM_ID.sub(f"terminal-{name}-", svg)


async def render_all() -> dict[str, str]:
    """Every screenshot by name, one app at a time."""
    return {name: await render(name) for name in SCREENSHOT_SCENES}


def main() -> None:
    """Parse the arguments and export."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        # The person's own config (a keymap changes the footer) must not leak into the images.
        config = Path(home) / "config.toml"
        config.write_text("", encoding="utf-8")
        os.environ["SUBTERMINATOR_CONFIG"] = str(config)
        freeze_header_clock()
        images = asyncio.run(render_all())
    out_dir: Path = args.out.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, svg in images.items():
        path = out_dir / f"{name}.svg"
        # LF only, whatever the platform (.gitattributes says the same).
        path.write_text(svg, encoding="utf-8", newline="\n")
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


if __name__ == "__main__":
    main()
