"""The Textual app: watch the pilot work, approve irreversible steps from the keyboard.

The only package that imports Textual. It runs the same orchestrator as the
headless front end, in an async worker, and implements the same gate and
reporter interfaces.
"""
