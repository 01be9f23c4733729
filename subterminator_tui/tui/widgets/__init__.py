"""The app's widgets.

- ``run_header``     service, pilot or model, turn, elapsed time, tokens and cost
- ``turn_log``       one row per turn; a selected row shows its page and arguments
- ``snapshot_tree``  the accessibility snapshot as a searchable tree
- ``url_bar``        the current or selected page, and whether its domain is allowed
- ``arguments``      the pending or selected call's arguments
- ``live_page``, ``preview``  the viewport as it is now, and a screenshot, in the terminal
- ``key_hints``      a modal's key line, from its active bindings
"""
