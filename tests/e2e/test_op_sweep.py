"""The op sweep stays true: PyTorch's OpInfo database, one classified case per op.

``op_sweep.py`` generates one case per OpInfo of ``op_db`` (and per alias) and classifies it
as pass / gap / bug / out_of_scope; ``op_sweep_status.json`` records the result
(docs/op-sweep.md). These tests fail when the record stops being true:

- ``test_op_sweep_entry``: an entry classified again must give the recorded signature
  (category, out-of-scope sub-category, and per case: status, the operators tico-run has no
  lowering for with their reasons, the stage of a bug). A gap that closes fails as surely as a
  pass that breaks: re-classify the entry (``op_sweep.py --only KEY --write``) and commit the
  file. CI runs a deterministic sample (every ``SAMPLE_STRIDE``-th entry of the file, and every
  entry of the focus family the file marks ``ci``); ``TICO_OP_SWEEP=full`` or
  ``TICO_E2E_EXTENDED=1`` runs every entry (about 20 minutes on two workers);
- ``test_op_sweep_covers_op_db``: the file has exactly the entries op_db has (a PyTorch upgrade
  that adds or renames an OpInfo fails here until the sweep is regenerated);
- ``test_op_sweep_file_is_consistent``: the summary, the deliberate-gap list and the onert-limit list in the file are
  the ones the entries and ``op_sweep.DELIBERATE_GAPS`` give, and every gap of the view / alias /
  convenience family has its reason there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import op_sweep

STATUS = op_sweep.load_status()
RECORDS: dict[str, dict] = STATUS["entries"]

FULL = os.environ.get("TICO_OP_SWEEP") == "full" or os.environ.get("TICO_E2E_EXTENDED") == "1"
# Every SAMPLE_STRIDE-th entry in file (op_db) order: a spread over op families and categories.
SAMPLE_STRIDE = 24
# Focus-family entries CI always re-classifies (the ops issue 27 names).
CI_FOCUS = ("T", "mT", "mH", "alias:adjoint", "reshape_as", "view_as", "expand_as", "addcmul", "addcdiv", "lerp")


def selected_keys() -> list[str]:
    keys = list(RECORDS)
    if FULL:
        return keys
    chosen = {key for position, key in enumerate(keys) if position % SAMPLE_STRIDE == 0}
    chosen.update(key for key in CI_FOCUS if key in RECORDS)
    return [key for key in keys if key in chosen]


@pytest.fixture(scope="session")
def sweep_tools(tico_run: Path, tico_circle: Path, pipeline: Path) -> op_sweep.Tools:
    return op_sweep.Tools(tico_run, tico_circle, pipeline)


@pytest.fixture(scope="session")
def onert_worker():
    worker = op_sweep.OnertWorker()
    yield worker
    worker.close()


@pytest.mark.parametrize("key", selected_keys())
def test_op_sweep_entry(key: str, sweep_tools: op_sweep.Tools, onert_worker, tmp_path: Path):
    entry = op_sweep.entries().get(key)
    assert entry is not None, f"{key} is in {op_sweep.STATUS_FILE.name} but not in this PyTorch's op_db"
    current = op_sweep.classify(entry, sweep_tools, onert_worker, tmp_path)
    recorded = RECORDS[key]
    if op_sweep.signature(current) != op_sweep.signature(recorded):
        pytest.fail(op_sweep.describe_change(key, recorded, current), pytrace=False)


def test_op_sweep_covers_op_db():
    found = list(op_sweep.entries())
    missing = [key for key in found if key not in RECORDS]
    stale = [key for key in RECORDS if key not in op_sweep.entries()]
    assert not missing and not stale, (
        f"op_db and {op_sweep.STATUS_FILE.name} differ: not classified {missing}, no longer in op_db {stale}; "
        "regenerate the file (docs/op-sweep.md)"
    )


def test_op_sweep_file_is_consistent():
    assert STATUS["summary"] == op_sweep.summarize(RECORDS), "the summary is stale: regenerate the file"
    assert STATUS["deliberate"] == op_sweep.DELIBERATE_GAPS, "the deliberate-gap list differs from op_sweep.DELIBERATE_GAPS"
    entries = op_sweep.entries()
    focus_gaps = {key for key, record in RECORDS.items()
                  if key in entries and op_sweep.in_focus(entries[key]) and record["category"] == "gap"}
    unexplained = sorted(focus_gaps - set(op_sweep.DELIBERATE_GAPS))
    assert not unexplained, f"gaps of the view/alias/convenience family without a reason in DELIBERATE_GAPS: {unexplained}"
    not_gaps = sorted(set(op_sweep.DELIBERATE_GAPS) - focus_gaps)
    assert not not_gaps, f"DELIBERATE_GAPS lists entries that are not focus-family gaps (any more): {not_gaps}"
    # A bug is onert's (listed with its reason) or tico's: the built-in runtime and the
    # conversion have none.
    assert STATUS["onert_limits"] == op_sweep.ONERT_LIMITS, "the onert-limit list differs from op_sweep.ONERT_LIMITS"
    onert_only = {key for key, record in RECORDS.items() if record["category"] == "bug"
                  and all(case.get("stage") == "onert" for case in record["cases"].values() if case["status"] == "bug")}
    ours = sorted(key for key, record in RECORDS.items() if record["category"] == "bug" and key not in onert_only)
    assert not ours, f"entries failing in the conversion or on the built-in runtime: {ours}"
    unexplained = sorted(onert_only - set(op_sweep.ONERT_LIMITS))
    assert not unexplained, f"entries failing on onert only without a reason in ONERT_LIMITS: {unexplained}"
    stale = sorted(set(op_sweep.ONERT_LIMITS) - onert_only)
    assert not stale, f"ONERT_LIMITS lists entries that do not fail on onert (any more): {stale}"
