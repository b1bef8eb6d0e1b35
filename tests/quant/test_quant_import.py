"""Quantized programs through tico's import side (docs/quantization.md, "Import and decomposition").

For every model of quant_models.py (fake-quantized modules, torchao PT2E, the original's
quantizer), exported by torch.export and saved as .pt2:

* import: the frontend reads every quantization op, with the counts torch.export recorded;
* decomposition: ``decompose-fake-quantize`` turns each fake-quantize node into a
  quantize/dequantize pair of the granularity it had, qparams read as numbers where they
  are constants, and leaves no fake-quantize node;
* evaluation: the evaluator's output equals eager PyTorch within 1e-6, on the imported graph
  and after the default pipeline's ATen stages before the quantization bundle (decomposition,
  constant folding of weights into integers); after the bundle, values are integer codes.

Conversion to Circle and the run on the built-in runtime are test_quant_convert.py's.
"""

from __future__ import annotations

import collections
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

from harness import ToolRun, require_success, run_tico, to_numpy
from quant_models import QuantCase, all_cases, float_reference, quantization_targets

CASES = all_cases()

# tico's IR prints a node as `%out: type = ns::op.overload(args)`, one with several outputs as
# `%a: t1, %b: t2 = @node ns::op.overload(args)`.
_NODE_OP = re.compile(r"= (?:@\S+ )?([A-Za-z_][A-Za-z0-9_]*::[A-Za-z0-9_]+\.[A-Za-z0-9_]+)\(")


@dataclass
class Prepared:
    case: QuantCase
    directory: Path
    pt2: Path
    program: torch.export.ExportedProgram
    inputs: list[Path]
    expected: list[np.ndarray]
    float_expected: list[np.ndarray] | None = None  # the float model's outputs (measure.py's SQNR)


_prepared: dict[str, Prepared] = {}


