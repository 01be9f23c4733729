"""Options several subcommands share, each defined once (no imports beyond argparse)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_services_option(parser: argparse.ArgumentParser) -> None:
    """``--services PATH``: extra services.toml files, in the order given."""
    parser.add_argument(
        "--services",
        action="append",
        type=Path,
        default=[],
        metavar="PATH",
        help="extra services.toml (repeatable; later files override earlier ones)",
    )
