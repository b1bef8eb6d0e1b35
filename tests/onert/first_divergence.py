"""Finds the first operator where onert and the built-in interpreter disagree on a Circle model.

A diagnosis script for "onert returns wrong values" (not a test). It first runs the whole model
as it is and with ``isolate-read-outputs`` (onert 0.2 reuses the memory of a model output that
an operator also reads once that reader has run, and fuses an activation reading it into its
producer): when only the plain model disagrees, that is the cause. Otherwise it cuts prefixes of
the model with ``tico-circle extract --ops 0-K`` (whose outputs are every tensor the prefix
computes that later operators still read, so they need ``isolate-read-outputs`` too), runs each
on onert and on ``tico-circle run``, and bisects for the smallest K whose outputs disagree
beyond the tolerance. It prints that operator with its operands, shapes and options, and keeps
the prefixes with ``--keep``.

    python tests/onert/first_divergence.py model.circle in0.npy [in1.npy ...] --tico-circle build/bin/tico-circle

The inputs are given in the model's input order (the e2e and model suites save them as
``interpreter-0/in*.npy``).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
from circle_schema.v0_10.circle.Model import ModelT

OP_NAMES = {code: name for name, code in vars(BuiltinOperator).items() if not name.startswith("_")}


def load(path: Path) -> ModelT:
    return ModelT.InitFromPackedBuf(path.read_bytes(), 0)


def name_of(tensor) -> str:
    return tensor.name.decode() if isinstance(tensor.name, bytes) else str(tensor.name)


def opname(model: ModelT, op) -> str:
    code = model.operatorCodes[op.opcodeIndex]
    full = code.builtinCode if code.builtinCode < 0 else max(code.builtinCode, code.deprecatedBuiltinCode)
    return OP_NAMES.get(full, str(full))


def run_onert(path: Path, feeds: list[np.ndarray]) -> list[np.ndarray] | str:
    from onert import infer

    try:
        session = infer.session(str(path))
        return [np.array(o) for o in session.infer([f.copy() for f in feeds])]
    except Exception as error:  # a refusal is a disagreement too
        return f"onert failed: {error}"


def run_interpreter(tool: Path, path: Path, feeds: list[np.ndarray], work: Path) -> list[np.ndarray]:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    command = [str(tool), "run", str(path), "--output-dir", str(work / "out")]
    for i, feed in enumerate(feeds):
        np.save(work / f"in{i}.npy", feed)
        command += ["--input", str(work / f"in{i}.npy")]
    subprocess.run(command, check=True, capture_output=True, text=True)
    outputs = []
    while (work / "out" / f"out{len(outputs)}.npy").is_file():
        outputs.append(np.load(work / "out" / f"out{len(outputs)}.npy"))
    return outputs


class Bisector:
    def __init__(self, model_path: Path, feeds: list[np.ndarray], tool: Path, tolerance: float, work: Path, errors_only: bool = False):
        self.errors_only = errors_only
        self.model_path = model_path
        self.model = load(model_path)
        graph = self.model.subgraphs[0]
        self.feed_by_name = {name_of(graph.tensors[int(t)]): feed for t, feed in zip(graph.inputs, feeds)}
        self.tool = tool
        self.tolerance = tolerance
        self.work = work
        self.operator_count = len(graph.operators)

    def prefix(self, k: int) -> Path:
        raw = self.work / f"prefix-{k}.raw.circle"
        part = self.work / f"prefix-{k}.circle"
        subprocess.run([str(self.tool), "extract", str(self.model_path), "-o", str(raw), "--ops", f"0-{k}"], check=True, capture_output=True)
        # The copies isolate-read-outputs adds may be int64 / bool TRANSPOSEs: carried too.
        subprocess.run([str(self.tool), "optimize", str(raw), "-o", str(part), "--passes", "isolate-read-outputs,onert-type-carriers", "--strategy", "once"], check=True, capture_output=True)
        return part

    def disagreement(self, k: int) -> str | None:
        return self.compare(self.prefix(k))

    def whole_model_verdicts(self) -> tuple[str | None, str | None]:
        """(plain model, model with isolate-read-outputs) disagreements."""
        isolated = self.work / "isolated.circle"
        subprocess.run([str(self.tool), "optimize", str(self.model_path), "-o", str(isolated), "--passes", "isolate-read-outputs", "--strategy", "once"], check=True, capture_output=True)
        return self.compare(self.model_path), self.compare(isolated)

    def compare(self, part: Path) -> str | None:
        graph = load(part).subgraphs[0]
        feeds = [self.feed_by_name[name_of(graph.tensors[int(t)])] for t in graph.inputs]
        onert = run_onert(part, feeds)
        if isinstance(onert, str):
            return onert
        if self.errors_only:
            return None
        reference = run_interpreter(self.tool, part, feeds, self.work / "interp")
        for position, (a, b) in enumerate(zip(onert, reference)):
            name = name_of(graph.tensors[int(graph.outputs[position])])
            if a.shape != b.shape:
                return f"output {name}: shape {a.shape} on onert, {b.shape} on the interpreter"
            if b.dtype.kind == "f":
                worst = float(np.max(np.abs(a.astype(np.float64) - b))) if b.size else 0.0
                if not np.isfinite(worst) or worst > self.tolerance * (1 + float(np.max(np.abs(b))) if b.size else 1):
                    return f"output {name}: max |onert - interpreter| = {worst:.3g}"
            elif not np.array_equal(a, b):
                return f"output {name}: {int(np.sum(a != b))} elements differ"
        return None

    def first(self) -> tuple[int, str] | None:
        last = self.operator_count - 1
        verdict = self.disagreement(last)
        if verdict is None:
            return None
        low, high, high_verdict = 0, last, verdict  # high disagrees; find the smallest such K
        while low < high:
            mid = (low + high) // 2
            verdict = self.disagreement(mid)
            if verdict is None:
                low = mid + 1
            else:
                high, high_verdict = mid, verdict
        return high, high_verdict

    def describe(self, k: int) -> str:
        graph = self.model.subgraphs[0]
        op = graph.operators[k]

        def tensor(t: int) -> str:
            if t < 0:
                return "-"
            x = graph.tensors[t]
            kind = "const " if self.model.buffers[x.buffer].data is not None and len(self.model.buffers[x.buffer].data) else ""
            return f"{kind}{name_of(x)} {list(x.shape)}"

        options = op.builtinOptions.__dict__ if op.builtinOptions is not None else {}
        return (
            f"operator {k} {opname(self.model, op)} {options}\n"
            f"  inputs:  {', '.join(tensor(int(t)) for t in op.inputs)}\n"
            f"  outputs: {', '.join(tensor(int(t)) for t in op.outputs)}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path)
    parser.add_argument("inputs", type=Path, nargs="*")
    parser.add_argument("--tico-circle", type=Path, required=True)
    parser.add_argument("--tolerance", type=float, default=1e-4, help="relative to the reference's magnitude")
    parser.add_argument("--keep", type=Path, help="directory for the prefixes (default: a temporary one)")
    parser.add_argument("--errors-only", action="store_true", help="look for the first prefix onert refuses (no interpreter run)")
    args = parser.parse_args()
    feeds = [np.load(p) for p in args.inputs]
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        bisector = Bisector(args.model, feeds, args.tico_circle, args.tolerance, work, args.errors_only)
        plain, isolated = bisector.whole_model_verdicts()
        if plain is not None and isolated is None:
            print(f"the model disagrees ({plain}) only while a model output is also read by an operator: "
                  "onert 0.2 reuses such an output's memory; isolate-read-outputs fixes it")
            return 1
        found = bisector.first()
        if found is None:
            print("onert and the interpreter agree on every output")
            return 0
        k, verdict = found
        print(f"first disagreement after operator {k}: {verdict}")
        print(bisector.describe(k))
        if k > 0:
            print("preceding operator:\n" + bisector.describe(k - 1))
    return 1


if __name__ == "__main__":
    sys.exit(main())
