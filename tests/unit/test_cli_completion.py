"""``subterminator completion``: the shell completes commands and options from the real parser."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from subterminator_tui.cli.main import main


def script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The completion script ``subterminator completion SHELL`` prints."""
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def test_the_zsh_script_knows_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    """Every subcommand is in the zsh script, and so is cancel's --no-tui."""
    text = script("zsh", capsys)
    for command in ("cancel", "resume", "runs", "show", "serve", "doctor", "completion"):
        assert command in text
    assert "--no-tui" in text


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_a_command_and_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    """In a real bash: `subterminator ca<Tab>` gives cancel; `cancel --no-t<Tab>` gives --no-tui."""
    text = script("bash", capsys)
    probe = (
        text
        + "\nCOMP_WORDS=(subterminator ca); COMP_CWORD=1; _shtab_subterminator; "
        + 'echo "${COMPREPLY[@]}"'
        + "\nCOMP_WORDS=(subterminator cancel --no-t); COMP_CWORD=2; _shtab_subterminator; "
        + 'echo "${COMPREPLY[@]}"'
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    first, second = done.stdout.splitlines()[-2:]
    assert first.split() == ["cancel"]
    assert "--no-tui" in second.split()
