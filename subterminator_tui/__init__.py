"""SubTerminator: cancel subscriptions with an AI at the wheel and a human with the final say.

The package is split so its folders show the architecture. The core:

- ``browser/``       the guarded gateway to Playwright MCP (processes, snapshots, tool allowlist)
- ``reach/``         where the browser may go: URLs read as a browser does, sign-in hosts
- ``rules/``         declarative per-service rules from ``services.toml``
- ``pilots/``        what proposes the next call: the AI, a recorded playbook, or both
- ``providers/``     the model SDKs (Anthropic, OpenAI and compatible servers)
- ``guarded/``       one guarded browser call (judged, asked, sent, proved) for the loop and serve
- ``orchestrator/``  the loop: a pilot's turns, its ledger, hand-offs
- ``journal/``       every run and turn in SQLite
- ``session/``       a run from request to result: what every front end calls
- ``serve/``         ``subterminator serve``: the guarded browser for other agents over MCP
- ``practice/``      the bundled practice sites (Demoflix, the portal) and their services
- ``results.py``     how a run ended (``TaskResult``) and the exit code that follows
- ``costs.py``       the tokens a model call used and the price table that costs them
- ``errors.py``, ``exit_codes.py``  the error taxonomy and the documented exit codes
- ``settings.py``    the person's config.toml; ``resources.py``: files shipped with the package
- ``command_run.py`` a command's coroutine run with the documented signals and exit codes
- ``inert_text.py``, ``plurals.py``  page text made inert for a terminal; counted words

The front ends, which never import each other:

- ``cli/``           the command line (``subterminator``)
- ``headless/``      plain terminal output and prompts (``--no-tui``)
- ``tui/``           the Textual app, the only place that imports Textual

The benchmark and its gauntlet live beside the package, in ``subterminator_bench/`` of a
source checkout (``python -m subterminator_bench``); the wheel leaves them out.
"""

__version__ = "0.1.0"
