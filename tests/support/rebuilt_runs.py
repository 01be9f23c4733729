"""Runs of the rebuilt flows as a person runs them: `subterminator cancel --url`.

Two ways, one outcome (:class:`CancelRun`): :func:`cancel_url` runs the command as a
child, the person being its stdin, one line per question (``y`` approves; the end of
input refuses whatever is asked after); :func:`cancel_url_in_run` runs the same request
through the same entry the command uses (``prepared_run``) in the test's process, on a
module's shared browser, with a person who answers the same lines the same way. The
child costs a Python start, a Chromium and a Playwright MCP per run; the tests that
judge the run, not the command, use the second.

The model is the bench's scripted loopback model (:class:`PlaybookBrain` behind the real
Anthropic SDK wire format), so each run takes the same path every time.
"""

from __future__ import annotations

import io
import json
import os
import re
import selectors
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subterminator_bench.loopback_model import (
    Brain,
    ModelRequest,
    ScriptedModelServer,
    ScriptedTurn,
)
from subterminator_bench.runner import scripted_model_env
from subterminator_bench.scripted_brain import PlaybookBrain
from subterminator_tui.guarded.gates import (
    CheckpointRequest,
    Decision,
    HandoffAnswer,
    HandoffRequest,
)
from subterminator_tui.headless.gate import APPROVING_ANSWERS
from subterminator_tui.headless.reporter import TerminalReporter
from subterminator_tui.rules import PlaybookStep
from subterminator_tui.session import RunRequest, prepared_run
from subterminator_tui.session.browser import BrowserStarter
from tests.integration.cli_children import RUN_TIMEOUT, Cli

SCRIPTED_KEY = "sk-ant-scripted"
#: What the headless front end prints before each question.
ASKED = "Human approval required for: "
#: The question's last line, printed just before it reads the answer.
PROMPT = "Approve? ["


def click(name: str, role: str | None = None, *, optional: bool = False) -> PlaybookStep:
    """A step that clicks the control called ``name`` (exactly that name first); an
    ``optional`` one is skipped when the page does not show it."""
    step: dict[str, Any] = {"action": "click", "name": name, "optional": optional}
    if role is not None:
        step["role"] = role
    return PlaybookStep.model_validate(step)


def press(key: str) -> PlaybookStep:
    """A step that presses ``key``."""
    return PlaybookStep.model_validate({"action": "press", "key": key})


def navigate(url: str) -> PlaybookStep:
    """A step that types ``url`` (relative to the page) into the address bar."""
    return PlaybookStep.model_validate({"action": "navigate", "url": url})


@dataclass(frozen=True)
class CancelRun:
    """A finished `cancel --url --json` child: its exit code, result and questions."""

    code: int
    result: dict[str, Any]
    stderr: str

    @property
    def questions(self) -> list[str]:
        """What each question asked about, in order."""
        return [
            line.split(ASKED, 1)[1].strip() for line in self.stderr.splitlines() if ASKED in line
        ]


@dataclass
class PageRecordingBrain(PlaybookBrain):
    """The playbook brain, keeping the text of every request it was sent (what a model reads)."""

    pages_seen: list[str] = field(default_factory=list)

    def __call__(self, request: ModelRequest) -> ScriptedTurn:
        """Note what the model was sent, then answer as the playbook brain does."""
        self.pages_seen.append(request.latest_text)
        return super().__call__(request)


@dataclass
class BareButtonBrain:
    """Clicks the first button the page shows without a name (an image-only button), by its
    ref as a model reads it, then claims success."""

    clicked: bool = False

    def __call__(self, request: ModelRequest) -> ScriptedTurn:
        """The click on the first unnamed button, then ``complete_task``."""
        found = _BARE_BUTTON.search(request.latest_text.rsplit("Current page:", 1)[-1])
        if self.clicked or found is None:
            done = {"status": "success", "reason": "The page is done."}
            return ScriptedTurn(text="Done.", tool_calls=[("complete_task", done)])
        self.clicked = True
        arguments: dict[str, Any] = {"target": found["ref"]}
        if "element" in request.tool_arguments("browser_click"):
            arguments["element"] = "button"
        return ScriptedTurn(tool_calls=[("browser_click", arguments)])


_BARE_BUTTON = re.compile(r"^\s*- button \[ref=(?P<ref>\w+)\]", re.MULTILINE)


@contextmanager
def scripted_model(brain: Sequence[PlaybookStep] | Brain) -> Iterator[ScriptedModelServer]:
    """The loopback model playing ``brain`` (steps: the playbook brain, then success)."""
    chosen = brain if callable(brain) else PlaybookBrain(list(brain))
    with ScriptedModelServer(chosen) as server:
        yield server


