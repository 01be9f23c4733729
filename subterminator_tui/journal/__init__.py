"""Every run, turn and irreversible step in one SQLite database (apsw, WAL).

- ``store``       ``Journal``: runs, turns and checks, on top of the two below
- ``steps``       an irreversible step, fact by fact, and its evidence before and after
- ``connection``  the database opened with clear errors; one error for every failed write
- ``schema``      the tables, the schema version and the migrations between versions
- ``rows``        the rows as the views and the loop read them
- ``request_log`` every request that changed, or could change, something at the service
- ``call_log``    serve's call log: one row per served call, its console messages, cursors
- ``processes``   which process ran a run, so an interrupted run is told from a live one
"""
