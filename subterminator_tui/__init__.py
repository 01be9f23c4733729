"""SubTerminator: cancel subscriptions with an AI at the wheel and a human with the final say.

The package is split so its folders show the architecture:

- ``browser/``  the guarded gateway to Playwright MCP (processes, snapshots, tool allowlist)
- ``rules/``    declarative per-service rules from ``services.toml``
- ``practice/`` the bundled practice site ``demoflix``
- ``cli/``      the headless front end

Nothing outside ``tui/`` imports Textual.
"""

__version__ = "0.1.0"
