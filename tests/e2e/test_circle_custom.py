"""The original converter's MX quantize/dequantize ops: refused with the reason, nothing written.

``circle_custom::quantize_mx`` and ``::dequantize_mx`` are the logical pair the
original's quantization flow makes of ``mx_fake_quantize`` and folds into
MX-quantized tensors.  Their eager kernels always raise, so they cannot be e2e
cases (which need an eager reference); this test exports them (their fake kernels
run), converts, and checks that tico-run refuses both with the quantization
reason, exits 1 and leaves no output file.  ``mx_fake_quantize`` is the
``CircleCustomMxFakeQuantize`` case of modules_circle_custom.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import modules_circle_custom
from test_e2e import assert_clean_failure, lists_op_with_count, run_tico

REASON = "tico has no quantized tensor types yet (quantization support is pending)"


class _QuantizeDequantizeMx(torch.nn.Module):
    def forward(self, x):
        ops = modules_circle_custom._ops()
        q = ops.quantize_mx(x, "fp4", 1)
        return ops.dequantize_mx(q, "fp4", 1) + ops.dequantize_mx(ops.quantize_mx(x, "int8", 1), "int8", 1)


def test_mx_quantize_dequantize_refused(tmp_path: Path, tico_run: Path, pipeline: Path):
    with torch.no_grad():
        program = torch.export.export(_QuantizeDequantizeMx().eval(), (torch.randn(2, 64),))
    targets = [str(node.target) for node in program.graph.nodes if node.op == "call_function"]
    assert targets.count("circle_custom.quantize_mx.default") == 2, targets  # the graph really has them
    pt2, circle = tmp_path / "model.pt2", tmp_path / "model.circle"
    torch.export.save(program, str(pt2))

    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(circle)])
    assert_clean_failure(run)
    assert run.returncode == 1, run.describe()
    for op in ("circle_custom::quantize_mx.default", "circle_custom::dequantize_mx.default"):
        assert lists_op_with_count(run.stderr, op, 2), f"{op} x2 not listed\n{run.describe()}"
    assert REASON in run.stderr and "MX block quantization (element format 'fp4')" in run.stderr, run.describe()
    assert not circle.exists(), f"a refused conversion wrote {circle}\n{run.describe()}"


@pytest.mark.parametrize("op", ["quantize_mx", "dequantize_mx"])
def test_mx_logical_ops_have_no_eager_kernel(op: str):
    """Why these two are not e2e cases: the original's kernels refuse to run."""
    with pytest.raises(RuntimeError, match=f"circle_custom::{op} is an internal logical"):
        getattr(modules_circle_custom._ops(), op)(torch.randn(2, 64), "int8", 1)
