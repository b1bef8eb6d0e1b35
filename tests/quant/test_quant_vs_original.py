"""Our Circle file against the original converter's, for the models of the original's quantizer.

Issue 12's core check. Every ``tico`` case of quant_models.py (``prepare(PTQConfig(...))`` ->
calibrate -> ``convert`` -> ``torch.export``: uint8 MLP and CNN, a three-layer MLP, uint4
weights, int16 activations) is saved once as ``.pt2`` and converted by both converters:
the original's ``tico.convert_from_pt2`` (package ``tico`` 0.3.0) and our ``tico-run`` (default
pipeline). compare_original.py matches the tensors by role and compares them. Asserted:

* the same computation: the compute operators pair up one to one, equal (with equal builtin
  options) or one of the two documented differences, no other;
* the same tensors quantized, with the same parameters (scales within 1e-6 relative, zero
  points and quantized_dimension equal), types and shapes; the same integer weights and biases,
  bit for bit (every constant);
* the same output codes on the built-in runtime, for the same input; and on onert where it
  runs both files (onert 0.2 refuses every file here: uint8 requantize / RELU, UINT4, int16
  FULLY_CONNECTED; the report records why).

The documented differences (compare_original.py): ``interface`` (our float32 model interface
with QUANTIZE / DEQUANTIZE at the boundary; the original's model takes and returns codes),
``relu-as-requantize`` (the original's RELU between two quantized tensors is a requantizing
QUANTIZE in ours) and ``bias-rounding`` (int64 bias codes the original rounds after a float32
division, ours after a double one: ours is the nearest integer to the exact quotient). Each is
asserted with its exact count per model; ``identity-requantize`` (a QUANTIZE between equal
parameters in ours only) must not occur.

``TICO_QUANT_VS_ORIGINAL_REPORT=file.jsonl`` appends one JSON line per model with the counts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compare_original import compare_files, compare_outputs, convert_with_original, explain_bias_rounding
from harness import require_success, run_tico
from measure import export_case, qparams_equal, read_circle
from quant_models import all_cases

CASES = [case for case in all_cases() if case.source == "tico"]

# The documented differences each model must show, exactly: one boundary operator per model
# input and output, one requantize per relu between the original's wrapped layers; no
# identity-requantize (fold-quant-ops removes a quantize that changes no code, as the original).
EXPECTED_EXCEPTIONS = {
    "tico_ptq_mlp": {"interface": 2, "relu-as-requantize": 1},
    "tico_ptq_cnn": {"interface": 2, "relu-as-requantize": 1},
    "tico_ptq_mlp3": {"interface": 2, "relu-as-requantize": 2},
    "tico_ptq_mlp3_uint4w": {"interface": 2, "relu-as-requantize": 2},
    # fc1's bias: one of 32 int64 codes (the quotient -1054979.458 is -1054979.5 in float32).
    "tico_ptq_linear2_int16": {"interface": 2, "bias-rounding": 1},
}


def quantized_io_pipeline(pipeline: Path, directory: Path) -> Path:
    """The default pipeline with quantized-model-io switched on (its entry is written disabled)."""
    text = pipeline.read_text(encoding="utf-8")
    entry = "- name: quantized-model-io"
    start = text.index(entry)
    disabled = text.index("enabled: false", start)
    assert text.count("\n", start, disabled) == 1, "the quantized-model-io entry is not written as expected"
    manifest = directory / "quantized-io.yaml"
    manifest.write_text(text[:disabled] + "enabled: true" + text[disabled + len("enabled: false"):], encoding="utf-8")
    return manifest


def test_every_case_has_its_expected_differences():
    assert sorted(EXPECTED_EXCEPTIONS) == sorted(case.name for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_same_circle_as_original(case, tmp_path, tico_run, tico_circle, pipeline):
    exported = export_case(case, tmp_path)
    ours_path, original_path = tmp_path / "ours.circle", tmp_path / "original.circle"
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(exported.pt2), "-o", str(ours_path)])
    require_success(run, f"our conversion of {case.name}")
    convert_with_original(exported.pt2, original_path)

    result = compare_files(read_circle(ours_path), read_circle(original_path))
    explain_bias_rounding(result, exported.parameters)
    compare_outputs(result, exported.inputs, tico_circle, tmp_path)
    summary = result.summary()
    if report := os.environ.get("TICO_QUANT_VS_ORIGINAL_REPORT"):
        with open(report, "a", encoding="utf-8") as out:
            out.write(json.dumps({"model": case.name, **summary}) + "\n")
    print(f"{case.name}: {json.dumps(summary)}")

    assert not result.problems, f"{case.name}: differences from the original's file:\n" + "\n".join(result.problems)
    assert result.exceptions == EXPECTED_EXCEPTIONS[case.name], result.exceptions
    # Nothing left unpaired: every tensor either file uses in its computation has a partner
    # (constants included), and at least the weights, biases and activations are there.
    assert result.identical_tensors + result.explained_tensors == result.tensors
    assert result.quantized >= 3 * result.ours_ops.count("FULLY_CONNECTED")
    assert result.identical_qparams == result.quantized
    assert result.identical_constants + result.explained_tensors == result.constants
    assert result.original_run_error is None, result.original_run_error
    assert result.outputs_total == sum(x.size for x in exported.fake_quant)
    assert result.outputs_equal == result.outputs_total, f"{case.name}: {result.outputs_equal}/{result.outputs_total} output codes equal"
    # Where onert runs both files, it computes the same codes for both.
    if (onert := result.onert_outputs_equal()) is not None:
        assert onert[0] == onert[1], f"{case.name}: onert gives {onert[0]}/{onert[1]} equal output codes for the two files"


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_quantized_interface_as_original(case, tmp_path, tico_run, tico_circle, pipeline):
    """With quantized-model-io our model takes and returns codes as the original's does: the
    interface difference is gone, the model inputs and outputs have the original's types and
    parameters, the rest of the comparison is unchanged."""
    exported = export_case(case, tmp_path)
    ours_path, original_path = tmp_path / "ours.circle", tmp_path / "original.circle"
    manifest = quantized_io_pipeline(pipeline, tmp_path)
    run = run_tico(tico_run, ["--pipeline", str(manifest), str(exported.pt2), "-o", str(ours_path)])
    require_success(run, f"our conversion of {case.name} with quantized-model-io")
    convert_with_original(exported.pt2, original_path)

    ours, original = read_circle(ours_path), read_circle(original_path)
    result = compare_files(ours, original)
    explain_bias_rounding(result, exported.parameters)
    compare_outputs(result, exported.inputs, tico_circle, tmp_path)
    assert not result.problems, f"{case.name}: differences from the original's file:\n" + "\n".join(result.problems)
    expected = {k: v for k, v in EXPECTED_EXCEPTIONS[case.name].items() if k != "interface"}
    assert result.exceptions == expected, result.exceptions
    for ours_io, original_io in ((ours.inputs, original.inputs), (ours.outputs, original.outputs)):
        assert len(ours_io) == len(original_io)
        for a, b in zip(ours_io, original_io):
            mine, theirs = ours.tensors[a], original.tensors[b]
            assert mine.type == theirs.type and mine.type != "FLOAT32", (mine.describe(), theirs.describe())
            assert qparams_equal(mine.quant, theirs.quant) is None, (mine.describe(), theirs.describe())
    assert "QUANTIZE" not in [op.op for op in ours.operators if op.inputs[0] in ours.inputs]
    assert "DEQUANTIZE" not in [op.op for op in ours.operators]
    assert result.original_run_error is None, result.original_run_error
    assert result.outputs_total == sum(x.size for x in exported.fake_quant)
    assert result.outputs_equal == result.outputs_total, f"{case.name}: {result.outputs_equal}/{result.outputs_total} output codes equal"
