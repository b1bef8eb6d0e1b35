"""Quantized programs converted end to end (docs/quantization.md, "The quantization bundle").

For every model of quant_models.py (fake-quantized modules, torchao PT2E, the original's
quantizer):

* conversion with the default pipeline succeeds: the ``quantize`` stage folds the
  quantize/dequantize pairs into quantization parameters, and the Circle file verifies clean;
* the file is quantized: every FULLY_CONNECTED / CONV_2D reads and writes quantized tensors,
  its weights are the integer codes the program stored, and the float model input and output
  are converted by one QUANTIZE per input and one DEQUANTIZE per output at the boundary;
* the built-in runtime's output equals the fake-quantized eager PyTorch output within one
  quantization step of the output tensor (the integer kernels round where the float reference
  does not; steps = |circle - eager| / output scale).

``TICO_QUANT_CONVERT_REPORT=file.jsonl`` appends one JSON line per model with the measured
step difference (the table of docs/quantization.md) and measure.py's SQNR and onert figures,
which measure.check_conversion_measures asserts.
"""

from __future__ import annotations

import collections
import json
import os

import numpy as np
import pytest

from harness import require_success, run_interpreter, run_tico
from measure import check_conversion_measures, conversion_measures
from quant_models import QuantCase
from test_quant_import import CASES, params, prepare

# At most this many output steps between the built-in runtime and eager PyTorch (the slack
# covers float32 rounding of the dequantized values: a one-code difference measures 1.000002).
MAX_STEPS = 1.0
SLACK = 1e-3

# Models the bundle does not quantize yet, with the reason (strict check-missing-qparams
# refuses them, naming the float op).
NOT_YET: dict[str, str] = {}


def inspect(tico_circle, circle) -> dict:
    run = run_tico(tico_circle, ["inspect", "--json", "--operators", "--tensors", str(circle)])
    require_success(run, f"tico-circle inspect of {circle}")
    return json.loads(run.stdout)


def output_scales(model: dict) -> list[float]:
    """The scale of the quantized tensor each model output is dequantized from."""
    sg = model["subgraphs"][0]
    producer = {t: op for op in sg["operators"] for t in op["outputs"]}
    scales = []
    for ref in sg["outputs"]:
        op = producer[ref["tensor"]]
        assert op["op"] == "DEQUANTIZE", f"output {ref} is produced by {op['op']}, not DEQUANTIZE"
        scales.append(sg["tensors"][op["inputs"][0]]["quantization"]["scale"][0])
    return scales


@pytest.mark.parametrize("case", params())
def test_convert_quantized_and_run(case: QuantCase, tmp_path_factory, tico_run, tico_circle, pipeline):
    if case.name in NOT_YET:
        pytest.xfail(NOT_YET[case.name])
    prepared = prepare(case, tmp_path_factory)
    circle = prepared.directory / "quantized.circle"
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(prepared.pt2), "-o", str(circle)])
    require_success(run, f"conversion of {case.name}")

    verify = run_tico(tico_circle, ["verify", str(circle)])
    assert verify.returncode == 0, verify.describe()

    model = inspect(tico_circle, circle)
    sg = model["subgraphs"][0]
    ops = collections.Counter(op["op"] for op in sg["operators"])
    # One QUANTIZE per float input and one DEQUANTIZE per output at the boundary; other
    # QUANTIZE operators are requantizes (quantized -> quantized, e.g. a relu between layers).
    boundary = [op for op in sg["operators"] if op["op"] == "QUANTIZE" and sg["tensors"][op["inputs"][0]]["type"] == "FLOAT32"]
    assert len(boundary) == len(sg["inputs"]) and ops["DEQUANTIZE"] == len(sg["outputs"]), f"{case.name}: {dict(ops)}"
    for op in sg["operators"]:
        if op["op"] in ("FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D", "TRANSPOSE_CONV"):
            data = op["inputs"][1:] if op["op"] == "TRANSPOSE_CONV" else op["inputs"]  # not its int32 output_shape
            for t in data + op["outputs"]:
                tensor = sg["tensors"][t]
                assert tensor.get("quantization"), f"{case.name}: {op['op']} tensor {tensor['name']} has no qparams"
    for ref in sg["inputs"] + sg["outputs"]:
        assert ref["type"] == "FLOAT32", f"{case.name}: model interface {ref} is not float32"

    arrays = [np.load(path) for path in prepared.inputs]
    interp, outputs = run_interpreter(tico_circle, circle, arrays, prepared.directory / "interp")
    require_success(interp, f"built-in runtime on {case.name}")
    assert len(outputs) == len(prepared.expected)
    worst_steps = 0.0
    for got, want, scale in zip(outputs, prepared.expected, output_scales(model)):
        assert got.shape == want.shape and got.dtype == want.dtype
        diff = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if got.size else 0.0
        worst_steps = max(worst_steps, diff / scale)
    measures = conversion_measures(prepared.expected, prepared.float_expected, outputs, output_scales(model), circle,
                                   arrays, prepared.directory)  # SQNR and onert (measure.py)
    if report := os.environ.get("TICO_QUANT_CONVERT_REPORT"):
        with open(report, "a", encoding="utf-8") as out:
            out.write(json.dumps({"model": case.name, "source": case.source, "max_steps": worst_steps,
                                  "ops": dict(sorted(ops.items())), **measures}) + "\n")
    print(f"{case.name}: max |circle - eager| = {worst_steps:.3f} steps")
    assert worst_steps <= MAX_STEPS + SLACK, f"{case.name}: {worst_steps:.3f} steps between the built-in runtime and eager"
    check_conversion_measures(case.name, measures)
