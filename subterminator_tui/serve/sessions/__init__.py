"""One agent's named browser session, and every session of the server.

- ``browser_session`` ``BrowserSession``: a lazy guarded browser, its journal run, one call
                      at a time through the guarded-call pipeline
- ``held_calls``      a call held for the operator, sent only once approved
- ``registry``        every session keyed by (principal, name), with limits and idle timeouts
- ``lazy_browser``    the browser started on demand, its profile and last page kept
- ``sign_ins``        the operator's save and load of a session's sign-in
- ``hand_offs``       sign-in, code and CAPTCHA pages: an agent may only look
- ``page_changes``    a change counter the live view awaits
- ``verification``    the ``verified`` flag, on the same evidence as a run's success
- ``held_requests``   the session's request gate: requests the page sends unasked
"""
