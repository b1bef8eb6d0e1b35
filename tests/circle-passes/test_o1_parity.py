"""Before/after parity of the Circle O1 preset on converted PyTorch modules.

For every module below:

1. ``torch.export.export`` and ``torch.export.save`` into a temporary directory;
2. ``tico-run --pipeline default.yaml`` -> ``base.circle`` (no Circle passes);
3. ``tico-run --pipeline default+O1`` -> ``o1.circle``, where the manifest is the default
   pipeline with the stages of ``configs/pipelines/circle-o1.yaml`` appended (tico-run runs
   ``kind: circle`` stages after lowering);
4. both models run on onert with the same inputs: every output must agree within
   1e-6 * (1 + |base|), the optimized model must have no more operators than the base one and
   must match PyTorch eager within 1e-5; converting twice gives the same bytes.

Environment (set by the CTest registration): TICO_RUN (tico-run binary), TICO_SOURCE_DIR;
optionally TICO_PIPELINE (another base pipeline than configs/pipelines/default.yaml).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
from circle_schema.v0_10.circle.Model import ModelT
from onert import infer

TOLERANCE = 1e-6
TORCH_TOLERANCE = 1e-5


# ---------------------------------------------------------------------------
# Modules: the shapes the converter leaves work for (layout transposes around convolutions,
# batch norm as affine ops, activations, bias adds, views).
# ---------------------------------------------------------------------------


class ConvBnRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class ConvChain(torch.nn.Module):
    """conv -> relu6 -> conv -> add residual -> mean: transposes between convolutions."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.c2 = torch.nn.Conv2d(4, 4, 1)

    def forward(self, x):
        y = torch.nn.functional.relu6(self.c1(x))
        y = self.c2(y) + y
        return y.mean(dim=(2, 3))


class LinearAdd(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 8, bias=False)
        self.register_buffer("shift", torch.linspace(-1.0, 1.0, 8))

    def forward(self, x):
        return torch.relu(self.fc(x) + self.shift)


class LinearScaleChain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(12, 12)
        self.fc2 = torch.nn.Linear(12, 6)

    def forward(self, x):
        y = self.fc1(x) * 0.5 * 4.0
        return self.fc2(torch.clamp(y, 0.0, 6.0))


class Transposes(torch.nn.Module):
    def forward(self, x):
        y = x.permute(0, 2, 3, 1).permute(0, 3, 1, 2)  # cancels
        y = y.transpose(1, 2).transpose(2, 3)  # composes
        return y.reshape(2, 3, -1).reshape(2, 3, 4, 5) + 1.0


