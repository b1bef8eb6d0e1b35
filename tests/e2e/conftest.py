"""pytest configuration for the e2e suite: tool locations and a per-runtime summary.

Environment (set by the CTest registration in tests/e2e/CMakeLists.txt):
  TICO_RUN         path of the tico-run binary under test
  TICO_CIRCLE      path of the tico-circle binary (its ``run`` command drives the
                   built-in interpreter, the suite's second runtime)
  TICO_SOURCE_DIR  repository root (for configs/pipelines/default.yaml)

Tests that only exercise the torch side (``-k export_only``) need neither.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict

import pytest

# The tool fixtures live in harness.py, shared with the real-model suite (tests/models).
from harness import pipeline, require_working_loadgroup, source_dir, tico_circle, tico_run  # noqa: F401

# Which runtime or concern each test function checks, for the closing summary.
RUNTIME_OF_TEST = {
    "test_export_only": "torch export/save/load round trip",
    "test_circle_structure": "Circle structure (circle_schema)",
    "test_onert": "onert parity",
    "test_evaluator_frontend": "evaluator after frontend",
    "test_evaluator_pipeline": "evaluator after ATen stages",
    "test_interpreter": "interpreter parity (tico-circle run)",
    "test_op_sweep_entry": "op sweep entries unchanged (op_sweep_status.json)",
}
OTHER_RUNTIME = "harness and error handling"


def pytest_configure(config: pytest.Config) -> None:
    # torch.export.load in torch 2.13 triggers this deprecation inside torch's
    # own pytree code; it says nothing about the converter, so keep the log clean.
    config.addinivalue_line("filterwarnings", "ignore:.*isinstance\\(treespec, LeafSpec\\).*:FutureWarning")


# ---------------------------------------------------------------------------
# Summary: outcome counts per runtime, printed after pytest's own summary.
# ---------------------------------------------------------------------------

_outcomes: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))


def _runtime(nodeid: str) -> str:
    function = nodeid.split("::")[-1].split("[")[0]
    return RUNTIME_OF_TEST.get(function, OTHER_RUNTIME)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    # One outcome per test: the call phase, or setup when it failed or skipped.
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            outcome = "xpassed" if report.passed else "xfailed"
        else:
            outcome = report.outcome
        runtime = _runtime(report.nodeid)
        name = report.nodeid.split("::")[-1]
        # Per-runtime groups list the case id only; the catch-all group keeps the test name.
        case = name.split("[")[-1].rstrip("]") if runtime != OTHER_RUNTIME and "[" in name else name
        _outcomes[runtime][outcome].append(case)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _outcomes:
        return
    write = terminalreporter.write_line
    terminalreporter.section("e2e summary per runtime")
    order = list(RUNTIME_OF_TEST.values()) + [OTHER_RUNTIME]
    for runtime in order:
        if runtime not in _outcomes:
            continue
        counts = _outcomes[runtime]
        total = sum(len(v) for v in counts.values())
        parts = ", ".join(f"{len(counts[k])} {k}" for k in ("passed", "failed", "xfailed", "xpassed", "skipped") if counts[k])
        write(f"{runtime}: {len(counts['passed'])}/{total} cases passed ({parts})")
        if runtime != OTHER_RUNTIME:
            # A case id is "<Module>-<variant>"; a module passes when all its variants do.
            modules_seen = {case.rsplit("-", 1)[0] for cases in counts.values() for case in cases}
            not_passing = {case.rsplit("-", 1)[0] for k, cases in counts.items() if k != "passed" for case in cases}
            write(f"    modules passing in every saved form: {len(modules_seen - not_passing)}/{len(modules_seen)}")
        for outcome in ("failed", "xfailed", "xpassed", "skipped"):
            if counts[outcome]:
                listing = textwrap.wrap(" ".join(sorted(counts[outcome])), width=96, break_on_hyphens=False)
                write(f"    {outcome}:")
                for line in listing:
                    write(f"        {line}")


def pytest_collection_finish(session: pytest.Session) -> None:
    require_working_loadgroup(session)
