"""Where a practice site may be: this computer only, parsed rather than matched as a prefix."""

from __future__ import annotations

import argparse

import pytest

from subterminator_tui.cli.main import build_parser
from subterminator_tui.errors import ConfigurationError
from subterminator_tui.session.places import check_browser_place, practice_url_is_local


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000",
        "http://127.0.0.1:8000/account",
        "http://localhost:9",
        "http://[::1]:80/",
    ],
)
def test_a_practice_site_on_this_computer_is_accepted(url: str) -> None:
    """Loopback addresses and localhost, as ``subterminator practice`` prints them."""
    assert practice_url_is_local(url)
    check_browser_place(None, url)


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.1.20:8000",
        "https://demoflix.example",
        # Prefix look-alikes: each names another computer.
        "http://127.0.0.1.example.com:8000",
        "http://localhost.example.com/",
        "http://localhost@example.com/",
        "http://127.0.0.1:8000@example.com/",
        "file:///etc/passwd",
        "http://127.0.0.1:notaport/",
        "",
    ],
)
def test_a_practice_url_elsewhere_is_refused(url: str) -> None:
    """Anything not on this computer is a configuration error naming the option and the URL."""
    assert not practice_url_is_local(url)
    with pytest.raises(ConfigurationError, match=r"--practice-url must be .* on this computer"):
        check_browser_place(None, url)


def test_an_empty_profile_dir_is_refused() -> None:
    """An empty path would be the current directory: refused, saying what to pass."""
    with pytest.raises(ConfigurationError, match="profile directory is empty"):
        check_browser_place("  ", None)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no subcommands")


def test_every_services_option_is_the_same_one() -> None:
    """--services is defined once (cli/options.py): every subcommand parses it alike, to paths."""
    commands = _subparsers(build_parser())
    having = {
        name: [a for a in sub._actions if "--services" in a.option_strings]
        for name, sub in commands.items()
    }
    having = {name: found[0] for name, found in having.items() if found}
    assert {"cancel", "serve", "egress", "services", "inspect", "auth"} <= set(having)
    helps = {action.help for action in having.values()}
    assert len(helps) == 1, helps
    for name in having:
        args = build_parser().parse_args([*_minimal(name), "--services", "a.toml"])
        assert [str(p) for p in args.services] == ["a.toml"], name


def _minimal(command: str) -> list[str]:
    """The fewest arguments ``command`` parses with."""
    positional = {
        "cancel": ["demoflix"],
        "resume": ["1"],
        "record": ["1"],
        "inspect": ["demoflix"],
        "auth": ["save", "demoflix", "f.json"],
        "check": ["demoflix"],
        "egress": ["demoflix"],
        "find": ["statement.csv"],
    }
    return [command, *positional.get(command, [])]
