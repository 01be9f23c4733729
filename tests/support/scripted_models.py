"""The loopback model playing scripted steps, pointed at by the Anthropic SDK's variables."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest

from subterminator_bench.loopback_model import ScriptedModelServer
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_tui.rules import PlaybookStep

SCRIPTED_KEY = "sk-ant-scripted"


@contextmanager
def scripted_model(
    steps: Sequence[PlaybookStep], env: pytest.MonkeyPatch
) -> Iterator[ScriptedModelServer]:
    """The loopback model playing ``steps`` (then claiming success), for the Anthropic SDK."""
    with ScriptedModelServer(PlaybookBrain(steps)) as server:
        env.setenv("ANTHROPIC_BASE_URL", server.base_url)
        env.setenv("ANTHROPIC_API_KEY", SCRIPTED_KEY)
        yield server
