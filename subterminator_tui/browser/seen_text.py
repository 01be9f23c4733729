"""The text a person can actually see on the page: what a success is verified on.

The accessibility tree carries text no person sees: a screen-reader-only element
pushed off-screen, CSS ``::after`` content folded into a name, the page title. A
page can print "Cancellation confirmed" in any of them while nothing was
cancelled. This fixed function (never one a model wrote, run through Playwright
MCP's ``browser_evaluate``) walks the rendered text nodes and keeps only those a
person could read: rendered and visible (``checkVisibility`` with CSS visibility and
opacity), not inside an ``aria-hidden`` subtree, at least a few pixels wide and
tall, inside the page's scrollable area (not pushed off-screen), not clipped away by
an ancestor's overflow, ``clip`` or ``clip-path``, and not of a tiny font. Text in
open shadow roots counts; pseudo-element content and the title never do (they are
not text nodes). Blocks are separated by newlines, inline runs joined, so a
sentence split by ``<strong>`` stays one sentence.
"""

from __future__ import annotations

import json

from subterminator_tui.browser.snapshot import split_sections

#: At most this many characters are read: a confirmation is near the top of any page.
SEEN_TEXT_LIMIT = 50_000

SEEN_TEXT_FUNCTION = """() => {
  const MIN = 2;
  const docW = Math.max(document.documentElement.scrollWidth, innerWidth);
  const docH = Math.max(document.documentElement.scrollHeight, innerHeight);
  const clipped = (el, rect) => {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.clipPath && style.clipPath !== 'none') {
        const box = node.getBoundingClientRect();
        if (box.width < MIN * 4 || box.height < MIN * 4 || /inset\\(\\s*50%/.test(style.clipPath))
          return true;
      }
      if (style.clip && style.clip !== 'auto' && style.position === 'absolute') return true;
      if (style.overflow !== 'visible') {
        const box = node.getBoundingClientRect();
        const w = Math.min(rect.right, box.right) - Math.max(rect.left, box.left);
        const h = Math.min(rect.bottom, box.bottom) - Math.max(rect.top, box.top);
        if (w < MIN || h < MIN) return true;
      }
    }
    return false;
  };
  const seen = (text) => {
    const el = text.parentElement;
    if (!el || el.closest('[aria-hidden="true"], script, style, noscript, template, title'))
      return false;
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true,
      checkVisibilityCSS: true })) return false;
    if (parseFloat(getComputedStyle(el).fontSize) < 6) return false;
    const range = document.createRange();
    range.selectNodeContents(text);
    const rects = Array.from(range.getClientRects()).filter((r) => r.width >= MIN
      && r.height >= MIN);
    return rects.some((r) => {
      const left = r.left + scrollX, top = r.top + scrollY;
      const inside = left + r.width > 0 && top + r.height > 0 && left < docW && top < docH;
      return inside && !clipped(el, r);
    });
  };
  const block = (el) => {
    for (let node = el; node; node = node.parentElement) {
      const display = getComputedStyle(node).display;
      if (!display.startsWith('inline') && display !== 'contents') return node;
    }
    return document.body;
  };
  const parts = [];
  let last = null, total = 0;
  const walk = (root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode; node && total < LIMIT; node = walker.nextNode()) {
      if (node.nodeType === 1) {
        if (node.shadowRoot) walk(node.shadowRoot);
        continue;
      }
      if (!node.textContent.trim() || !seen(node)) continue;
      const owner = block(node.parentElement);
      const text = node.textContent.replace(/\\s+/g, ' ');
      parts.push(owner === last ? text : '\\n' + text.trimStart());
      last = owner;
      total += text.length;
    }
  };
  if (document.body) walk(document.body);
  return parts.join('').split('\\n').map((line) => line.trim()).filter(Boolean).join('\\n');
}""".replace("LIMIT", str(SEEN_TEXT_LIMIT))


def parse_seen_text(text: str) -> str | None:
    """The seen text from ``browser_evaluate``'s ``### Result``; None when unreadable."""
    body = split_sections(text).get("Result", "").strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    return data[:SEEN_TEXT_LIMIT] if isinstance(data, str) else None
