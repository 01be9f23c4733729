"""Playwright MCP's tools on serve's guarded sessions (``serve --tools playwright``).

- ``catalog``        the offered tools as the pinned Playwright MCP lists them, and the
                     ones refused on purpose with why (``pinned_tools.json`` is the table)
- ``tools``          each tool onto the caller's implicit session, and approval_wait
- ``page_markdown``  answers in Playwright MCP's sections (Result, Page, Snapshot, ...)
"""