def prepare(case: QuantCase, tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """Exports and saves the case once per worker, with its inputs and eager outputs as .npy."""
    if case.name not in _prepared:
        directory = tmp_path_factory.mktemp(case.name)
        program, module, inputs = case.export()
        pt2 = directory / "model.pt2"
        torch.export.save(program, str(pt2))
        with torch.no_grad():
            outputs = module(*inputs)
        outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        paths = []
        for i, tensor in enumerate(inputs):
            paths.append(directory / f"in{i}.npy")
            np.save(paths[-1], to_numpy(tensor))
        _prepared[case.name] = Prepared(case, directory, pt2, program, paths, [to_numpy(t) for t in outputs])
        if reference := float_reference(module):
            floats = reference(*inputs)
            _prepared[case.name].float_expected = [to_numpy(t) for t in (floats if isinstance(floats, (tuple, list)) else (floats,))]
    return _prepared[case.name]


def ops_in_tir(text: str) -> collections.Counter:
    return collections.Counter(_NODE_OP.findall(text))


def quantization_ops(counts: collections.Counter) -> dict[str, int]:
    return {op: n for op, n in counts.items() if "quantize" in op or "fake_quant" in op}


def emit_tir(prepared: Prepared, tico_run: Path, arguments: list[str], label: str) -> str:
    out = prepared.directory / f"{label}.tir"
    run = run_tico(tico_run, [*arguments, "--emit", "tir", "-o", str(out), str(prepared.pt2)])
    require_success(run, f"{label} of {prepared.case.name}")
    return out.read_text()


def params(cases=CASES):
    # One xdist group per model: its tests share one export.
    return [pytest.param(case, id=case.name, marks=pytest.mark.xdist_group(case.name)) for case in cases]


def test_enough_models():
    """The issue asks for at least 20 quantized modules, plus PT2E and the original's quantizer."""
    sources = collections.Counter(case.source for case in CASES)
    assert sources["fake-quant"] >= 20 and sources["pt2e"] >= 2 and sources["tico"] >= 1, sources


@pytest.mark.parametrize("case", params())
def test_import(case: QuantCase, tmp_path_factory, tico_run: Path):
    prepared = prepare(case, tmp_path_factory)
    recorded = dict(quantization_targets(prepared.program))
    assert recorded, f"{case.name}: torch.export recorded no quantization op"
    imported = quantization_ops(ops_in_tir(emit_tir(prepared, tico_run, ["--stop-after", "frontend"], "frontend")))
    assert imported == recorded


def _decomposed_counts(recorded: dict[str, int]) -> dict[str, int]:
    """What decompose-fake-quantize makes of the recorded ops: one pair per fake-quantize node,
    per-tensor qparams as numbers (the .default overloads) since every model's are constants."""
    out: collections.Counter = collections.Counter()
    for op, n in recorded.items():
        if op.startswith("quantized_decomposed::"):
            out[op] += n
            continue
        granularity = "per_channel" if "per_channel" in op else "per_tensor"
        out[f"quantized_decomposed::quantize_{granularity}.default"] += n
        out[f"quantized_decomposed::dequantize_{granularity}.default"] += n
    return dict(out)


@pytest.mark.parametrize("case", params())
def test_decomposition(case: QuantCase, tmp_path_factory, tico_run: Path):
    prepared = prepare(case, tmp_path_factory)
    recorded = dict(quantization_targets(prepared.program))
    after = quantization_ops(ops_in_tir(emit_tir(prepared, tico_run, ["--passes", "decompose-fake-quantize"], "decomposed")))
    assert after == _decomposed_counts(recorded)


def stage_before_quantize(pipeline: Path) -> str:
    """The default pipeline's last ATen stage before its `quantize` stage: after the quantization
    bundle values hold integer codes, which --evaluate refuses."""
    names = [line.split(":", 1)[1].strip() for line in pipeline.read_text().splitlines() if line.startswith("  - name:")]
    return names[names.index("quantize") - 1]


_evaluations: dict[str, tuple[dict[str, list[np.ndarray]], ToolRun]] = {}


def _evaluate(prepared: Prepared, tico_run: Path, pipeline: Path) -> tuple[dict[str, list[np.ndarray]], ToolRun]:
    """The evaluator's outputs after the frontend and before the quantization bundle, from one
    tico-run process (--evaluate-after both; the case's tests share one xdist worker)."""
    name = prepared.case.name
    if name not in _evaluations:
        out_dir = prepared.directory / "eval"
        points = {"frontend": "frontend", "pipeline": stage_before_quantize(pipeline)}
        arguments = ["--pipeline", str(pipeline), "--evaluate"]
        for point in points.values():
            arguments += ["--evaluate-after", point]
        for path in prepared.inputs:
            arguments += ["--input", str(path)]
        run = run_tico(tico_run, [*arguments, "--output-dir", str(out_dir), str(prepared.pt2)])
        require_success(run, f"evaluation of {name}")
        outputs = {
            stage: [np.load(out_dir / point / f"out{i}.npy") for i in range(len(prepared.expected))]
            for stage, point in points.items()
        }
        _evaluations[name] = (outputs, run)
    return _evaluations[name]


@pytest.mark.parametrize("stage", ["frontend", "pipeline"])
@pytest.mark.parametrize("case", params())
def test_evaluator_matches_eager(case: QuantCase, stage: str, tmp_path_factory, tico_run: Path, pipeline: Path):
    prepared = prepare(case, tmp_path_factory)
    outputs, run = _evaluate(prepared, tico_run, pipeline)
    for got, want in zip(outputs[stage], prepared.expected):
        assert got.shape == want.shape and got.dtype == want.dtype, f"{got.shape} {got.dtype} vs {want.shape} {want.dtype}"
        worst = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if got.size else 0.0
        assert worst <= 1e-6, f"{case.name} ({stage}): max |evaluator - eager| = {worst}\n{run.describe()}"
