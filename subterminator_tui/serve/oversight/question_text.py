"""The operator's question about a held call, laid out so nobody else's words can bend it.

Each text a page or an agent chose (the control's label, the page's address) sits on
its own line, made inert, cut to the terminal's width and introduced by whose it is;
an address is shown as its host and path, with its query and fragment only counted
(an agent chooses them freely: 300 KB of fragment once pushed the question off the
screen and drew a forged one in its place). Every line takes at most two rows of the
terminal, so the question is at most :data:`QUESTION_ROWS` rows and its header stays
on screen.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from subterminator_tui.inert_text import inert_line
from subterminator_tui.serve.oversight.approvals import Approval

#: The narrowest and widest lines a question is laid out for.
MIN_WIDTH, MAX_WIDTH = 40, 160
#: How many terminal rows a question takes at most (its blank first line included).
QUESTION_ROWS = 10
_ELLIPSIS = "…"


def shortened(text: str, limit: int) -> str:
    """``text`` inert, on one line, at most ``limit`` characters (cut in the middle)."""
    line = inert_line(text)
    if len(line) <= limit:
        return line
    head = (limit - 1) * 2 // 3
    tail = limit - 1 - head
    return line[:head] + _ELLIPSIS + (line[-tail:] if tail else "")


def summarised_url(url: str, limit: int) -> tuple[str, str]:
    """``url`` as host and path within ``limit`` characters, and what was left out of it
    (its query and fragment, counted; empty when nothing was)."""
    parts = urlsplit(inert_line(url))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return shortened(url, limit), ""
    host = parts.hostname + (f":{parts.port}" if _has_port(parts.netloc) else "")
    left_out = []
    if parts.query:
        count = len(parse_qsl(parts.query, keep_blank_values=True))
        left_out.append(f"a query of {count} parameter{'s' if count != 1 else ''}")
    if parts.fragment:
        left_out.append(f"a fragment of {len(parts.fragment)} characters")
    return shortened(host + (parts.path or "/"), limit), " and ".join(left_out)


def _has_port(netloc: str) -> bool:
    try:
        return urlsplit(f"//{netloc}").port is not None
    except ValueError:
        return False


def describe_approval(approval: Approval, code: str, width: int = 100) -> str:
    """The question for ``approval`` in lines of at most ``width`` characters."""
    width = min(max(width, MIN_WIDTH), MAX_WIDTH) - 1
    header = shortened(
        f"[{approval.principal}/{approval.session}] approval {approval.id}: held by the rules",
        width,
    )
    # A label or a reason may take two rows (the terminal wraps it): cut shorter, the
    # words that say what is held ("after Click button 'Continue'") would be lost.
    lines = [
        "",
        header,
        "  action (page's label): " + shortened(approval.action, 2 * width - 24),
        "  why (the rules): " + shortened(approval.why, 2 * width - 18),
    ]
    address, left_out = summarised_url(approval.url, width - 26)
    lines.append("  page (agent's address): " + address)
    if left_out:
        lines.append("    not shown: " + shortened(left_out, width - 15))
    if approval.screenshot_path:
        lines.append("  screenshot: " + shortened(approval.screenshot_path, width - 14))
    prompt = f"Type {code} to approve; Enter rejects (other text rejects, sent as a note): "
    return "\n".join(lines) + "\n" + prompt
