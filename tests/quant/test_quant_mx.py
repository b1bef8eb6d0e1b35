"""MX (microscaling) quantization end to end (docs/quantization.md, "MX").

Small modules call the original converter's ``circle_custom::mx_fake_quantize`` on activations
(and on a model input); they are exported with ``torch.export`` with the original's package
imported, converted by ``tico-run`` with the default pipeline, and checked:

* ``tico-circle verify`` finds no error;
* the MX tensors are the original converter's: for the models the original converts
  (``ORIGINAL``), ``tico.convert(...).save(path)`` of the same module gives a Circle file whose
  MX-typed tensors (type, shape, quantized_dimension), operators and model interface types
  equal tico's;
* the built-in runtime (``tico-circle run``) computes the exported program's eager output
  (rtol = atol = 1e-5): MX tensors are quantize-dequantized when they are written, as
  ``mx_fake_quantize`` does in eager;
* options Circle cannot carry are refused naming the node and the option, with no output file.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from harness import require_success, run_interpreter, run_tico

tico_original = pytest.importorskip("tico", reason="the original converter's package (tico==0.3.0) is needed")
import tico.utils.register_custom_op  # noqa: E402,F401  (registers circle_custom::mx_fake_quantize)


def mx(x, fmt, axis, **options):
    return torch.ops.circle_custom.mx_fake_quantize(x, fmt, axis, **options)


class LinearChainInt8(torch.nn.Module):
    """Two linears, each result MX int8 along its features (the original's MX linear)."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(64, 48)
        self.l2 = torch.nn.Linear(48, 16)

    def forward(self, x):
        return mx(self.l2(mx(self.l1(x), "int8", 1)), "int8", 1)


class InputAddInt8(torch.nn.Module):
    """An MX model input (the original types the input itself) and an MX add result."""

    def forward(self, x, y):
        return mx(mx(x, "int8", 1) + y, "int8", 1)


class LinearGeluFp4(torch.nn.Module):
    """mxfp4 between a linear and a float op; blocks of 32 with a short last one (48 = 32 + 16)."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(64, 48)

    def forward(self, x):
        return torch.nn.functional.gelu(mx(self.l1(x), "fp4", 1))


class Rank3Mixed(torch.nn.Module):
    """tico only (the original refuses negative axes and int8 -> fp4 requantization): rank 3,
    a negative axis, an axis that is not the last, an MX -> MX requantize (its quantize_mx
    stays: QUANTIZE), an MX model output also read by other operators.

    The original package's fake kernel of mx_fake_quantize returns its input object, so
    torch.export makes every later use of ``h`` read the quantized value: ``tanh(h)`` is
    ``tanh(a)`` in the exported program. The runtime is compared with the exported
    program, which is what is converted."""

    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(70, 40)

    def forward(self, x):
        h = self.l1(x)  # [2, 5, 40]
        a = mx(h, "fp4", -1)
        b = mx(torch.relu(a), "int8", 1)  # along the 5 rows
        c = mx(b, "fp4", 1)  # requantize MX int8 -> MX fp4
        return c + torch.tanh(h), a


def _randn(*shape, seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g) * scale


CASES = {
    "linear_chain_int8": (LinearChainInt8, lambda: (_randn(3, 64, seed=1),)),
    "input_add_int8": (InputAddInt8, lambda: (_randn(2, 40, seed=2, scale=3.0), _randn(2, 40, seed=3))),
    "linear_gelu_fp4": (LinearGeluFp4, lambda: (_randn(3, 64, seed=4),)),
    "rank3_mixed": (Rank3Mixed, lambda: (_randn(2, 5, 70, seed=5, scale=2.0),)),
}
# Models the original converter converts (its FoldQuantOps / serializer take them).
ORIGINAL = {"linear_chain_int8", "input_add_int8", "linear_gelu_fp4"}
# The MX tensors tico writes: (type, shape, quantized_dimension), in tensor order.
EXPECTED_MX = {
    "linear_chain_int8": [("MXINT8", [3, 48], 1), ("MXINT8", [3, 16], 1)],
    "input_add_int8": [("MXINT8", [2, 40], 1), ("MXINT8", [2, 40], 1)],
    "linear_gelu_fp4": [("MXFP4", [3, 48], 1)],
    # the last: the portability stage's copy of the returned ``a``, which operators also read
    "rank3_mixed": [("MXFP4", [2, 5, 40], 2), ("MXINT8", [2, 5, 40], 1), ("MXFP4", [2, 5, 40], 1),
                    ("MXFP4", [2, 5, 40], 2)],
}


def build(name: str):
    cls, inputs = CASES[name]
    torch.manual_seed(0)
    return cls().eval(), inputs()


def export(name: str, directory: Path):
    module, args = build(name)
    with torch.no_grad():
        program = torch.export.export(module, args)
    targets = [str(n.target) for n in program.graph.nodes if n.op == "call_function"]
    assert "circle_custom.mx_fake_quantize.default" in targets, targets
    pt2 = directory / f"{name}.pt2"
    torch.export.save(program, str(pt2))
    return program, args, pt2


def inspect(tico_circle, circle: Path) -> dict:
    run = run_tico(tico_circle, ["inspect", "--json", "--operators", "--tensors", str(circle)])
    require_success(run, f"tico-circle inspect of {circle}")
    return json.loads(run.stdout)["subgraphs"][0]


def mx_tensors(sg: dict) -> list[tuple[str, list[int], int]]:
    return [(t["type"], t["shape"], t["quantization"]["quantized_dimension"])
            for t in sg["tensors"] if t["type"].startswith("MX")]


def convert(name: str, tmp_path: Path, tico_run, pipeline):
    program, args, pt2 = export(name, tmp_path)
    circle = tmp_path / f"{name}.circle"
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(circle)])
    require_success(run, f"conversion of {name}")
    return program, args, circle


@pytest.mark.parametrize("name", sorted(CASES))
def test_mx_convert_verify_run(name, tmp_path, tico_run, tico_circle, pipeline):
    program, args, circle = convert(name, tmp_path, tico_run, pipeline)
    verify = run_tico(tico_circle, ["verify", str(circle)])
    assert verify.returncode == 0 and " 0 errors" in verify.stdout, verify.describe()

    sg = inspect(tico_circle, circle)
    assert mx_tensors(sg) == EXPECTED_MX[name], mx_tensors(sg)
    for t in sg["tensors"]:  # MX records carry the axis only
        if t["type"].startswith("MX"):
            assert t["quantization"]["scale"] == [] and t["quantization"]["zero_point"] == [], t

    with torch.no_grad():
        expected = program.module()(*args)
    expected = [expected] if isinstance(expected, torch.Tensor) else list(expected)
    run, outputs = run_interpreter(tico_circle, circle, [a.numpy() for a in args], tmp_path / "run")
    require_success(run, f"tico-circle run of {name}")
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(ORIGINAL))
def test_mx_tensors_match_original(name, tmp_path, tico_run, tico_circle, pipeline):
    """Same MX-typed tensors (type, shape, axis), operators and interface types as the original."""
    _, _, circle = convert(name, tmp_path, tico_run, pipeline)
    module, args = build(name)
    original = tmp_path / f"{name}.original.circle"
    tico_original.convert(module, args).save(str(original))

    ours, theirs = inspect(tico_circle, circle), inspect(tico_circle, original)
    assert mx_tensors(ours) == mx_tensors(theirs), (mx_tensors(ours), mx_tensors(theirs))
    assert collections.Counter(op["op"] for op in ours["operators"]) == \
        collections.Counter(op["op"] for op in theirs["operators"])

    def interface(sg, key):
        return [sg["tensors"][ref["tensor"]]["type"] for ref in sg[key]]

    assert interface(ours, "inputs") == interface(theirs, "inputs")
    assert interface(ours, "outputs") == interface(theirs, "outputs")


class Refused(torch.nn.Module):
    def __init__(self, fmt="int8", **options):
        super().__init__()
        self.fmt, self.options = fmt, options

    def forward(self, x):
        return mx(torch.relu(x), self.fmt, 1, **self.options)


@pytest.mark.parametrize(
    "module, message",
    [
        (Refused("fp8_e4m3"), "MX element format 'fp8_e4m3' (mxfp8_e4m3) has no Circle tensor type"),
        (Refused("fp6_e2m3"), "MX element format 'fp6_e2m3' (mxfp6_e2m3) has no Circle tensor type"),
        (Refused(shared_exp_method="none"), "shared_exp_method 'none' cannot be exported"),
        (Refused(round="even"), "round 'even' cannot be exported"),
    ],
    ids=["fp8_e4m3", "fp6_e2m3", "shared_exp_none", "round_even"],
)
def test_mx_options_circle_cannot_carry_are_refused(module, message, tmp_path, tico_run, pipeline):
    with torch.no_grad():
        program = torch.export.export(module.eval(), (_randn(2, 64, seed=6),))
    pt2, circle = tmp_path / "refused.pt2", tmp_path / "refused.circle"
    torch.export.save(program, str(pt2))
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(circle)])
    assert run.returncode == 1, run.describe()
    assert "node 'mx_fake_quantize' (circle_custom::mx_fake_quantize.default)" in run.stderr, run.describe()
    assert message in run.stderr, run.describe()
    assert not circle.exists()
