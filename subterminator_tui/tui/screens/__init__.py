"""Modal and full screens of the app.

- ``question``      the base of every screen that asks and waits for a key
- ``checkpoint``    an irreversible step waits for y, n or guidance
- ``handoff``       sign-in, code or CAPTCHA, done by the person
- ``quit``          asked before a running run (or the server's sessions) stops
- ``end``, ``error``  how the run ended, or failed, and the exit code
- ``help``          the keys of the screen in front of you
- ``sign_in_path``  where the operator saves or loads a session's sign-in
"""
