"""Half-precision checkpoints end to end: the weights in the file and the policy's options.

The default pipeline (float32 interface, computed in float32) is exercised by the
parity suite (``models_half.py``, the half-precision op cases). This file checks
what the Circle file holds, on a float16 CNN (``models_half.CnnFloat16``) and a
bfloat16 Llama-style LM (``models_half.LlamaLMBFloat16``):

* the default: the checkpoint's weights stay 16-bit (FLOAT16 + DEQUANTIZE,
  stage ``float16-weights``), about half the weight bytes, with the outputs of
  float32 weights on the built-in interpreter (float16 exactly; bfloat16
  converted to float16, exact above 2^-14); onert 0.2 must refuse such a file
  at load (the documented reason for ``float16_weights: false``: if onert starts
  to accept it, this test fails and the docs must change);
* ``--config float16_weights=false``: float32 weights, which onert runs;
* ``half-precision-policy{interface=float16}``: FLOAT16 input and output
  tensors with CASTs at the boundary, run on the interpreter (onert 0.2 has no
  float16 inputs or outputs).

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


def _interface_pipeline(default: Path, directory: Path, interface: str) -> Path:
    """default.yaml with the policy's interface option set."""
    text = default.read_text()
    text, count = re.subn(r"options: \{interface: float32\}", f"options: {{interface: {interface}}}", text)
    assert count == 1, "default.yaml no longer sets half-precision-policy's interface as expected"
    path = directory / f"pipeline-{interface}.yaml"
    path.write_text(text)
    return path


def _export(directory: Path, module: torch.nn.Module, name: str):
    """The exported module, its example input and the float32 reference output."""
    (x,), _ = module.get_example_inputs()
    if x.is_floating_point():
        x = x.to(next(module.parameters()).dtype)  # the module's own dtype (a float32 copy takes float32)
    with torch.no_grad():
        program = torch.export.export(module, (x,))
        reference = copy.deepcopy(module).float()(x.float() if x.is_floating_point() else x).numpy()
    pt2 = directory / f"{name}.pt2"
    torch.export.save(program, str(pt2))
    return directory, pt2, x.numpy(), reference


@pytest.fixture(scope="module")
def cnn(tmp_path_factory):
    """The exported float16 CNN, its float16 input and the float32 reference output."""
    torch.manual_seed(0)
    return _export(tmp_path_factory.mktemp("half"), models_half.CnnFloat16().eval(), "cnn")


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    """The exported bfloat16 LM, its token ids and the float32 reference logits."""
    torch.manual_seed(0)
    return _export(tmp_path_factory.mktemp("bf16"), models_half.LlamaLMBFloat16().eval(), "llama")


def _convert(tico_run: Path, pipeline: Path, pt2: Path, out: Path, *extra: str):
    run = run_tico(tico_run, ["--pipeline", str(pipeline), *extra, str(pt2), "-o", str(out)])
    require_success(run, f"conversion with {pipeline.name} {' '.join(extra)}")
    return circle_tools.load_model(out)


def _operators(model) -> list[str]:
    return circle_tools.operator_names(model)


def _weight_bytes(model, tensor_type: int) -> int:
    graph = model.subgraphs[0]
    return sum(len(model.buffers[t.buffer].data) for t in graph.tensors
               if t.type == tensor_type and t.buffer and model.buffers[t.buffer].data is not None)


def _input_feeds(x: np.ndarray) -> list[np.ndarray]:
    return [x.astype(np.float32) if x.dtype == np.float16 else x]


# Weight bytes of the default file / of the float32-weights file, at most. The CNN's first
# convolution is folded with its batch norm (new float32 values, kept float32); in the LM every
# weight but the rotary tables is the checkpoint's.
BYTES_RATIO = {"cnn": 0.9, "llama": 0.6}


@pytest.mark.parametrize("fixture", ["cnn", "llama"])
def test_default_keeps_16_bit_weights_with_the_outputs_of_float32_ones(request, fixture, tico_run, tico_circle, pipeline):
    directory, pt2, x, reference = request.getfixturevalue(fixture)
    narrow = _convert(tico_run, pipeline, pt2, directory / f"{fixture}-default.circle")
    wide = _convert(tico_run, pipeline, pt2, directory / f"{fixture}-f32w.circle", "--config", "float16_weights=false")
    assert circle_tools.has_float16_weights(narrow)
    assert not circle_tools.has_float16_weights(wide)
    assert "DEQUANTIZE" in _operators(narrow) and "DEQUANTIZE" not in _operators(wide)
    half_bytes = _weight_bytes(narrow, TensorType.FLOAT16)
    float_before, float_after = _weight_bytes(wide, TensorType.FLOAT32), _weight_bytes(narrow, TensorType.FLOAT32)
    assert half_bytes > 0 and float_after + half_bytes <= BYTES_RATIO[fixture] * float_before, \
        (float_before, float_after, half_bytes)
    outputs = {}
    for name in (f"{fixture}-default", f"{fixture}-f32w"):
        run, result = run_interpreter(tico_circle, directory / f"{name}.circle", _input_feeds(x), directory / f"interp-{name}")
        require_success(run, f"the interpreter on {name}")
        outputs[name] = result[0]
        np.testing.assert_allclose(result[0], reference, rtol=1e-4, atol=1e-4, err_msg=name)
    # float16 weights widen exactly, bfloat16 ones to within 2^-25; the products with float16
    # weights read in place sum in another order than the float32 kernel's.
    np.testing.assert_allclose(outputs[f"{fixture}-default"], outputs[f"{fixture}-f32w"], rtol=1e-5, atol=1e-6)


