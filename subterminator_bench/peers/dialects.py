"""Per server, how the agent's abstract moves become tool calls and answers become a page.

Three dialects: Playwright MCP's (``browser_*`` tools with element refs; used against bare
Playwright MCP and against any server that offers the same tools), Chrome DevTools MCP's
(``take_snapshot``, ``click`` by ``uid``, ``fill``, ``navigate_page``) and serve's own
(``snapshot``, ``click`` by ``ref`` in a named session). Each reads the answer back into
the page text the brains read (``Current page:``, the URL, then one line per element with
its handle in ``[ref=...]``), and counts what the agent was sent in tokens.

A held call is followed the way its answer says: an answer with an approval id, from a
server that offers ``approval_wait``, is waited on; the operator decides, not the agent.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from subterminator_bench.peers.agent import PERSON_SIGNS_IN, AgentMove
from subterminator_tui.pilots.compaction import estimate_tokens

PAGE_MARK = "Current page:"
#: How long the agent waits on the operator for one held call.
APPROVAL_WAIT_SECONDS = 120.0
_APPROVAL_ID = re.compile(r"approval_id:? \"?(?P<id>[\w-]+)")


@dataclass
class ToolTimes:
    """Each call's seconds by tool name, and every answer's size in tokens."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    answer_tokens: int = 0
    calls: int = 0

    def add(self, tool: str, seconds: float, tokens: int) -> None:
        """Note one call."""
        self.seconds.setdefault(tool, []).append(seconds)
        self.answer_tokens += tokens
        self.calls += 1


@dataclass(frozen=True)
class Answer:
    """One tool answer as the client got it."""

    text: str
    structured: dict[str, Any]
    is_error: bool


@dataclass
class Reply:
    """What a move brought back: the page in the brains' text, and what the server said."""

    page_text: str
    #: Calls the server held for the operator during the move.
    held: int = 0
    #: The server judged the page (serve's ``verified``); None when it says nothing.
    verified: bool | None = None


