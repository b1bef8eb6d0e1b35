"""Small torch.nn.Modules that the end-to-end parity suite converts and runs.

Each module is one test case.  The contract every case follows:

* ``get_example_inputs()`` returns ``(args, kwargs)``: the inputs used for
  ``torch.export.export`` and for the first parity comparison.
* ``get_dynamic_shapes()`` (optional) returns the ``dynamic_shapes`` argument of
  ``torch.export.export``.  A dynamic case must also define
  ``get_second_inputs()`` with a different concrete size along every dynamic
  dimension, so the runtime is checked on a shape the exporter never saw.
* ``rtol`` / ``atol`` (optional, default 1e-5): comparison tolerances.  A case
  only raises them with a comment that explains the numerical reason.
* ``decompose`` (optional, default True): when True the suite also runs the
  ``ExportedProgram.run_decompositions()`` form of the program (users save
  both forms); set it to False only when the decomposed form is not a
  meaningful separate case.
* ``expected_failures`` (optional): ``case_registry.ExpectedFailure`` entries
  for known converter gaps (stage, saved forms, and a reason naming the missing
  op feature).  ``case_marks`` turns them into strict xfail marks, so a case
  that starts passing fails the suite until its entry is removed.

Inputs are drawn from per-case ``torch.Generator`` objects, so they do not
depend on the order in which the cases run.  Module weights are initialised
after ``torch.manual_seed(0)`` by ``build_module`` (see below).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from case_registry import DEFAULT_ATOL, DEFAULT_RTOL, MODULES, build_module, case_marks, e2e_case, rand_range, randint, randn

__all__ = ["DEFAULT_ATOL", "DEFAULT_RTOL", "MODULES", "build_module", "case_marks", "e2e_case", "UnsupportedOps"]


# ---------------------------------------------------------------------------
# Elementwise arithmetic: Tensor and Scalar operands, broadcasting.
# ---------------------------------------------------------------------------


@e2e_case
class AddTensor(nn.Module):
    def forward(self, x, y):
        return x + y

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1), randn(2, 3, 4, seed=2)), {}


@e2e_case
class AddBroadcast(nn.Module):
    """Both operands broadcast: [2,3,4] + [4] and [2,3,4] + [3,1]."""

    def forward(self, x, row, col):
        return (x + row) + col

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1), randn(4, seed=2), randn(3, 1, seed=3)), {}


@e2e_case
class AddScalar(nn.Module):
    def forward(self, x):
        # aten.add.Tensor with a Python scalar operand (the scalar is an argument,
        # not a tensor), on both sides of the operator.
        return (x + 2.5) + (0.5 + x)

    def get_example_inputs(self):
        return (randn(3, 5, seed=1),), {}


@e2e_case
class AddParameter(nn.Module):
    """Addition of a constant tensor (a lifted parameter) with broadcasting."""

    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(1, 6))

    def forward(self, x):
        return x + self.bias

    def get_example_inputs(self):
        return (randn(4, 6, seed=1),), {}


@e2e_case
class SubTensorBroadcast(nn.Module):
    def forward(self, x, y):
        return x - y

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1), randn(1, 4, seed=2)), {}


@e2e_case
class SubAlpha(nn.Module):
    """torch.sub with alpha: out = x - alpha * y."""

    def forward(self, x, y):
        return torch.sub(x, y, alpha=2.0)

    def get_example_inputs(self):
        return (randn(4, 5, seed=1), randn(4, 5, seed=2)), {}


@e2e_case
class SubScalar(nn.Module):
    def forward(self, x):
        return x - 1.5

    def get_example_inputs(self):
        return (randn(3, 4, seed=1),), {}


@e2e_case
class RSubScalar(nn.Module):
    """Scalar on the left of '-': exported as aten.rsub.Scalar (common in masks)."""

    def forward(self, x):
        return 1.0 - x

    def get_example_inputs(self):
        return (randn(3, 4, seed=1),), {}


@e2e_case
class MulTensorBroadcast(nn.Module):
    def forward(self, x, y):
        return x * y

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1), randn(3, 1, seed=2)), {}


@e2e_case
class MulScalar(nn.Module):
    def forward(self, x):
        return (x * 0.5) * 3

    def get_example_inputs(self):
        return (randn(2, 8, seed=1),), {}


@e2e_case
class DivTensor(nn.Module):
    def forward(self, x, y):
        return x / y

    def get_example_inputs(self):
        # Divisor kept away from zero so the quotient is well conditioned.
        return (randn(3, 4, seed=1), rand_range(3, 4, low=0.5, high=2.0, seed=2)), {}


@e2e_case
class DivBroadcastScalar(nn.Module):
    def forward(self, x, y):
        return (x / y) / 4.0

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1), rand_range(4, low=0.5, high=2.0, seed=2)), {}


# ---------------------------------------------------------------------------
# Activations.
# ---------------------------------------------------------------------------


@e2e_case
class Relu(nn.Module):
    def forward(self, x):
        return torch.relu(x)

    def get_example_inputs(self):
        return (randn(2, 3, 8, seed=1),), {}


@e2e_case
class Sigmoid(nn.Module):
    def forward(self, x):
        return torch.sigmoid(x)

    def get_example_inputs(self):
        return (randn(4, 8, seed=1) * 3,), {}


@e2e_case
class Tanh(nn.Module):
    def forward(self, x):
        return torch.tanh(x)

    def get_example_inputs(self):
        return (randn(4, 8, seed=1) * 2,), {}


@e2e_case
class GeluExact(nn.Module):
    def forward(self, x):
        return F.gelu(x, approximate="none")

    def get_example_inputs(self):
        return (randn(4, 16, seed=1) * 2,), {}


@e2e_case
class GeluTanh(nn.Module):
    def forward(self, x):
        return F.gelu(x, approximate="tanh")

    def get_example_inputs(self):
        return (randn(4, 16, seed=1) * 2,), {}


# ---------------------------------------------------------------------------
# Linear algebra.
# ---------------------------------------------------------------------------


@e2e_case
class Linear2D(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x)

    def get_example_inputs(self):
        return (randn(4, 16, seed=1),), {}


@e2e_case
class Linear2DNoBias(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8, bias=False)

    def forward(self, x):
        return self.fc(x)

    def get_example_inputs(self):
        return (randn(4, 16, seed=1),), {}


@e2e_case
class Linear3D(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x)

    def get_example_inputs(self):
        return (randn(2, 5, 16, seed=1),), {}


@e2e_case
class Linear3DNoBias(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8, bias=False)

    def forward(self, x):
        return self.fc(x)

    def get_example_inputs(self):
        return (randn(2, 5, 16, seed=1),), {}


@e2e_case
class Addmm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(16, 8) * 0.25)
        self.bias = nn.Parameter(torch.randn(8))

    def forward(self, x):
        return torch.addmm(self.bias, x, self.weight)

    def get_example_inputs(self):
        return (randn(4, 16, seed=1),), {}


@e2e_case
class AddmmScaled(nn.Module):
    """addmm with beta/alpha: out = beta * input + alpha * (x @ w), all user inputs."""

    def forward(self, bias, x, w):
        return torch.addmm(bias, x, w, beta=0.5, alpha=2.0)

    def get_example_inputs(self):
        return (randn(3, 6, seed=1), randn(3, 5, seed=2), randn(5, 6, seed=3)), {}


@e2e_case
class MmInputs(nn.Module):
    """Both operands are runtime inputs (no constant to fold into FULLY_CONNECTED)."""

    def forward(self, x, y):
        return torch.mm(x, y)

    def get_example_inputs(self):
        return (randn(4, 12, seed=1), randn(12, 6, seed=2)), {}


@e2e_case
class MmConstRhs(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(12, 6) * 0.3)

    def forward(self, x):
        return torch.mm(x, self.weight)

    def get_example_inputs(self):
        return (randn(4, 12, seed=1),), {}


@e2e_case
class Bmm(nn.Module):
    def forward(self, x, y):
        return torch.bmm(x, y)

    def get_example_inputs(self):
        return (randn(3, 4, 8, seed=1), randn(3, 8, 5, seed=2)), {}


# ---------------------------------------------------------------------------
# Convolution and pooling (NCHW in PyTorch, NHWC in Circle).
# ---------------------------------------------------------------------------


@e2e_case
class Conv2dBias(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, kernel_size=3)

    def forward(self, x):
        return self.conv(x)

    def get_example_inputs(self):
        return (randn(1, 3, 12, 12, seed=1),), {}


@e2e_case
class Conv2dNoBiasStridePad(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, kernel_size=3, stride=2, padding=1, bias=False)

    def forward(self, x):
        return self.conv(x)

    def get_example_inputs(self):
        return (randn(2, 4, 11, 9, seed=1),), {}


@e2e_case
class Conv2dSamePadding(nn.Module):
    """padding='same' (exported as aten.conv2d.padding or an explicit pad)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 5, kernel_size=(3, 5), padding="same")

    def forward(self, x):
        return self.conv(x)

    def get_example_inputs(self):
        return (randn(1, 3, 10, 10, seed=1),), {}


