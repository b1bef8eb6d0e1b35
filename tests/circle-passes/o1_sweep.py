"""Sweep: every e2e case, converted with and without the Circle O1 stages, run on onert.

Not collected by pytest (a manual measurement, ~5 minutes): for each case of
tests/e2e (``modules.MODULES``) it exports the module with its example inputs, converts it
with ``default.yaml`` and with ``default.yaml`` + the stages of ``circle-o1.yaml``, runs both
models on onert with the same inputs, and reports per case the operator counts and the largest
``|o1 - base| / (1 + |base|)``. When the two disagree by more than 1e-6 it also compares both
with PyTorch eager, so a base model that onert computes wrongly is told apart from a pass bug.

    TICO_RUN=<build>/bin/tico-run python3 tests/circle-passes/o1_sweep.py [WORKDIR]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import torch
import yaml
from circle_schema.v0_10.circle.Model import ModelT
from onert import infer

SOURCE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE / "tests" / "e2e"))
import modules  # noqa: E402,F401  (registers every case)
from case_registry import MODULES, build_module  # noqa: E402

TOLERANCE = 1e-6


def convert(tico_run: str, manifest: Path, pt2: Path, out: Path) -> tuple[bool, str]:
    done = subprocess.run([tico_run, "--pipeline", str(manifest), str(pt2), "-o", str(out)],
                          capture_output=True, text=True, timeout=300)
    return done.returncode == 0, done.stderr[-400:]


def operator_count(path: Path) -> int:
    model = ModelT.InitFromPackedBuf(path.read_bytes(), 0)
    return sum(len(g.operators or []) for g in model.subgraphs)


def difference(actual: list[np.ndarray], expected: list[np.ndarray]) -> float:
    worst = 0.0
    for a, e in zip(actual, expected):
        a, e = np.asarray(a), np.asarray(e)
        if a.shape != e.shape:
            return float("inf")
        if a.size == 0:
            continue
        if a.dtype.kind != "f":
            worst = max(worst, 0.0 if np.array_equal(a, e) else float("inf"))
            continue
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        same_nan = np.isnan(a64) == np.isnan(e64)
        if not same_nan.all():
            return float("inf")
        finite = ~np.isnan(e64)
        if finite.any():
            worst = max(worst, float(np.max(np.abs(a64[finite] - e64[finite]) / (1.0 + np.abs(e64[finite])))))
    return worst


def main() -> int:
    warnings.filterwarnings("ignore")
    tico_run = os.environ.get("TICO_RUN")
    if not tico_run:
        print("set TICO_RUN to the tico-run binary", file=sys.stderr)
        return 2
    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="o1-sweep-"))
    work.mkdir(parents=True, exist_ok=True)
    default = SOURCE / "configs" / "pipelines" / "default.yaml"
    combined = yaml.safe_load(default.read_text())
    # The preset's own lower stage stands for the one the default pipeline has already.
    combined["stages"] = list(combined.get("stages") or []) + [
        s for s in yaml.safe_load((SOURCE / "configs" / "pipelines" / "circle-o1.yaml").read_text())["stages"]
        if s.get("kind") != "lower"]
    o1 = work / "default-o1.yaml"
    o1.write_text(yaml.safe_dump(combined, sort_keys=False))

    counts = dict(cases=0, exported=0, base_converted=0, base_runs=0, compared=0, within=0)
    problems: list[str] = []
    ops_before = ops_after = 0
    worst = 0.0
    for name in sorted(MODULES):
        counts["cases"] += 1
        try:
            module = build_module(name)
            args, kwargs = module.get_example_inputs()
            pt2 = work / f"{name}.pt2"
            torch.export.save(torch.export.export(module, args, kwargs), str(pt2))
        except Exception:  # export gaps are the e2e suite's business
            continue
        counts["exported"] += 1
        base, optimized = work / f"{name}.base.circle", work / f"{name}.o1.circle"
        if not convert(tico_run, default, pt2, base)[0]:
            continue
        counts["base_converted"] += 1
        ok, error = convert(tico_run, o1, pt2, optimized)
        if not ok:
            problems.append(f"{name}: O1 conversion failed: {error}")
            continue
        inputs = [np.ascontiguousarray(t.numpy()) for t in torch.utils._pytree.tree_leaves((args, kwargs))
                  if isinstance(t, torch.Tensor)]
        try:
            before = [np.asarray(o) for o in infer.session(str(base)).infer(inputs)]
        except Exception:
            continue  # onert cannot run the base model either
        counts["base_runs"] += 1
        try:
            after = [np.asarray(o) for o in infer.session(str(optimized)).infer(inputs)]
        except Exception as error:
            problems.append(f"{name}: onert rejects the O1 model: {error}")
            continue
        counts["compared"] += 1
        ops_before += operator_count(base)
        ops_after += operator_count(optimized)
        diff = difference(after, before)
        if diff <= TOLERANCE:
            counts["within"] += 1
            worst = max(worst, diff)
        else:
            with torch.no_grad():
                eager = torch.utils._pytree.tree_leaves(module(*args, **kwargs))
            eager = [e.numpy() for e in eager]
            problems.append(f"{name}: O1 vs base {diff:.3g}; vs PyTorch: base {difference(before, eager):.3g}, "
                            f"O1 {difference(after, eager):.3g}")
        print(f"{name}: ops {operator_count(base)} -> {operator_count(optimized)}, diff {diff:.3g}", flush=True)
    print(f"\n{counts}\noperators {ops_before} -> {ops_after}; worst difference within tolerance {worst:.3g}")
    for p in problems:
        print("  " + p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
