"""The browser: one guarded Playwright MCP session on a real Chromium, and what keeps it safe.

The gateway and what it holds:

- ``gateway.py``: :class:`BrowserGateway`, the guarded page: allowlisted, checked
  calls, each answered with the fresh page; restarts that never repeat an action.
- ``mcp_process.py``: the Playwright MCP process the gateway holds (start,
  watchdog, stop, the queue to the MCP client's own task).
- ``sign_in.py``: sign-ins kept beside the profile and restored (``SignInKeeper``),
  and a saved sign-in narrowed to one service's domains.
- ``page_capture.py``: screenshots saved in the run's folder, JPEG frames for a live
  view (``LiveFrames``, the interface a front end's live view sees).
- ``inspection.py``, ``seen_text.py``: what SubTerminator's own fixed functions read
  from the DOM (the target's facts, the text a person can see).
- ``console_messages.py``: the page's console, read only when it can have changed.
- ``dialogs.py``: native dialogs (alerts acknowledged, a confirm answered first).
- ``answers.py``: Playwright MCP's answers and errors in words.
- ``restart_gate.py``: who decides whether a dead server may be restarted.

Pages and tools:

- ``snapshot.py``: the page as a :class:`NormalizedSnapshot`; ``calls.py``: a pending
  call and the elements it targets; ``tools.py``: the allowlist and the model's tools.

Starting the browser, and no orphans:

- ``launch.py``: the command line, environment and per-run folder; ``node.py``: Node
  and the pinned package; ``discovery.py``: which Chromium; ``remote.py``: a browser
  elsewhere; ``processes.py``: the processes behind a profile; ``profile_lock.py``:
  Chromium's profile lock.

What the browser may reach:

- ``hardening.py``: the browser's launch switches, the socket-refusing extension and
  the profile's preferences (no way out but the proxy);
- ``private_devtools.py``: the DevTools endpoint behind a Unix socket only the person
  may open, the browser in a network namespace started by ``namespace_launcher.py`` (a
  stdlib-only script);
- ``devtools_session.py``: our own DevTools session (its endpoint, every target set up
  before it runs, one deadline-bounded read of a frame), and its clients:
  ``interception.py``: every request paused, judged, sent or failed;
  ``typed_values.py``: what is typed into the page's fields, learned from an isolated
  world of ours; ``playwright_worlds.py``: the guard's read by ref in Playwright's
  utility world; ``page_links.py``: every link and form, all frames;
  ``egress/``: the per-run proxy that keeps the browser to the service's addresses.
"""
