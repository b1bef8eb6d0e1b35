"""The dtype policy's non-default options, end to end.

The default pipeline (float32 interface, float32 weights) is exercised by the
parity suite (``models_half.py``, the half-precision op cases).  This file runs
the two options that change what the Circle file holds, on a float16 CNN
(``models_half.CnnFloat16``):

* ``half-precision-policy{interface=float16}``: FLOAT16 input and output
  tensors with CASTs at the boundary, run on the built-in interpreter (onert
  0.2 has no float16 inputs or outputs);
* the Circle pass ``store-float16-weights``: FLOAT16 constants + DEQUANTIZE,
  half the weight bytes, run on the interpreter; onert 0.2 must refuse the file
  at load (the documented reason the pass is off by default: if onert starts
  to accept it, this test fails and the docs must change).

Outputs are compared with eager PyTorch on the float32 copy of the module (the
policy's numerical model), at float16 output precision where the output is
float16.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np
import pytest
import torch

import circle_tools
import models_half
from circle_schema.v0_10.circle.TensorType import TensorType
from test_e2e import require_success, run_interpreter, run_tico


def _pipeline(default: Path, directory: Path, interface: str, float16_weights: bool) -> Path:
    """minimal.yaml (default.yaml without its O1 stage) with the policy's interface option set and,
    optionally, the float16-weights stage. Without O1: its batch-norm folding makes new float32
    conv weights (a float16 weight times a float32 scale), which store-float16-weights leaves
    float32 because float16 would round them; the checkpoint's own weights are the subject here."""
    text = (default.parent / "minimal.yaml").read_text()
    text, count = re.subn(r"options: \{interface: float32\}", f"options: {{interface: {interface}}}", text)
    assert count == 1, "default.yaml no longer sets half-precision-policy's interface as expected"
    if float16_weights:
        text += "  - name: float16-weights\n    kind: circle\n    strategy: once\n    passes: [store-float16-weights]\n"
    path = directory / f"pipeline-{interface}-{int(float16_weights)}.yaml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def cnn(tmp_path_factory):
    """The exported float16 CNN, its float16 input and the float32 reference output."""
    directory = tmp_path_factory.mktemp("half")
    torch.manual_seed(0)
    module = models_half.CnnFloat16().eval()
    (x,), _ = module.get_example_inputs()
    with torch.no_grad():
        program = torch.export.export(module, (x,))
        reference = copy.deepcopy(module).float()(x.float()).numpy()
    pt2 = directory / "cnn.pt2"
    torch.export.save(program, str(pt2))
    return directory, pt2, x.numpy(), reference


def _convert(tico_run: Path, pipeline: Path, pt2: Path, out: Path):
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(out)])
    require_success(run, f"conversion with {pipeline.name}")
    return circle_tools.load_model(out)


def _operators(model) -> list[str]:
    return circle_tools.operator_names(model)


def _weight_bytes(model, tensor_type: int) -> int:
    graph = model.subgraphs[0]
    return sum(len(model.buffers[t.buffer].data) for t in graph.tensors
               if t.type == tensor_type and t.buffer and model.buffers[t.buffer].data is not None)


def test_float16_interface_runs_on_the_interpreter(cnn, tico_run, tico_circle, pipeline):
    directory, pt2, x, reference = cnn
    model = _convert(tico_run, _pipeline(pipeline, directory, "float16", False), pt2, directory / "f16io.circle")
    graph = model.subgraphs[0]
    assert [graph.tensors[i].type for i in graph.inputs] == [TensorType.FLOAT16]
    assert [graph.tensors[i].type for i in graph.outputs] == [TensorType.FLOAT16]
    operators = _operators(model)
    assert operators[0] == "CAST" and operators[-1] == "CAST", operators
    run, outputs = run_interpreter(tico_circle, directory / "f16io.circle", [x], directory / "interp-f16io")
    require_success(run, "the interpreter")
    assert outputs[0].dtype == np.float16
    # One float16 rounding of the float32 result: 2**-11 relative.
    np.testing.assert_allclose(outputs[0].astype(np.float32), reference, rtol=1e-3, atol=1e-3)


def test_float16_weights_halve_the_file_and_run_on_the_interpreter(cnn, tico_run, tico_circle, pipeline):
    directory, pt2, x, reference = cnn
    wide = _convert(tico_run, _pipeline(pipeline, directory, "float32", False), pt2, directory / "f32w.circle")
    narrow = _convert(tico_run, _pipeline(pipeline, directory, "float32", True), pt2, directory / "f16w.circle")
    operators = _operators(narrow)
    assert "DEQUANTIZE" in operators, operators
    assert _weight_bytes(narrow, TensorType.FLOAT16) > 0
    # The conv and linear weights dominate: FLOAT16 halves them.
    float32_before = _weight_bytes(wide, TensorType.FLOAT32)
    float32_after = _weight_bytes(narrow, TensorType.FLOAT32)
    assert float32_after + _weight_bytes(narrow, TensorType.FLOAT16) < 0.75 * float32_before, (float32_before, float32_after)
    feeds = [x.astype(np.float32)]
    for name in ("f32w", "f16w"):
        run, outputs = run_interpreter(tico_circle, directory / f"{name}.circle", feeds, directory / f"interp-{name}")
        require_success(run, f"the interpreter on {name}")
        np.testing.assert_allclose(outputs[0], reference, rtol=1e-4, atol=1e-4, err_msg=name)


def test_onert_refuses_float16_weights(cnn, tico_run, pipeline):
    """onert 0.2 rejects DEQUANTIZE from FLOAT16 at load: the reason the pass is off by default."""
    from onert import infer

    directory, pt2, x, _ = cnn
    path = directory / "f16w-onert.circle"
    _convert(tico_run, _pipeline(pipeline, directory, "float32", True), pt2, path)
    with pytest.raises(Exception) as refusal:
        infer.session(str(path)).infer([x.astype(np.float32)])
    assert "NNFW_STATUS_ERROR" in str(refusal.value), str(refusal.value)
