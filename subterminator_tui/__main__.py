"""``python -m subterminator_tui``: the same as the ``subterminator`` command."""

from subterminator_tui.cli.main import main

raise SystemExit(main())
