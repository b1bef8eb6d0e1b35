"""The onert portability passes on every cell of the dtype matrix.

Each one-operator model of ``dtype_matrix.py`` (built with ``circle_schema``, independent of
tico's writer) goes through ``tico-circle optimize --passes onert-op-forms,onert-type-carriers``
and both versions run on onert:

* the cells listed in ``FIXED`` fail on onert before the passes and must run and match the NumPy
  reference after them (on onert and on the built-in interpreter);
* every other cell must keep its onert status (a cell that runs keeps running with the same
  values; a cell the passes leave alone stays refused) -- so a pass that starts fixing more must
  list it here, and one that breaks a working cell fails;
* ``test_narrowing_is_exact_only_in_int32_range`` shows the documented limit of the int64 -> int32
  carrier: values beyond int32 come out wrong, and ``assume_int64_in_int32_range=false`` leaves
  int64 operators alone.

float16 and int16 cells are left out: onert runs nothing in float16 and crashes on int16
tensors, so the passes cannot help there (docs/onert.md).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

import dtype_matrix as dm  # noqa: E402
from harness import run_interpreter, tico_circle  # noqa: E402,F401

PASSES = "onert-op-forms,onert-type-carriers"
I64, I32, I8, U8, BOOL, F32 = "int64", "int32", "int8", "uint8", "bool", "float32"

# Cells (row -> types) the passes make onert run.
FIXED: dict[str, set[str]] = {
    "GATHER (indices i32)": {I64},
    "GATHER (indices i64)": {I64},
    "TRANSPOSE": {I64, BOOL},
    "SLICE": {I64, I32, BOOL},
    "STRIDED_SLICE": {U8, BOOL},
    "CONCATENATION": {BOOL},
    "PACK": {I64, U8, BOOL},
    "UNPACK": {I64, U8, BOOL},
    "SPLIT": {BOOL},
    "SPLIT_V": {F32, I64, I32, U8, BOOL},
    "TILE": {I64, I32, I8, U8, BOOL},
    "BROADCAST_TO": {I64, U8, BOOL},
    "REVERSE_V2": {I64, I32, U8, BOOL},
    "MIRROR_PAD": {F32, I64, I32, U8, BOOL},
    "ZEROS_LIKE": {I64, U8, BOOL},
    "FILL": {U8, BOOL},
    "SELECT_V2": {I64, I32, BOOL},
    "SELECT_V2 (broadcast)": {I64, I32, BOOL},
    "MAXIMUM": {I64, I32},
    "MAXIMUM (broadcast)": {I64, I32},
    "MINIMUM": {I64},
    "MINIMUM (broadcast)": {I64},
    "FLOOR_DIV": {I64},
    "FLOOR_MOD": {I32},
    "SUM": {I64},
    "REDUCE_MAX": {I64, U8},
    "REDUCE_PROD": {I64},
    "REDUCE_MIN": {F32, I64, I32},
    "ARG_MAX → i32": {I64},
    "ARG_MAX → i64": {I64},
    "ARG_MIN → i32": {I64},
    "ARG_MIN → i64": {I64},
    "RANGE": {I64},
    "CUMSUM": {I64, I32},
    "ABS": {I64, I32},
    "RMS_NORM (rank 2)": {F32},
    "BATCH_MATMUL (constant lhs)": {F32},
    "CEIL": {F32},
    "HARD_SWISH": {F32},
    "INSTANCE_NORM": {F32},
    "RELU_N1_TO_1": {F32},
    "PRELU": {F32},
    "RESIZE_NEAREST_NEIGHBOR": {F32},
    "GATHER_ND (indices i32)": {F32, I64, I32, U8, BOOL},
    "GATHER_ND (indices i64)": {F32, I64, I32, U8, BOOL},
}

CASES = [c for c in dm.all_cases(wide_int64=False) if c.column not in ("float16", "int16")]


def run_single(directory: Path) -> dict:
    """case-0 of `directory` on onert, in a child process."""
    return dm.run_directory(directory, 1)[0]


def optimize(tool: Path, source: Path, target: Path, passes: str = PASSES) -> subprocess.CompletedProcess:
    return subprocess.run([str(tool), "optimize", str(source), "-o", str(target), "--passes", passes, "--strategy", "once"], capture_output=True, text=True)


@dataclass
class Runs:
    before: Path
    after: Path
    onert_before: dict[int, dict]
    onert_after: dict[int, dict]
    logs: dict[int, str]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tico_circle: Path) -> Runs:
    """Every case written, rewritten by the passes and run on onert before and after (in
    batches of worker processes: one process per case would take most of the test's time)."""
    before = tmp_path_factory.mktemp("before")
    after = tmp_path_factory.mktemp("after")
    dm.write_cases(CASES, before)
    logs = {}
    for index in range(len(CASES)):
        (after / f"case-{index}.npz").write_bytes((before / f"case-{index}.npz").read_bytes())
        run = optimize(tico_circle, before / f"case-{index}.circle", after / f"case-{index}.circle")
        assert run.returncode == 0, f"{CASES[index].key}: {run.stderr}"
        logs[index] = run.stderr
        if "made no change" in run.stderr:
            # tico's writer lays the file out its own way: run the original bytes.
            (after / f"case-{index}.circle").write_bytes((before / f"case-{index}.circle").read_bytes())
        else:
            assert "changed the model" in run.stderr, run.stderr
    return Runs(before, after, dm.run_directory(before, len(CASES)), dm.run_directory(after, len(CASES)), logs)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c.key for c in CASES])
