"""``python -m subterminator_bench.rebuilt``: each rebuilt flow's honest run, one line each."""

from subterminator_bench.rebuilt.report import main

raise SystemExit(main())