class Dialect:
    """The shared part: calling a tool, timing it, and following a held call."""

    #: The tool whose time is the guarded click's (for the latency comparison).
    click_tool = ""

    def __init__(self, client: Client, tools: list[types.Tool], workdir: Path) -> None:
        self.client = client
        self.tools = {tool.name: tool for tool in tools}
        self.workdir = workdir
        self.times = ToolTimes()
        #: Seconds of each click the server let through without asking.
        self.click_seconds: list[float] = []

    async def call(self, tool: str, arguments: dict[str, Any]) -> Answer:
        """Call ``tool``; the answer (a refused or failed call is an answer too)."""
        started = time.perf_counter()
        result = await self.client.call_tool(tool, arguments)
        seconds = time.perf_counter() - started
        text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
        structured = dict(result.structured_content or {})
        self.times.add(tool, seconds, estimate_tokens(text))
        answer = Answer(text, structured, bool(result.is_error))
        if tool == self.click_tool and not self.held(answer):
            self.click_seconds.append(seconds)
        return answer

    def held(self, answer: Answer) -> str | None:
        """The approval id when ``answer`` is a held call, else None."""
        if answer.structured.get("status") == "approval_pending":
            return str(answer.structured.get("approval_id") or "") or None
        # A client that reads only the text: an id, and the tool to wait with named beside it.
        found = _APPROVAL_ID.search(answer.text)
        if found and ("approval_pending" in answer.text or "call approval_wait" in answer.text):
            return found["id"]
        return None

    async def follow(self, answer: Answer) -> tuple[Answer, int]:
        """``answer``, or once held, the operator's decision as ``approval_wait`` answers it."""
        held = 0
        approval_id = self.held(answer)
        while approval_id is not None and "approval_wait" in self.tools:
            held += 1
            answer = await self.call(
                "approval_wait",
                {"approval_id": approval_id, "timeout_seconds": APPROVAL_WAIT_SECONDS},
            )
            approval_id = self.held(answer) if "pending" in answer.text else None
        return answer, held

    def read_file(self, path: str) -> str:
        """A file an answer links (a snapshot), read as an agent with file access would."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError:
            return ""
        self.times.answer_tokens += estimate_tokens(text)
        return text

    async def open(self, url: str) -> Reply:
        """The start page."""
        raise NotImplementedError

    async def act(self, move: AgentMove) -> Reply:
        """Make ``move``; the page after it."""
        raise NotImplementedError


# --- Playwright MCP ------------------------------------------------------------------------

_PW_URL = re.compile(r"^- Page URL: (\S+)", re.M)
_PW_FILE = re.compile(r"\[Snapshot\]\((?P<path>[^)]+\.ya?ml)\)")
_PW_INLINE = re.compile(r"```yaml\n(?P<tree>.*?)```", re.S)
_PW_MODAL = re.compile(r"^### Modal state\n(?P<body>(?:- [^\n]*\n?)+)", re.M)


class PlaywrightDialect(Dialect):
    """Playwright MCP's tools: ``browser_*`` with ``target`` refs; snapshots inline or in files."""

    click_tool = "browser_click"

    async def open(self, url: str) -> Reply:
        """Navigate to the start page."""
        return await self._page(await self.call("browser_navigate", {"url": url}))

    async def act(self, move: AgentMove) -> Reply:
        """One ``browser_*`` call per move (a held one waited on)."""
        tool, arguments = self._call_for(move)
        answer, held = await self.follow(await self.call(tool, arguments))
        reply = await self._page(answer)
        reply.held = held
        return reply

    def _call_for(self, move: AgentMove) -> tuple[str, dict[str, Any]]:
        match move.kind:
            case "navigate":
                return "browser_navigate", {"url": move.url}
            case "click" | "hover":
                return f"browser_{move.kind}", {"target": move.target}
            case "type":
                arguments = {"target": move.target, "text": move.text, "submit": move.submit}
                return "browser_type", arguments
            case "select":
                return "browser_select_option", {"target": move.target, "values": [*move.values]}
            case "press":
                return "browser_press_key", {"key": move.key}
            case "wait":
                if move.seconds is not None:
                    return "browser_wait_for", {"time": move.seconds}
                return "browser_wait_for", {"text": move.text}
            case "back":
                return "browser_navigate_back", {}
            case "dialog":
                return "browser_handle_dialog", {"accept": move.accept}
            case "ask_person":
                # The person has done the hand-off: the agent looks at the page again.
                return "browser_snapshot", {}
        raise ValueError(f"no Playwright MCP call for {move.kind}")

    async def _page(self, answer: Answer) -> Reply:
        tree = self._tree(answer.text)
        if tree is None and "### Modal state" not in answer.text:
            # No page in the answer (a wait, a hover, a failure): the agent looks, as it would.
            snapshot = await self.call("browser_snapshot", {})
            answer = Answer(f"{answer.text}\n{snapshot.text}", snapshot.structured, False)
            tree = self._tree(snapshot.text)
        url = _PW_URL.search(answer.text)
        modal = _PW_MODAL.search(answer.text)
        lines = [PAGE_MARK, f"URL: {url.group(1) if url else ''}"]
        if modal:
            lines.append(f"Modal state:\n{modal['body']}")
        if answer.is_error:
            lines.append(answer.text)
        else:
            # A server's word that the page is the person's (a sign-in) is read, as an
            # agent reads the whole answer: it then asks the person instead of typing.
            lines += [line for line in answer.text.splitlines() if PERSON_SIGNS_IN in line]
        lines.append(tree or "")
        return Reply("\n".join(lines))

    def _tree(self, text: str) -> str | None:
        inline = _PW_INLINE.search(text)
        if inline:
            return inline["tree"]
        linked = _PW_FILE.search(text)
        return self.read_file(linked["path"]) if linked else None


# --- Chrome DevTools MCP -------------------------------------------------------------------

_DT_SNAPSHOT = "## Latest page snapshot"
_DT_LINE = re.compile(
    r'^(?P<indent>\s*)uid=(?P<uid>\S+)(?: (?P<role>[A-Za-z]+))?(?: "(?P<name>(?:[^"\\]|\\.)*)")?'
    r"(?P<rest>.*)$"
)
_DT_URL = re.compile(
    r'RootWebArea "[^\n]*?" url="(?P<url>[^"]+)"|RootWebArea url="(?P<bare>[^"]+)"'
)
_DT_ATTR_URL = re.compile(r'url="(?P<url>[^"]+)"')


def devtools_page(text: str) -> str:
    """A DevTools snapshot in the brains' format: ``- role "name" [ref=uid]`` lines."""
    lines = []
    for raw in text.splitlines():
        match = _DT_LINE.match(raw)
        if match is None:
            continue
        indent, uid = match["indent"], match["uid"]
        # Chromium's own role names (DisclosureTriangle for a <summary>) in ARIA's case.
        role, name = (match["role"] or "text").lower(), match["name"]
        rest = match["rest"] or ""
        link = _DT_ATTR_URL.search(rest) if role == "link" else None
        shown = f"{indent}- {role}" + (f' "{name}"' if name is not None else "")
        shown += f" [ref={uid}]" + (f" [url={link['url']}]" if link else "")
        lines.append(shown)
    return "\n".join(lines)


