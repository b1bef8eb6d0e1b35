"""pytest configuration of the real-model suite: the e2e suite's tool fixtures and a summary of
converted / matching models per family and runtime."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from harness import pipeline, require_working_loadgroup, source_dir, tico_circle, tico_run  # noqa: E402,F401

import timm_zoo  # noqa: E402
import zoo  # noqa: E402

RUNTIME_OF_TEST = {
    "test_conversion": "converted",
    "test_onert": "onert matches eager",
    "test_interpreter": "interpreter matches eager",
    "test_default_output_is_optimized": "default <= O1",
}

# (family, runtime) -> outcome -> case ids
_outcomes: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("filterwarnings", "ignore:.*isinstance\\(treespec, LeafSpec\\).*:FutureWarning")
    config.addinivalue_line("markers", "timm_zoo: a case of the timm vision zoo (timm_zoo.py); -m timm_zoo runs only those")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if not (report.when == "call" or (report.when == "setup" and not report.passed)):
        return
    function = report.nodeid.split("::")[-1].split("[")[0]
    if function not in RUNTIME_OF_TEST or "[" not in report.nodeid:
        return
    # "test_onert[NAME-VARIANT]@NAME-VARIANT": --dist loadgroup appends the xdist group.
    case_id = report.nodeid.split("[")[-1].split("]")[0]
    name = case_id.rsplit("-", 1)[0]
    if name in zoo.BY_NAME:
        family = zoo.BY_NAME[name].family
    elif name in timm_zoo.BY_NAME:
        family = f"timm/{timm_zoo.BY_NAME[name].kind}"
    else:
        family = "?"
    if hasattr(report, "wasxfail"):
        outcome = "xpassed" if report.passed else "xfailed"
    else:
        outcome = report.outcome
    _outcomes[(family, RUNTIME_OF_TEST[function])][outcome].append(case_id)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _outcomes:
        return
    write = terminalreporter.write_line
    terminalreporter.section("real models per family (case = model x saved form)")
    families = sorted({family for family, _ in _outcomes})
    for family in families:
        parts = []
        for runtime in RUNTIME_OF_TEST.values():
            counts = _outcomes.get((family, runtime))
            if not counts:
                continue
            total = sum(len(v) for v in counts.values())
            parts.append(f"{runtime} {len(counts['passed'])}/{total}")
        write(f"{family:17s} " + "; ".join(parts))
    for (family, runtime), counts in sorted(_outcomes.items()):
        for outcome in ("failed", "xfailed", "xpassed"):
            if counts[outcome]:
                write(f"    {family} / {runtime} {outcome}: {' '.join(sorted(counts[outcome]))}")


def pytest_collection_finish(session: pytest.Session) -> None:
    require_working_loadgroup(session)