@e2e_case
class Conv2dDilation(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=3, dilation=2, padding=2)

    def forward(self, x):
        return self.conv(x)

    def get_example_inputs(self):
        return (randn(1, 3, 13, 13, seed=1),), {}


@e2e_case
class Conv2dAsymmetricPad(nn.Module):
    """Padding that is neither SAME nor VALID in Circle terms (needs an explicit PAD)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, kernel_size=3, stride=1, padding=(2, 0))

    def forward(self, x):
        return self.conv(x)

    def get_example_inputs(self):
        return (randn(1, 2, 7, 8, seed=1),), {}


@e2e_case
class MaxPool2d(nn.Module):
    def forward(self, x):
        return F.max_pool2d(x, kernel_size=2, stride=2)

    def get_example_inputs(self):
        return (randn(1, 3, 8, 8, seed=1),), {}


@e2e_case
class MaxPool2dPadding(nn.Module):
    """Padding must act as -inf for max pooling (all-negative inputs catch a zero pad)."""

    def forward(self, x):
        return F.max_pool2d(x, kernel_size=3, stride=2, padding=1)

    def get_example_inputs(self):
        return (rand_range(1, 2, 9, 9, low=-3.0, high=-0.5, seed=1),), {}


@e2e_case
class AvgPool2d(nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=2, stride=2)

    def get_example_inputs(self):
        return (randn(1, 3, 8, 8, seed=1),), {}


@e2e_case
class AvgPool2dPadding(nn.Module):
    """count_include_pad=True (PyTorch default): border windows divide by the full size."""

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1)

    def get_example_inputs(self):
        return (randn(1, 2, 9, 9, seed=1),), {}


@e2e_case
class AvgPool2dPaddingExcluded(nn.Module):
    """count_include_pad=False: border windows divide by the valid element count."""

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1, count_include_pad=False)

    def get_example_inputs(self):
        return (randn(1, 2, 9, 9, seed=1),), {}


# ---------------------------------------------------------------------------
# Shape and data movement.
# ---------------------------------------------------------------------------


@e2e_case
class ViewReshape(nn.Module):
    def forward(self, x):
        a = x.view(2, -1)  # -1 inferred from the element count
        b = a.reshape(4, 3, -1)
        return b * 2.0

    def get_example_inputs(self):
        return (randn(2, 3, 4, 2, seed=1),), {}


@e2e_case
class Permute(nn.Module):
    def forward(self, x):
        return x.permute(2, 0, 3, 1) + 1.0

    def get_example_inputs(self):
        return (randn(2, 3, 4, 5, seed=1),), {}


@e2e_case
class Transpose(nn.Module):
    def forward(self, x):
        return torch.transpose(x, 1, -1) * 2.0

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1),), {}


@e2e_case
class Unsqueeze(nn.Module):
    def forward(self, x):
        return x.unsqueeze(1).unsqueeze(-1) + 1.0

    def get_example_inputs(self):
        return (randn(3, 4, seed=1),), {}


@e2e_case
class Squeeze(nn.Module):
    def forward(self, x):
        return x.squeeze(1).squeeze(-1) * 3.0

    def get_example_inputs(self):
        return (randn(3, 1, 4, 1, seed=1),), {}


@e2e_case
class Cat(nn.Module):
    def forward(self, x, y, z):
        return torch.cat([x, y, z], dim=1)

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1), randn(2, 1, 4, seed=2), randn(2, 5, 4, seed=3)), {}


@e2e_case
class CatNegativeDim(nn.Module):
    def forward(self, x, y):
        return torch.cat([x * 2.0, y], dim=-1)

    def get_example_inputs(self):
        return (randn(2, 3, 4, seed=1), randn(2, 3, 2, seed=2)), {}


@e2e_case
class MeanKeepDim(nn.Module):
    def forward(self, x):
        return x.mean(dim=(2, 3), keepdim=True)

    def get_example_inputs(self):
        return (randn(2, 3, 4, 5, seed=1),), {}


@e2e_case
class MeanNoKeepDim(nn.Module):
    def forward(self, x):
        return torch.mean(x, dim=[0, -1], keepdim=False)

    def get_example_inputs(self):
        return (randn(2, 3, 4, 5, seed=1),), {}


@e2e_case
class SoftmaxLastDim(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)

    def get_example_inputs(self):
        return (randn(2, 4, 10, seed=1) * 3,), {}


@e2e_case
class SoftmaxDim1(nn.Module):
    """Softmax over a middle dim (Circle SOFTMAX works on the last dim only)."""

    def forward(self, x):
        return F.softmax(x, dim=1)

    def get_example_inputs(self):
        return (randn(2, 5, 3, seed=1) * 3,), {}


@e2e_case
class Embedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(20, 8)

    def forward(self, ids):
        return self.embedding(ids)

    def get_example_inputs(self):
        return (randint(2, 6, high=20, seed=1),), {}


@e2e_case
class SliceColumns(nn.Module):
    def forward(self, x):
        return x[:, 1:3] * 1.0

    def get_example_inputs(self):
        return (randn(4, 6, seed=1),), {}


@e2e_case
class SliceStep(nn.Module):
    def forward(self, x):
        return x[:, ::2, 1::3] + 0.0

    def get_example_inputs(self):
        return (randn(2, 7, 8, seed=1),), {}


@e2e_case
class SliceNegative(nn.Module):
    def forward(self, x):
        return x[..., -3:-1] - x[:, -1:, :2]

    def get_example_inputs(self):
        return (randn(2, 4, 5, seed=1),), {}


@e2e_case
class Clone(nn.Module):
    def forward(self, x):
        y = x.clone()
        return y + torch.relu(x).clone()

    def get_example_inputs(self):
        return (randn(3, 4, seed=1),), {}


# ---------------------------------------------------------------------------
# Program interface: several outputs, keyword inputs.
# ---------------------------------------------------------------------------


@e2e_case
class MultipleOutputs(nn.Module):
    """Output order must be preserved (differently shaped outputs catch a swap)."""

    def forward(self, x, y):
        return x + y, torch.relu(x).mean(dim=0), y * 2.0

    def get_example_inputs(self):
        return (randn(3, 4, seed=1), randn(3, 4, seed=2)), {}


@e2e_case
class KeywordInput(nn.Module):
    """A tensor passed by keyword becomes a user input after the positional ones."""

    def forward(self, x, *, scale):
        return x * scale + 1.0

    def get_example_inputs(self):
        return (randn(2, 5, seed=1),), {"scale": randn(5, seed=2)}


# ---------------------------------------------------------------------------
# Dynamic shapes.
# ---------------------------------------------------------------------------

_BATCH = Dim("batch", min=1, max=64)


@e2e_case
class DynamicBatchMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

    def get_example_inputs(self):
        return (randn(3, 16, seed=1),), {}

    def get_second_inputs(self):
        return (randn(7, 16, seed=2),), {}

    def get_dynamic_shapes(self):
        return {"x": {0: _BATCH}}


@e2e_case
class DynamicBatchConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, kernel_size=3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))

    def get_example_inputs(self):
        return (randn(2, 3, 8, 8, seed=1),), {}

    def get_second_inputs(self):
        return (randn(5, 3, 8, 8, seed=2),), {}

    def get_dynamic_shapes(self):
        return {"x": {0: _BATCH}}


@e2e_case
class DynamicBatchFlatten(nn.Module):
    """Flattening with a symbolic batch: view(batch, -1) must stay symbolic."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2 * 4 * 4, 3)

    def forward(self, x):
        return self.fc(x.view(x.shape[0], -1))

    def get_example_inputs(self):
        return (randn(4, 2, 4, 4, seed=1),), {}

    def get_second_inputs(self):
        return (randn(9, 2, 4, 4, seed=2),), {}

    def get_dynamic_shapes(self):
        return {"x": {0: _BATCH}}