class DevToolsDialect(Dialect):
    """Chrome DevTools MCP's tools: ``uid`` handles, ``fill`` for text and options,
    ``includeSnapshot`` for the page after an action."""

    click_tool = "click"

    async def open(self, url: str) -> Reply:
        """Navigate to the start page."""
        return await self._page(await self.call("navigate_page", {"type": "url", "url": url}))

    async def act(self, move: AgentMove) -> Reply:
        """One or two DevTools calls per move (typing with Enter is a fill, then a key)."""
        snap = {"includeSnapshot": True}
        match move.kind:
            case "navigate":
                answer = await self.call("navigate_page", {"type": "url", "url": move.url})
            case "click" | "hover":
                answer = await self.call(move.kind, {"uid": move.target, **snap})
            case "type":
                answer = await self.call("fill", {"uid": move.target, "value": move.text, **snap})
                if move.submit and not answer.is_error:
                    answer = await self.call("press_key", {"key": "Enter", **snap})
            case "select":
                value = move.values[0] if move.values else ""
                answer = await self.call("fill", {"uid": move.target, "value": value, **snap})
            case "press":
                answer = await self.call("press_key", {"key": move.key, **snap})
            case "wait":
                if move.seconds is not None:
                    # DevTools MCP has no timed wait: the agent lets the page run, then looks.
                    await asyncio.sleep(move.seconds)
                    answer = await self.call("take_snapshot", {})
                else:
                    answer = await self.call("wait_for", {"text": [move.text]})
            case "back":
                answer = await self.call("navigate_page", {"type": "back"})
            case "dialog":
                action = "accept" if move.accept else "dismiss"
                answer = await self.call("handle_dialog", {"action": action})
            case "ask_person":
                answer = await self.call("take_snapshot", {})
            case _:
                raise ValueError(f"no DevTools MCP call for {move.kind}")
        return await self._page(answer)

    async def _page(self, answer: Answer) -> Reply:
        text = answer.text
        if _DT_SNAPSHOT not in text and "dialog" not in text.casefold():
            snapshot = await self.call("take_snapshot", {})
            text = f"{text}\n{snapshot.text}"
        head, _, tree = text.partition(_DT_SNAPSHOT)
        if not tree and "uid=" in head:
            head, tree = "", head
        url = _DT_URL.search(tree)
        lines = [PAGE_MARK, f"URL: {(url['url'] or url['bare']) if url else ''}"]
        if "dialog" in head.casefold() and "open" in head.casefold():
            lines.append(f"Modal state:\n{head.strip()}")
        if answer.is_error:
            lines.append(answer.text)
        lines.append(devtools_page(tree))
        return Reply("\n".join(lines))


# --- serve's own tools ---------------------------------------------------------------------


class ServeDialect(Dialect):
    """serve's own tools, in the session the server opened at start (``--session``)."""

    click_tool = "click"
    session = "main"

    async def open(self, url: str) -> Reply:
        """Navigate to the start page."""
        return await self._page(await self.call("navigate", {"session": self.session, "url": url}))

    async def act(self, move: AgentMove) -> Reply:
        """One serve call per move (a held one waited on)."""
        tool, arguments = self._call_for(move)
        if tool not in self.tools:
            # A tool serve does not offer: the agent is told so, as a client would say it.
            return Reply(f"{PAGE_MARK}\n(no tool {tool} on this server)\n{self._last}")
        answer, held = await self.follow(
            await self.call(tool, {"session": self.session, **arguments})
        )
        reply = await self._page(answer)
        reply.held = held
        return reply

    _last = ""

    def _call_for(self, move: AgentMove) -> tuple[str, dict[str, Any]]:
        match move.kind:
            case "navigate":
                return "navigate", {"url": move.url}
            case "click":
                return "click", {"ref": move.target}
            case "hover":
                return "hover", {"ref": move.target}
            case "type":
                return "type", {"ref": move.target, "text": move.text, "submit": move.submit}
            case "select":
                return "select", {"ref": move.target, "values": [*move.values]}
            case "press":
                return "press_key", {"key": move.key}
            case "wait":
                if move.seconds is not None:
                    return "wait_for", {"seconds": move.seconds}
                return "wait_for", {"text": move.text}
            case "back":
                return "back", {}
            case "dialog":
                return "dialog", {"accept": move.accept}
            case "ask_person":
                return "snapshot", {}
        raise ValueError(f"no serve call for {move.kind}")

    async def _page(self, answer: Answer) -> Reply:
        text = answer.text
        if "Snapshot:" not in text and "Modal state" not in text:
            # No page in the answer (refused, rejected): the agent looks, as it would.
            snapshot = await self.call("snapshot", {"session": self.session})
            text = f"{text}\n{snapshot.text}"
        self._last = text
        verified = answer.structured.get("verified")
        return Reply(f"{PAGE_MARK}\n{text}", verified=verified if verified is not None else None)