def test_cell(runs: Runs, tico_circle: Path, tmp_path: Path, index: int):
    case = CASES[index]
    before, after = runs.onert_before[index], runs.onert_after[index]
    changed = "changed the model" in runs.logs[index]
    if case.column in FIXED.get(case.row, set()):
        assert before["status"] != "ok", f"{case.key} already runs on onert: {before}"
        assert after["status"] == "ok", f"{case.key} after the passes: {after}\n{runs.logs[index]}"
    else:
        assert after["status"] == before["status"], f"{case.key}: {before} before the passes, {after} after\n{runs.logs[index]}"
    if not changed:
        return
    # A rewritten model on the built-in interpreter gives the reference values too.
    data = np.load(runs.after / f"case-{index}.npz")
    feeds = [data[k] for k in sorted((k for k in data.files if k.startswith("feed")), key=lambda k: int(k[4:]))]
    expected = [data[k] for k in sorted((k for k in data.files if k.startswith("expected")), key=lambda k: int(k[8:]))]
    interp, outputs = run_interpreter(tico_circle, runs.after / f"case-{index}.circle", feeds, tmp_path / "interpreter")
    assert interp.returncode == 0, interp.describe()
    problem = dm.compare(outputs, expected)
    assert problem is None, f"{case.key} on the interpreter after the passes: {problem}"


def test_every_fixed_cell_exists():
    keys = {(c.row, c.column) for c in CASES}
    missing = [(row, column) for row, columns in FIXED.items() for column in columns if (row, column) not in keys]
    assert not missing, missing


def test_narrowing_is_exact_only_in_int32_range(tico_circle: Path, tmp_path: Path):
    """GATHER on int64 params with values beyond int32: the carrier wraps them (the documented
    assumption), and with the assumption off the operator is left as it is."""
    params = np.array([[3_000_000_000, 1], [-5, 2**40 + 7]], dtype=np.int64)
    indices = np.array([1, 0], dtype=np.int32)
    case = dm.case("GATHER", I64, [dm.inp(params), dm.inp(indices)], [params[indices]], ("GatherOptions", {"axis": 0}))
    dm.write_cases([case], tmp_path)
    narrowed = tmp_path / "narrowed"
    narrowed.mkdir()
    (narrowed / "case-0.npz").write_bytes((tmp_path / "case-0.npz").read_bytes())
    assert optimize(tico_circle, tmp_path / "case-0.circle", narrowed / "case-0.circle").returncode == 0
    result = run_single(narrowed)
    assert result["status"] == "wrong", result  # runs, but 3e9 and 2^40 + 7 do not survive int32
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "case-0.npz").write_bytes((tmp_path / "case-0.npz").read_bytes())
    run = optimize(tico_circle, tmp_path / "case-0.circle", kept / "case-0.circle", "onert-type-carriers{assume_int64_in_int32_range=false}")
    assert run.returncode == 0, run.stderr
    result = run_single(kept)
    assert result["status"] == "error" and "Gather" in result["detail"], result


def test_read_outputs_keep_their_values(tico_circle: Path, tmp_path: Path):
    """onert 0.2 reuses the memory of a model output that an operator also reads once the
    reader has run: y = x + 1; u = y + 1; v = u + 1 returning (y, v) gives v's values for y.
    isolate-read-outputs writes y through a copy nobody reads."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    model = dm.Chain(
        inputs={"x": x},
        constants={"one": np.ones((), np.float32)},
        ops=[("ADD", ["x", "one"], "y", ("AddOptions", {})), ("ADD", ["y", "one"], "u", ("AddOptions", {})), ("ADD", ["u", "one"], "v", ("AddOptions", {}))],
        outputs=["y", "v"],
    )
    plain = tmp_path / "plain"
    plain.mkdir()
    dm.write_chain(model, [x + 1, x + 3], plain)
    result = run_single(plain)
    assert result["status"] == "wrong", f"onert 0.2 is expected to return v's values for y: {result}"
    isolated = tmp_path / "isolated"
    isolated.mkdir()
    (isolated / "case-0.npz").write_bytes((plain / "case-0.npz").read_bytes())
    run = optimize(tico_circle, plain / "case-0.circle", isolated / "case-0.circle", "isolate-read-outputs")
    assert run.returncode == 0 and "changed the model" in run.stderr, run.stderr
    assert run_single(isolated)["status"] == "ok"