class DuplicateConstants(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("a", torch.arange(6.0).reshape(2, 3))
        self.register_buffer("b", torch.arange(6.0).reshape(2, 3))

    def forward(self, x):
        return (x + self.a) * (x + self.b) - x * 1.0 + 0.0


class DepthwiseBn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = torch.nn.Conv2d(6, 6, 3, padding=1, groups=6)
        self.bn = torch.nn.BatchNorm2d(6)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        return torch.relu(self.bn(self.dw(x)))


class ConvPoolLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(6)
        self.fc = torch.nn.Linear(6 * 4 * 4, 5)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        y = torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(torch.flatten(y, 1))


class LinearBatchNorm1d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(10, 7)
        self.bn = torch.nn.BatchNorm1d(7)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.uniform_(0.5, 1.5)

    def forward(self, x):
        return torch.relu(self.bn(self.fc(x)))


def _inputs(*shapes):
    generator = torch.Generator().manual_seed(0)
    return tuple(torch.rand(s, generator=generator) * 4.0 - 2.0 for s in shapes)


CASES = {
    "conv_bn_relu": (ConvBnRelu, lambda: _inputs((1, 3, 8, 8))),
    "conv_chain": (ConvChain, lambda: _inputs((1, 4, 6, 6))),
    "linear_add": (LinearAdd, lambda: _inputs((4, 16))),
    "linear_scale_chain": (LinearScaleChain, lambda: _inputs((3, 12))),
    "transposes": (Transposes, lambda: _inputs((2, 3, 4, 5))),
    "duplicate_constants": (DuplicateConstants, lambda: _inputs((2, 3))),
    "depthwise_bn": (DepthwiseBn, lambda: _inputs((1, 6, 5, 5))),
    "conv_pool_linear": (ConvPoolLinear, lambda: _inputs((2, 3, 8, 8))),
    "linear_batchnorm1d": (LinearBatchNorm1d, lambda: _inputs((4, 10))),
}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tico_run() -> Path:
    value = os.environ.get("TICO_RUN")
    if not value:
        pytest.fail("TICO_RUN is not set: point it at the tico-run binary (CTest sets it)")
    path = Path(value)
    if not os.access(path, os.X_OK):
        pytest.fail(f"TICO_RUN={path} is not an executable file")
    return path


@pytest.fixture(scope="session")
def source_dir() -> Path:
    value = os.environ.get("TICO_SOURCE_DIR")
    return Path(value) if value else Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def manifests(source_dir: Path, tmp_path_factory) -> tuple[Path, Path]:
    """The default pipeline, and the default pipeline followed by the O1 Circle stages."""
    # TICO_PIPELINE overrides the conversion pipeline the O1 stages are appended to.
    default = Path(os.environ.get("TICO_PIPELINE") or source_dir / "configs" / "pipelines" / "default.yaml")
    preset = source_dir / "configs" / "pipelines" / "circle-o1.yaml"
    combined = yaml.safe_load(default.read_text())
    # The preset's own lower stage stands for the one the default pipeline has already.
    circle_stages = [s for s in yaml.safe_load(preset.read_text())["stages"] if s.get("kind") != "lower"]
    combined["stages"] = list(combined.get("stages") or []) + circle_stages
    path = tmp_path_factory.mktemp("manifests") / "default-o1.yaml"
    path.write_text(yaml.safe_dump(combined, sort_keys=False))
    return default, path


def convert(tico_run: Path, manifest: Path, pt2: Path, output: Path) -> None:
    done = subprocess.run([str(tico_run), "--pipeline", str(manifest), str(pt2), "-o", str(output)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"tico-run failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"


def operator_count(path: Path) -> int:
    model = ModelT.InitFromPackedBuf(path.read_bytes(), 0)
    return sum(len(g.operators or []) for g in model.subgraphs)


def operator_names(path: Path) -> list[str]:
    model = ModelT.InitFromPackedBuf(path.read_bytes(), 0)
    by_code = {code: name for name, code in vars(BuiltinOperator).items() if not name.startswith("_")}
    codes = model.operatorCodes or []
    return [by_code.get(codes[op.opcodeIndex].builtinCode, "?") for op in model.subgraphs[0].operators or []]


def run_onert(path: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    session = infer.session(str(path))
    return [np.asarray(o) for o in session.infer([np.ascontiguousarray(i) for i in inputs])]


def relative_difference(actual: np.ndarray, expected: np.ndarray) -> float:
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape
    if actual.size == 0:
        return 0.0
    return float(np.max(np.abs(actual - expected) / (1.0 + np.abs(expected))))


@pytest.mark.parametrize("name", sorted(CASES))
def test_o1_preserves_outputs(name: str, tico_run: Path, manifests, tmp_path: Path, record_property):
    factory, make_inputs = CASES[name]
    torch.manual_seed(1)
    module = factory().eval()
    args = make_inputs()
    program = torch.export.export(module, args)
    pt2 = tmp_path / "model.pt2"
    torch.export.save(program, str(pt2))
    default, combined = manifests
    base, optimized, again = tmp_path / "base.circle", tmp_path / "o1.circle", tmp_path / "o1-again.circle"
    convert(tico_run, default, pt2, base)
    convert(tico_run, combined, pt2, optimized)
    convert(tico_run, combined, pt2, again)
    assert optimized.read_bytes() == again.read_bytes(), "O1 output is not deterministic"

    inputs = [a.numpy() for a in args]
    before = run_onert(base, inputs)
    after = run_onert(optimized, inputs)
    with torch.no_grad():
        eager = module(*args)
    eager = [eager.numpy()] if isinstance(eager, torch.Tensor) else [e.numpy() for e in eager]
    assert len(before) == len(after) == len(eager)
    worst = max(relative_difference(a, b) for a, b in zip(after, before))
    to_torch = max(relative_difference(a, e) for a, e in zip(after, eager))
    ops_before, ops_after = operator_count(base), operator_count(optimized)
    record_property("parity", f"{name}: ops {ops_before} -> {ops_after}, max rel diff {worst:.3g}, vs torch {to_torch:.3g}")
    print(f"{name}: ops {ops_before} -> {ops_after} ({' '.join(operator_names(optimized))}); "
          f"max rel diff vs base {worst:.3g}, vs torch {to_torch:.3g}")
    assert worst <= TOLERANCE, f"O1 changed the outputs of {name} by {worst}"
    assert to_torch <= TORCH_TOLERANCE, f"O1 model of {name} differs from PyTorch by {to_torch}"
    assert ops_after <= ops_before, f"O1 grew {name}: {operator_names(base)} -> {operator_names(optimized)}"
