"""The headless front end (``--no-tui``): turn lines on stdout, prompts read from stdin.

- ``reporter``  one greppable line per turn; diagnostics on stderr
- ``gate``      the person at a plain terminal (or a script on stdin): approvals, hand-offs
- ``console``   terminal input read without blocking the event loop
"""