def cancel_args(cli: Cli, url: str, *more: str) -> list[str]:
    """``cancel --url URL --headless --profile-dir PROFILE --json ...``."""
    profile = str(cli.profile)
    return ["cancel", "--url", url, "--headless", "--profile-dir", profile, "--json", *more]


def model_env(cli: Cli, model: ScriptedModelServer) -> dict[str, str]:
    """The child's environment: isolated, with the scripted model as the Anthropic API."""
    return cli.env(ANTHROPIC_BASE_URL=model.base_url, ANTHROPIC_API_KEY=SCRIPTED_KEY)


def parsed(code: int, stdout: str, stderr: str) -> CancelRun:
    """The run's JSON result (empty when the child printed none)."""
    try:
        result = json.loads(stdout) if stdout.strip() else {}
    except json.JSONDecodeError:
        result = {"unparsed": stdout}
    return CancelRun(code, result, stderr)


def cancel_url(
    cli: Cli, url: str, steps: Sequence[PlaybookStep] | Brain, answers: str = "", *more: str
) -> CancelRun:
    """Cancel the site at ``url`` with the scripted model playing ``steps`` (or a brain);
    ``answers`` are the stdin lines."""
    with scripted_model(steps) as model:
        finished = cli.run(
            cancel_args(cli, url, *more), stdin=answers.encode(), env=model_env(cli, model)
        )
    return parsed(finished.code, finished.stdout, finished.stderr)


#: A person who types the line for a question once it is on screen (None: the input ended).
TypesFor = Callable[[CheckpointRequest], Awaitable[str | None]]


@dataclass
class PersonAtThePrompt:
    """The person the headless front end reads, without the terminal: ``answers`` are the
    lines they type, one per question (an approving answer, as the terminal reads it,
    approves; anything else refuses); once they run out, the input has ended and every
    later question is refused unanswered, as the command does at the end of its stdin.
    What each question said is kept as the command prints it. ``types_for``, when given,
    types each line instead, once its question is on screen (a page may change
    meanwhile, say).
    """

    answers: list[str]
    types_for: TypesFor | None = None
    asked: list[CheckpointRequest] = field(default_factory=list)
    transcript: list[str] = field(default_factory=list)

    async def approve(self, request: CheckpointRequest) -> Decision:
        """Note the question; answer with the next line, or refuse at the end of input."""
        self.asked.append(request)
        self.transcript.append(
            f"{ASKED}{request.action}\n    Why: {request.why}\n    URL: {request.url}\n{PROMPT}"
        )
        if self.types_for is not None:
            line = await self.types_for(request)
        else:
            line = self.answers.pop(0) if self.answers else None
        if line is None:
            return Decision("reject", answered=False)
        approves = line.strip().lower() in APPROVING_ANSWERS
        return Decision("approve") if approves else Decision("reject")

    async def handoff(self, request: HandoffRequest) -> HandoffAnswer:
        """The rebuilt flows start signed in: a hand-off is given up, as at the end of input."""
        return HandoffAnswer("cancel")


async def cancel_url_in_run(
    start_browser: BrowserStarter,
    url: str,
    steps: Sequence[PlaybookStep] | Brain,
    tmp_path: Path,
    answers: str = "",
    *,
    types_for: TypesFor | None = None,
) -> CancelRun:
    """``cancel --url URL --headless --json`` in this process, on the browser
    ``start_browser`` lends: what the command's child would exit with, print as JSON and
    say (its turn lines and questions), for the same model steps and answer lines (or a
    person who ``types_for`` each question)."""
    person = PersonAtThePrompt(answers.splitlines(), types_for)
    said = io.StringIO()
    reporter = TerminalReporter(out=said, err=said)
    request = RunRequest("", url=url, headless=True, profile_dir=str(tmp_path / "profile"))
    with scripted_model(steps) as model, scripted_model_env(model):
        async with prepared_run(request, start_browser=start_browser) as prepared:
            result = await prepared.run(person, reporter)
    stderr = said.getvalue() + "\n".join(person.transcript)
    # The JSON the command prints, read back as the child's stdout is.
    return CancelRun(result.exit_code, json.loads(json.dumps(result.to_dict())), stderr)


def read_stderr_until(
    child: subprocess.Popen[bytes], marker: str, timeout: float = RUN_TIMEOUT
) -> str:
    """Read the child's stderr until ``marker`` appears; fail after ``timeout`` seconds."""
    assert child.stderr is not None
    output = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(child.stderr, selectors.EVENT_READ)
        while marker.encode() not in output:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise AssertionError(f"no {marker!r} within {timeout} s; got {output!r}")
            chunk = os.read(child.stderr.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"the child ended early: {output!r}")
            output += chunk
    return output.decode()
