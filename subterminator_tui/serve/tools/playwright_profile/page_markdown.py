"""Answers in Playwright MCP's own shape: its markdown sections, page state and snapshot yaml.

An agent written for Playwright MCP splits an answer on ``### `` headings and reads
``Error`` (with ``isError``), ``Result``, ``Ran Playwright code``, ``Page`` (``- Page
URL:``, ``- Page Title:``), ``Modal state`` and ``Snapshot`` (a ```` ```yaml ```` block
whose elements carry ``[ref=eN]``). The same sections come back here, with three
differences an agent can rely on: the snapshot is always inline (serve writes no
files), it is serve's page (secrets scrubbed, tabs outside the domains closed), and a
call held for the operator says so under ``Result`` with its approval id.
"""

from __future__ import annotations

import re

from subterminator_tui.browser.snapshot import split_sections
from subterminator_tui.inert_text import inert_text
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.tools.playwright_profile.refs import shown_content

#: Tools whose code section would repeat what was typed (a secret, maybe): left out.
_TYPING_TOOLS = frozenset({"browser_type", "browser_fill_form"})
#: What Playwright MCP's own answer contributes; the page sections are serve's.
_PASSED_ON = ("Result", "Ran Playwright code")
#: Sections the call's own answer fills; a page's notes never repeat them.
_CALL_SECTIONS = frozenset({"Error", *_PASSED_ON})
#: serve asks for element boxes (the guard reads them); Playwright MCP's answers carry
#: them only when asked (``boxes``), so an agent never sees them here.
_BOX = re.compile(r" \[box=[\d.,-]+\]")
#: Its screenshot result links a file on the server; the picture is in the answer instead.
_SCREENSHOT_RESULT = "- Screenshot of the viewport (attached below)"


def held_result(approval_id: str, message: str) -> str:
    """The ``Result`` of a call held for the operator: what happened and what to call."""
    return (
        f"{message}\n- approval_id: {approval_id}\n- To wait for the decision, call "
        f'approval_wait with {{"approval_id": "{approval_id}"}}.'
    )


def playwright_markdown(answer: Answer, tool: str) -> str:
    """``answer`` to ``tool`` as Playwright MCP would write it, made inert."""
    sections: list[tuple[str, str]] = []
    sent = split_sections(answer.browser_text) if answer.browser_text else {}
    if answer.is_error:
        sections.append(("Error", f"Error: {answer.message or 'the call failed.'}"))
    elif answer.status == "approval_pending" and answer.approval_id:
        sections.append(("Result", held_result(answer.approval_id, answer.message)))
    else:
        passed = _SCREENSHOT_RESULT if tool == "browser_take_screenshot" else sent.get("Result")
        result = "\n".join(part for part in (passed, answer.message) if part)
        if result:
            sections.append(("Result", result))
    for name in _PASSED_ON[1:]:
        if name in sent and tool not in _TYPING_TOOLS:
            sections.append((name, sent[name]))
    page = answer.page
    if page is not None:
        notes = {name: body for name, body in page.notes.items() if name not in _CALL_SECTIONS}
        if "Open tabs" in notes:
            sections.append(("Open tabs", notes.pop("Open tabs")))
        lines = [f"- Page URL: {page.url}"]
        if page.title:
            lines.append(f"- Page Title: {page.title}")
        sections.append(("Page", "\n".join(lines)))
        sections.extend(notes.items())
        sections.append(("Snapshot", f"```yaml\n{_BOX.sub('', shown_content(page))}\n```"))
    # Page text reaches the agent's client, which may well show it on a terminal.
    return inert_text("\n".join(f"### {name}\n{body.strip()}" for name, body in sections))