def test_onert_refuses_float16_weights_and_runs_float32_ones(cnn, tico_run, pipeline):
    """onert 0.2 rejects DEQUANTIZE from FLOAT16 at load: the reason for float16_weights=false."""
    from onert import infer

    directory, pt2, x, reference = cnn
    default = directory / "onert-default.circle"
    _convert(tico_run, pipeline, pt2, default)
    with pytest.raises(Exception) as refusal:
        infer.session(str(default)).infer([x.astype(np.float32)])
    assert "NNFW_STATUS_ERROR" in str(refusal.value), str(refusal.value)
    wide = directory / "onert-f32w.circle"
    _convert(tico_run, pipeline, pt2, wide, "--config", "float16_weights=false")
    outputs = infer.session(str(wide)).infer([x.astype(np.float32)])
    np.testing.assert_allclose(np.array(outputs[0]), reference, rtol=1e-4, atol=1e-4)


def test_a_float32_checkpoint_is_unchanged_by_the_setting(tmp_path, tico_run, pipeline):
    """float16_weights touches only weights widened from a half-precision checkpoint."""
    torch.manual_seed(0)
    module = models_half.CnnFloat16().float().eval()
    _, pt2, _, _ = _export(tmp_path, module, "cnn32")
    _convert(tico_run, pipeline, pt2, tmp_path / "a.circle")
    _convert(tico_run, pipeline, pt2, tmp_path / "b.circle", "--config", "float16_weights=false")
    assert (tmp_path / "a.circle").read_bytes() == (tmp_path / "b.circle").read_bytes()


def test_unknown_config_fields_are_refused_with_a_suggestion(cnn, tico_run, pipeline, tmp_path):
    _, pt2, _, _ = cnn
    out = tmp_path / "x.circle"
    run = run_tico(tico_run, ["--pipeline", str(pipeline), "--config", "float16_weight=false", str(pt2), "-o", str(out)])
    assert run.returncode != 0
    assert "unknown config field 'float16_weight'" in run.stderr and "float16_weights" in run.stderr, run.stderr
    run = run_tico(tico_run, ["--pipeline", str(pipeline), "--config", "float16_weights=no", str(pt2), "-o", str(out)])
    assert run.returncode != 0 and "must be true or false" in run.stderr, run.stderr
    assert not out.exists()


def test_float16_interface_runs_on_the_interpreter(cnn, tico_run, tico_circle, pipeline):
    directory, pt2, x, reference = cnn
    model = _convert(tico_run, _interface_pipeline(pipeline, directory, "float16"), pt2, directory / "f16io.circle")
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


class _LargeBFloat16Weights(torch.nn.Module):
    """Two bfloat16 linears: one with a weight beyond float16's 65504, one within it."""

    def __init__(self):
        super().__init__()
        self.small = torch.nn.Linear(8, 8, bias=False)
        self.large = torch.nn.Linear(8, 4, bias=False)
        with torch.no_grad():
            self.large.weight[1, 3] = 70000.0  # bfloat16 keeps 70144; float16 would make it inf
        self.to(torch.bfloat16)

    def forward(self, x):
        return self.large(torch.relu(self.small(x)))


def test_bfloat16_weights_beyond_float16_range_are_written_as_float32(tmp_path, tico_run, tico_circle, pipeline):
    """The writer's fallback (no scan before the write): the weight that does not fit float16 is
    float32 in the file, the other stays FLOAT16, and the outputs are those of float32 weights;
    the pass's own scan (scan_range) gives a file with the same tensor types and outputs."""
    torch.manual_seed(0)
    module = _LargeBFloat16Weights().eval()
    x = torch.randn(2, 8, dtype=torch.bfloat16)
    program = torch.export.export(module, (x,))
    pt2 = tmp_path / "large.pt2"
    torch.export.save(program, str(pt2))
    with torch.no_grad():
        reference = copy.deepcopy(module).float()(x.float()).numpy()
    scanned_pipeline = tmp_path / "scan.yaml"
    text = pipeline.read_text()
    assert "      - store-float16-weights " in text
    scanned_pipeline.write_text(text.replace("      - store-float16-weights ",
                                             "      - store-float16-weights{scan_range=true} ", 1))
    results = {}
    for name, chosen in (("written", pipeline), ("scanned", scanned_pipeline)):
        model = _convert(tico_run, chosen, pt2, tmp_path / f"{name}.circle")
        graph = model.subgraphs[0]
        weights = sorted((t.type, tuple(t.shape)) for t in graph.tensors
                         if t.buffer and model.buffers[t.buffer].data is not None and len(t.shape) == 2)
        results[name] = weights
        assert (TensorType.FLOAT16, (8, 8)) in weights and (TensorType.FLOAT32, (4, 8)) in weights, (name, weights)
        assert _operators(model).count("DEQUANTIZE") == 1, (name, _operators(model))
        run, outputs = run_interpreter(tico_circle, tmp_path / f"{name}.circle", [x.float().numpy()], tmp_path / f"interp-{name}")
        require_success(run, f"the interpreter on {name}")
        np.testing.assert_allclose(outputs[0], reference, rtol=1e-4, atol=1e-2, err_msg=name)
    assert results["written"] == results["scanned"]