# ---------------------------------------------------------------------------
# Small networks.
# ---------------------------------------------------------------------------


@e2e_case
class SmallCNN(nn.Module):
    """conv-relu-pool twice, then flatten and a linear classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = F.avg_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))

    def get_example_inputs(self):
        return (randn(2, 3, 16, 16, seed=1),), {}


@e2e_case
class MLPBlock(nn.Module):
    """Transformer-style feed-forward block with a residual connection, on 3-D input."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(16, 64)
        self.down = nn.Linear(64, 16)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(x)))

    def get_example_inputs(self):
        return (randn(2, 6, 16, seed=1),), {}


@e2e_case
class AttentionScores(nn.Module):
    """Scaled dot-product attention written out: bmm, transpose, softmax, bmm."""

    def forward(self, q, k, v):
        scores = torch.bmm(q, k.transpose(1, 2)) / 4.0
        return torch.bmm(torch.softmax(scores, dim=-1), v)

    def get_example_inputs(self):
        return (randn(2, 5, 16, seed=1), randn(2, 5, 16, seed=2), randn(2, 5, 8, seed=3)), {}


# ---------------------------------------------------------------------------
# Negative case: operators no lowering is expected to support.
# ---------------------------------------------------------------------------


class UnsupportedOps(nn.Module):
    """Two aten.linalg_inv and one aten.linalg_det among supported ops.

    Not registered as a parity case: the suite uses it to check that the
    converter rejects the program and lists every unsupported op with a count.
    """

    # Unsupported overloads in the plain export and how often each occurs.
    EXPECTED_UNSUPPORTED = {"linalg_inv": 2, "linalg_det": 1}

    def forward(self, x):
        inverses = torch.linalg.inv(x) + torch.linalg.inv(x.transpose(-2, -1))
        return inverses + torch.linalg.det(x)[..., None, None]

    def get_example_inputs(self):
        # Diagonally dominant, so the matrices are safely invertible.
        return (randn(2, 3, 3, seed=1) + 4.0 * torch.eye(3),), {}


