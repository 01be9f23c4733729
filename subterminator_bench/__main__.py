"""``python -m subterminator_bench``: the benchmark over the practice scenarios."""

from subterminator_bench.command import main

raise SystemExit(main())
