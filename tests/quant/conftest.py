"""pytest configuration of the quantization import suite (tests/quant).

Environment (set by the CTest registration in tests/quant/CMakeLists.txt): TICO_RUN (the
tico-run under test) and TICO_SOURCE_DIR (for configs/pipelines/default.yaml). The tool
fixtures are the e2e suite's (tests/e2e/harness.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from harness import pipeline, require_working_loadgroup, source_dir, tico_circle, tico_run  # noqa: E402,F401


def pytest_configure(config) -> None:
    # torch.export.load in torch 2.13 triggers this deprecation inside torch's own pytree code.
    config.addinivalue_line("filterwarnings", "ignore:.*isinstance\\(treespec, LeafSpec\\).*:FutureWarning")
    config.addinivalue_line("filterwarnings", "ignore::DeprecationWarning")
    config.addinivalue_line("filterwarnings", "ignore::UserWarning")


def pytest_collection_finish(session: pytest.Session) -> None:
    require_working_loadgroup(session)
