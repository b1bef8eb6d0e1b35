"""The original converter's MX quantize/dequantize ops: converted to MX-typed Circle tensors.

``circle_custom::quantize_mx`` and ``::dequantize_mx`` are the logical pair the
original's quantization flow makes of ``mx_fake_quantize`` and folds into
MX-quantized tensors.  Their eager kernels always raise, so they cannot be e2e
cases (which need an eager reference); this test exports them (their fake kernels
run), converts with the default pipeline (the pairs become MXFP4 / MXINT8 tensors,
docs/quantization.md "MX"), verifies the file, and runs it on the built-in runtime
against the exported program with each pair run as ``mx_fake_quantize``, which is
what it stands for.  ``mx_fake_quantize`` itself is the ``CircleCustomMxFakeQuantize``
case of modules_circle_custom.py; tests/quant/test_quant_mx.py has the rest.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import modules_circle_custom
from harness import run_interpreter
from test_e2e import run_tico


class _QuantizeDequantizeMx(torch.nn.Module):
    def forward(self, x):
        ops = modules_circle_custom._ops()
        q = ops.quantize_mx(x, "fp4", 1)
        return ops.dequantize_mx(q, "fp4", 1) + ops.dequantize_mx(ops.quantize_mx(x, "int8", 1), "int8", 1)


def test_mx_quantize_dequantize_pair_converts(tmp_path: Path, tico_run: Path, tico_circle: Path, pipeline: Path):
    x = torch.randn(2, 64, generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        program = torch.export.export(_QuantizeDequantizeMx().eval(), (x,))
    targets = [str(node.target) for node in program.graph.nodes if node.op == "call_function"]
    assert targets.count("circle_custom.quantize_mx.default") == 2, targets  # the graph really has them
    pt2, circle = tmp_path / "model.pt2", tmp_path / "model.circle"
    torch.export.save(program, str(pt2))

    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(circle)])
    assert run.returncode == 0, run.describe()
    verify = run_tico(tico_circle, ["verify", str(circle)])
    assert verify.returncode == 0, verify.describe()
    inspect = run_tico(tico_circle, ["inspect", "--json", "--operators", "--tensors", str(circle)])
    assert inspect.returncode == 0, inspect.describe()
    sg = json.loads(inspect.stdout)["subgraphs"][0]
    types = {t["type"] for t in sg["tensors"]}
    assert {"MXFP4", "MXINT8"} <= types, sg["tensors"]

    ran, outputs = run_interpreter(tico_circle, circle, [x.numpy()], tmp_path / "run")
    assert ran.returncode == 0, ran.describe()
    np.testing.assert_allclose(outputs[0], _pairs_as_fake_quantize(program)(x)[0].numpy(), rtol=1e-5, atol=1e-5)


def _pairs_as_fake_quantize(program: torch.export.ExportedProgram):
    """The exported program with every quantize_mx run as mx_fake_quantize and every
    dequantize_mx as the identity: what each pair stands for. (The original's fake kernels
    return their input object, so torch.export makes later uses of ``x`` read the pair's
    result: the graph is not the module's eager computation.)"""
    module = program.module()
    ops = modules_circle_custom._ops()
    for node in list(module.graph.nodes):
        if node.op != "call_function":
            continue
        if node.target == ops.quantize_mx.default:
            node.target = ops.mx_fake_quantize.default
        elif node.target == ops.dequantize_mx.default:
            node.replace_all_uses_with(node.args[0])
            module.graph.erase_node(node)
    module.recompile()
    return lambda *args: [t for t in torch.utils._pytree.tree_leaves(module(*args))]


@pytest.mark.parametrize("op", ["quantize_mx", "dequantize_mx"])
def test_mx_logical_ops_have_no_eager_kernel(op: str):
    """Why these two are not e2e cases: the original's kernels refuse to run."""
    with pytest.raises(RuntimeError, match=f"circle_custom::{op} is an internal logical"):
        getattr(modules_circle_custom._ops(), op)(torch.randn(2, 64), "int8", 1)
