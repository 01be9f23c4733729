"""Reading the corpus files and the benchmark scripts the corpus tests check.

The training and held-out commit tests read the same kind of file (a list of ``case``
tables) and load the same report script (benchmarks/ is not a package).
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any


def load_module(path: Path, name: str) -> ModuleType:
    """The module in ``path``, loaded under ``name`` (benchmarks and tests are not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def toml_cases(path: Path) -> list[dict[str, Any]]:
    """Every ``case`` table of a corpus file, which holds nothing else."""
    with path.open("rb") as file:
        data = tomllib.load(file)
    assert set(data) == {"case"}
    found: list[dict[str, Any]] = data["case"]
    return found
