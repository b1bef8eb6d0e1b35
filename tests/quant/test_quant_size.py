"""Size of a Circle file with 4-bit weights against the float conversion (issue 12).

``fq_mlp4x256_uint8_pc_uint4w`` of quant_models.py (four fake-quantized 256 x 256 linear
layers, uint8 activations, per-channel weights in the uint4 range) and the float model it was
made from (the same four nn.Linear) are both converted by tico-run with the default pipeline.
Asserted: every weight of the quantized file is a UINT4 constant packed two per byte, so the
packed weight bytes are exactly 1/8 of the float file's float32 weight bytes; what else the
file holds is accounted for: the constants (weights, int32 biases), the quantization
parameters (a float32 scale and an int64 zero point per channel, for weights and biases) and
under 8 KB of structure (operators, tensors, names). The quantized file runs on the built-in
runtime with an SQNR against the float model within MAX_SQNR_LOSS_DB of the fake-quantized
model's. ``TICO_QUANT_SIZE_REPORT=file.json`` writes the figures.
"""

from __future__ import annotations

import json
import os

import torch

from harness import require_success, run_interpreter, run_tico
from measure import MAX_SQNR_LOSS_DB, export_case, max_steps, output_scales, read_circle, sqnr_db
from quant_models import SIZE_CASE as CASE
from quant_models import float_reference


def test_uint4_weights_are_an_eighth_of_float32(tmp_path, tico_run, tico_circle, pipeline):
    exported = export_case(CASE, tmp_path / "quantized")
    quantized = tmp_path / "quantized.circle"
    require_success(run_tico(tico_run, ["--pipeline", str(pipeline), str(exported.pt2), "-o", str(quantized)]),
                    "conversion of the quantized model")

    torch.manual_seed(0)
    module, inputs = CASE.build()
    reference = float_reference(module).forward
    assert isinstance(reference, torch.nn.Module)
    with torch.no_grad():
        program = torch.export.export(reference, inputs)
    float_pt2, float_circle = tmp_path / "float.pt2", tmp_path / "float.circle"
    torch.export.save(program, str(float_pt2))
    require_success(run_tico(tico_run, ["--pipeline", str(pipeline), str(float_pt2), "-o", str(float_circle)]),
                    "conversion of the float model")

    q, f = read_circle(quantized), read_circle(float_circle)
    weights_q = [t for t in q.tensors if t.is_constant and len(t.shape) == 2]
    weights_f = [t for t in f.tensors if t.is_constant and len(t.shape) == 2]
    assert len(weights_q) == len(weights_f) == 4
    assert all(t.type == "UINT4" and t.quant is not None and len(t.quant.scale) == t.shape[0] for t in weights_q)
    assert all(t.type == "FLOAT32" for t in weights_f)
    packed = sum(len(t.data) for t in weights_q)
    float_bytes = sum(len(t.data) for t in weights_f)
    elements = sum(t.shape[0] * t.shape[1] for t in weights_q)
    assert packed == (elements + 1) // 2 * 1 and float_bytes == 4 * elements
    qparam_bytes = sum(4 * len(t.quant.scale) + 8 * len(t.quant.zero_point) for t in q.tensors if t.quant is not None)
    structure = q.size - sum(q.constant_bytes().values()) - qparam_bytes
    figures = {"model": CASE.name, "float_file": f.size, "quantized_file": q.size,
               "qparam_bytes": qparam_bytes, "structure_bytes": structure,
               "file_ratio": q.size / f.size, "weight_bytes_uint4": packed, "weight_bytes_float32": float_bytes,
               "weight_ratio": packed / float_bytes, "constant_bytes_quantized": q.constant_bytes(),
               "constant_bytes_float": f.constant_bytes()}
    # The file also computes what the program says: its SQNR against the float model is within
    # MAX_SQNR_LOSS_DB of the fake-quantized model's (as test_quant_convert.py asserts per model).
    run, outputs = run_interpreter(tico_circle, quantized, exported.inputs, tmp_path / "run")
    require_success(run, "built-in runtime on the quantized model")
    figures.update({"max_steps": max_steps(exported.fake_quant, outputs, output_scales(q)),
                    "sqnr_vs_float": sqnr_db(exported.float, outputs),
                    "sqnr_fake_quant_vs_float": sqnr_db(exported.float, exported.fake_quant),
                    "sqnr_vs_fake_quant": sqnr_db(exported.fake_quant, outputs)})
    if report := os.environ.get("TICO_QUANT_SIZE_REPORT"):
        with open(report, "w", encoding="utf-8") as out:
            json.dump(figures, out)
    print(json.dumps(figures))
    assert packed * 8 == float_bytes, figures
    assert 0 < structure < 8192, figures
    assert figures["sqnr_fake_quant_vs_float"] - figures["sqnr_vs_float"] <= MAX_SQNR_LOSS_DB, figures