# ---------------------------------------------------------------------------
# Op-level cases, one file per op family (each registers into MODULES on import).
# ---------------------------------------------------------------------------

import modules_ops_elementwise  # noqa: E402,F401
import modules_ops_activation  # noqa: E402,F401
import modules_ops_compare  # noqa: E402,F401
import modules_ops_reduce  # noqa: E402,F401
import modules_ops_matmul  # noqa: E402,F401
import modules_ops_conv  # noqa: E402,F401
import modules_ops_pool_norm  # noqa: E402,F401
import modules_ops_index  # noqa: E402,F401
import modules_ops_shape  # noqa: E402,F401
import modules_ops_misc  # noqa: E402,F401
import modules_ops_unary  # noqa: E402,F401
import modules_ops_convenience  # noqa: E402,F401

# Programs that write (in-place ops, out= variants, copies into buffers and inputs).
import modules_mutation  # noqa: E402,F401

# Op patterns real architectures rely on (mask functions, packed sequences, routers, ...).
import modules_model_patterns  # noqa: E402,F401

# The original converter's circle_custom:: ops (needs its Python package, tico==0.3.0).
import modules_circle_custom  # noqa: E402,F401

# Model-level cases (small networks with random weights).
import models  # noqa: E402,F401
import models_half  # noqa: E402,F401  (bfloat16 / float16 networks, dtype policy)

# Known gaps as strict expected failures (imported last: it checks every name).
import modules_expected_failures  # noqa: E402,F401
