"""The Textual app: watch the pilot work, approve irreversible steps from the keyboard.

The only package that imports Textual. It runs the same orchestrator as the
headless front end, in an async worker, and implements the same gate and
reporter interfaces.

- ``run_app.py``: builds the app the way ``subterminator cancel`` does (keymap
  checked, live frames wired) and prints the ending after it closes.
- ``app.py``: :class:`SubTerminatorApp`, the run's screen; ``bridge.py``: its gate
  (modals) and reporter; ``messages.py``: one message per core event.
- ``operator_console.py``: ``serve --tui``, sessions and the held calls to decide.
- ``home.py``: the subscriptions home (``subterminator`` alone): kept subscriptions and
  every service with a run; cancel, re-check, receipt, add a statement.
- ``actions.py``: every key, declared once; the bindings, ``keymap.py`` (the
  person's keymap checked), the help screen and ``commands.py`` (the command
  palette) derive from it.
- ``questions.py``: one question on screen at a time; ``plain.py``: page text never
  read as markup.
- ``screens/``: checkpoint, hand-off, stop, end, error, help, sign-in path, and
  ``question.py``, the base of the questions.
- ``widgets/``: run header, URL bar, turn log, arguments, snapshot tree, live page,
  screenshot preview, key hints.
"""
