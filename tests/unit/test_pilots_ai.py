"""The AI pilot's conversation: one call per turn, a short history, only the newest page in full.

The model is a tiny in-memory ModelClient answering scripted replies and
keeping a copy of everything it was sent; the pages are REAL Playwright MCP
captures of the practice site.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.tools import MODEL_TOOLS
from subterminator_tui.costs import Usage
from subterminator_tui.pilots.ai import AIPilot, system_prompt
from subterminator_tui.pilots.page_view import PageView
from subterminator_tui.providers.base import (
    AssistantMessage,
    Message,
    ModelReply,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from subterminator_tui.rules import ServiceConfig, generic_service, load_services
from tests.fixtures.pages import page

STUB = "[old page:"


def click(call_id: str, target: str) -> ToolCall:
    """A click the model asks for."""
    return ToolCall(call_id, "browser_click", {"target": target, "element": "a button"})


def reply(*calls: ToolCall, text: str = "") -> ModelReply:
    """A model reply carrying ``calls``."""
    return ModelReply(text=text, tool_calls=calls, usage=Usage(10, 2))


@dataclass
class ScriptedModel:
    """A ModelClient that answers from a list and records what it was sent."""

    replies: list[ModelReply]
    systems: list[str] = field(default_factory=list)
    conversations: list[list[Message]] = field(default_factory=list)
    offered: list[list[ToolSpec]] = field(default_factory=list)
    closed: bool = False

    @property
    def model(self) -> str:
        """A made-up model name."""
        return "claude-scripted"

    @property
    def provider(self) -> str:
        """Claims to be Anthropic."""
        return "anthropic"

    async def complete(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelReply:
        """The next scripted reply; the conversation is copied as it was at this moment."""
        self.systems.append(system)
        self.conversations.append(copy.deepcopy(list(messages)))
        self.offered.append(list(tools))
        return self.replies.pop(0)

    async def aclose(self) -> None:
        """Remember that the pilot closed us."""
        self.closed = True


def text_of(message: Message) -> str:
    """The text a message carries (user text, assistant text or tool result)."""
    if isinstance(message, UserMessage):
        return message.text
    if isinstance(message, ToolResultMessage):
        return message.content
    return message.text


@pytest.fixture(scope="module")
def demoflix() -> ServiceConfig:
    """The built-in demoflix service."""
    return load_services(user_file=None).get("demoflix")


async def test_only_the_first_tool_call_is_kept(demoflix: ServiceConfig, tmp_path: Path) -> None:
    """Of two calls in one reply the first is proposed, and only it enters the history."""
    account = page("account", tmp_path)
    first = click("toolu_1", account.ref_of("button", "Cancel membership"))
    second = ToolCall("toolu_2", "complete_task", {"status": "success", "reason": "done"})
    model = ScriptedModel([reply(first, second, text="Cancelling.")])
    pilot = AIPilot(model, demoflix)
    pilot.begin(account)
    turn = await pilot.next_turn(account)
    assert turn.call == first
    assert pilot.messages[-1] == AssistantMessage("Cancelling.", (first,))


async def test_history_grows_by_two_messages_per_executed_turn(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """Each executed turn adds the assistant message and the tool result, nothing more."""
    pages = [page(name, tmp_path) for name in ("account", "survey", "offer", "confirm")]
    calls = [click(f"toolu_{n}", f"e{n}") for n in range(3)]
    pilot = AIPilot(ScriptedModel([reply(call) for call in calls]), demoflix)
    pilot.begin(pages[0])
    lengths = [len(pilot.messages)]
    for call, before, after in zip(calls, pages, pages[1:], strict=False):
        await pilot.next_turn(before)
        pilot.observe(call, {"error": False}, after)
        lengths.append(len(pilot.messages))
    # The goal and the first page are two messages (one user turn on the wire).
    assert lengths == [2, 4, 6, 8]
    kinds = [type(message).__name__ for message in pilot.messages[2:]]
    assert kinds == ["AssistantMessage", "ToolResultMessage"] * 3


async def test_the_first_page_becomes_a_stub_once_a_result_arrives(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """The goal stays unchanged in the first message; the first page shrinks to a stub."""
    account, survey = page("account", tmp_path), page("survey", tmp_path)
    call = click("toolu_1", account.ref_of("button", "Cancel membership"))
    pilot = AIPilot(ScriptedModel([reply(call)]), demoflix)
    pilot.begin(account)
    goal = text_of(pilot.messages[0])
    assert "Cancel membership" in text_of(pilot.messages[1])
    await pilot.next_turn(account)
    pilot.observe(call, {"error": False}, survey)
    assert text_of(pilot.messages[0]) == goal
    assert goal.startswith(f"Goal: {demoflix.goal}")
    first_page = text_of(pilot.messages[1])
    assert f"{STUB} Account - Demoflix]" in first_page
    assert "Cancel membership" not in first_page


async def test_only_the_newest_page_is_sent_in_full(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """On the third request every earlier page is a stub; the offer page is the only full one."""
    account, survey, offer = (page(n, tmp_path) for n in ("account", "survey", "offer"))
    calls = [click("toolu_1", "e1"), click("toolu_2", "e2"), click("toolu_3", "e3")]
    model = ScriptedModel([reply(call) for call in calls])
    pilot = AIPilot(model, demoflix)
    pilot.begin(account)
    await pilot.next_turn(account)
    pilot.observe(calls[0], {"error": False}, survey)
    await pilot.next_turn(survey)
    pilot.observe(calls[1], {"error": False}, offer)
    await pilot.next_turn(offer)
    sent = [text_of(message) for message in model.conversations[-1]]
    full_pages = [text for text in sent if "Snapshot:" in text]
    assert full_pages == [text_of(pilot.messages[-2])]
    assert f"URL: {offer.url}" in full_pages[0]
    assert "Continue to cancel" in full_pages[0]
    assert sum(STUB in text for text in sent) == 2
    assert not any("Cancel membership" in text or "Too expensive" in text for text in sent)


async def test_an_error_result_starts_with_the_error_status(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """The result begins with {"error": true, "message": ...} and is marked an error."""
    account = page("account", tmp_path)
    call = click("toolu_1", "e999")
    status = {"error": True, "message": "Element ref e999 is not on the current page."}
    pilot = AIPilot(ScriptedModel([reply(call)]), demoflix)
    pilot.begin(account)
    await pilot.next_turn(account)
    pilot.observe(call, status, account)
    result = pilot.messages[-1]
    assert isinstance(result, ToolResultMessage)
    assert result.call_id == "toolu_1"
    assert result.is_error
    assert result.content.startswith('{"error": true, "message": "Element ref e999')
    assert json.loads(result.content.split("\n\n", 1)[0]) == status


async def test_a_successful_result_is_not_marked_an_error(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """A plain success carries is_error False and the fresh page alone (no status to resend)."""
    account, survey = page("account", tmp_path), page("survey", tmp_path)
    call = click("toolu_1", account.ref_of("button", "Cancel membership"))
    pilot = AIPilot(ScriptedModel([reply(call)]), demoflix)
    pilot.begin(account)
    await pilot.next_turn(account)
    pilot.observe(call, {"error": False}, survey)
    result = pilot.messages[-1]
    assert isinstance(result, ToolResultMessage)
    assert not result.is_error
    assert result.content.startswith("Current page:\n") and '"error"' not in result.content
    assert f"URL: {survey.url}" in result.content


async def test_the_offered_tools_are_the_curated_set_and_the_virtual_two(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """At most 7 curated browser tools plus the three virtual ones."""
    login = page("login", tmp_path)
    model = ScriptedModel([reply(click("toolu_1", "e1"))])
    pilot = AIPilot(model, demoflix)
    pilot.begin(login)
    await pilot.next_turn(login)
    names = [tool.name for tool in model.offered[0]]
    curated = [tool.name for tool in MODEL_TOOLS]
    virtual = ["complete_task", "request_human_approval", "show_region"]
    assert set(names) <= {*curated, *virtual}
    assert names[-3:] == virtual
    assert len(MODEL_TOOLS) == 7
    # Expanding a collapsed region by ref is the tenth tool, added for long pages.
    assert len(names) <= 10
    assert "browser_evaluate" not in names


async def test_every_page_is_offered_the_same_tools_in_the_same_order(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """The tools open the prompt: the same list on every page keeps the prompt cache valid."""
    account, login = page("account", tmp_path), page("login", tmp_path)
    model = ScriptedModel([reply(click("toolu_1", "e1")), reply(click("toolu_2", "e1"))])
    pilot = AIPilot(model, demoflix)
    pilot.begin(account)
    await pilot.next_turn(account)
    await pilot.next_turn(login)
    assert model.offered[0] == model.offered[1]
    assert "browser_type" in [tool.name for tool in model.offered[0]]


async def test_tools_are_narrowed_to_what_the_page_can_use_when_asked(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """With page_tools on: no typing tool on a page without fields, one where there is."""
    account, login = page("account", tmp_path), page("login", tmp_path)
    model = ScriptedModel([reply(click("toolu_1", "e1")), reply(click("toolu_2", "e1"))])
    pilot = AIPilot(model, demoflix, view=PageView(page_tools=True))
    pilot.begin(account)
    await pilot.next_turn(account)
    await pilot.next_turn(login)
    on_account = [tool.name for tool in model.offered[0]]
    on_login = [tool.name for tool in model.offered[1]]
    assert "browser_type" not in on_account and "browser_handle_dialog" not in on_account
    assert "browser_type" in on_login
    for always in ("browser_click", "browser_navigate", "complete_task", "request_human_approval"):
        assert always in on_account and always in on_login


async def test_the_service_prompt_reaches_the_model_in_the_first_message(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """The service's own advice from services.toml reaches the model, after the goal."""
    account = page("account", tmp_path)
    model = ScriptedModel([reply(click("toolu_1", "e1"))])
    pilot = AIPilot(model, demoflix)
    pilot.begin(account)
    await pilot.next_turn(account)
    assert demoflix.prompt
    first = pilot.messages[0]
    assert isinstance(first, UserMessage)
    assert demoflix.prompt in first.text
    assert "One tool call per" in model.systems[0]


async def test_the_system_prompt_is_the_same_for_every_service(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """A prompt that opens identically for every run is what the provider's cache serves."""
    generic = generic_service("https://example.com/account")
    assert demoflix.prompt and demoflix.prompt not in system_prompt(demoflix)
    assert system_prompt(demoflix) == system_prompt(generic)


async def test_a_reply_without_a_tool_call_proposes_nothing(
    demoflix: ServiceConfig, tmp_path: Path
) -> None:
    """Text only: no call, and the text is kept as an assistant message."""
    account = page("account", tmp_path)
    pilot = AIPilot(ScriptedModel([reply(text="Hmm.")]), demoflix)
    pilot.begin(account)
    turn = await pilot.next_turn(account)
    assert turn.call is None
    assert turn.model_calls == 1
    assert pilot.messages[-1] == AssistantMessage("Hmm.")


async def test_aclose_closes_the_model_client(demoflix: ServiceConfig) -> None:
    """Closing the pilot closes its client."""
    model = ScriptedModel([])
    await AIPilot(model, demoflix).aclose()
    assert model.closed
