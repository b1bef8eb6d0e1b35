"""Op cases: the matmul family (mm, bmm, matmul, linear, addmm, baddbmm, einsum).

Operands are runtime inputs, parameters (constants the converter may turn into
FULLY_CONNECTED weights) or a mix.  Weights are scaled by 1/sqrt(fan_in) so
outputs stay O(1) and the float32 accumulation error stays well below 1e-5.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from case_registry import define_case, randn


def _parameter(*shape: int, seed: int) -> nn.Parameter:
    fan_in = shape[-1] if len(shape) > 1 else shape[0]
    return nn.Parameter(randn(*shape, seed=seed) / fan_in**0.5)


# ---------------------------------------------------------------------------
# mm / bmm / matmul.
# ---------------------------------------------------------------------------


def _const_rhs(self):
    self.weight = _parameter(8, 5, seed=11)


def _const_lhs(self):
    self.weight = _parameter(5, 8, seed=11)


define_case("MmSquare", lambda self, x, y: torch.mm(x, y), lambda: (randn(6, 6, seed=1), randn(6, 6, seed=2)))
define_case("MmConstLhs", lambda self, x: torch.mm(self.weight, x), lambda: (randn(8, 3, seed=1),), setup=_const_lhs, doc="Constant on the left: stays a BATCH_MATMUL by default.")
define_case("MmTransposedInput", lambda self, x, y: torch.mm(x, y.t()), lambda: (randn(4, 8, seed=1), randn(5, 8, seed=2)))
define_case("BmmBatch1", lambda self, x, y: torch.bmm(x, y), lambda: (randn(1, 4, 8, seed=1), randn(1, 8, 5, seed=2)))
define_case("BmmTransposed", lambda self, q, k: torch.bmm(q, k.transpose(1, 2)), lambda: (randn(3, 4, 8, seed=1), randn(3, 6, 8, seed=2)))


def _bmm_const(self):
    self.weight = _parameter(2, 8, 5, seed=11)


define_case("BmmConstRhs", lambda self, x: torch.bmm(x, self.weight), lambda: (randn(2, 4, 8, seed=1),), setup=_bmm_const)
define_case("Matmul2D", lambda self, x, y: torch.matmul(x, y), lambda: (randn(4, 8, seed=1), randn(8, 5, seed=2)))
define_case("Matmul3D", lambda self, x, y: x @ y, lambda: (randn(2, 4, 8, seed=1), randn(2, 8, 5, seed=2)))
define_case("Matmul4D", lambda self, x, y: x @ y, lambda: (randn(2, 3, 4, 8, seed=1), randn(2, 3, 8, 5, seed=2)), doc="Multi-head shape: [B, H, S, D] @ [B, H, D, S].")
define_case("MatmulBroadcastBatch", lambda self, x, y: x @ y, lambda: (randn(2, 3, 4, 8, seed=1), randn(8, 5, seed=2)), doc="Rank-4 @ rank-2 broadcasts the matrix.")
define_case("MatmulBroadcastBatchDims", lambda self, x, y: x @ y, lambda: (randn(2, 1, 4, 8, seed=1), randn(1, 3, 8, 5, seed=2)))
define_case("MatmulVectorRhs", lambda self, x, v: x @ v, lambda: (randn(3, 4, 8, seed=1), randn(8, seed=2)), doc="Matrix-vector: the vector dim disappears.")
define_case("MatmulVectorLhs", lambda self, v, x: v @ x, lambda: (randn(8, seed=1), randn(8, 5, seed=2)))
define_case("MatmulDot", lambda self, a, b: a @ b, lambda: (randn(8, seed=1), randn(8, seed=2)), doc="Vector dot product: a 0-d result.")


def _matmul_param(self):
    self.weight = _parameter(8, 6, seed=11)


define_case("MatmulConstRhs3D", lambda self, x: x @ self.weight, lambda: (randn(2, 5, 8, seed=1),), setup=_matmul_param)
define_case("Outer", lambda self, a, b: torch.outer(a, b), lambda: (randn(4, seed=1), randn(5, seed=2)))
define_case("EinsumBhqd", lambda self, q, k: torch.einsum("bhqd,bhkd->bhqk", q, k), lambda: (randn(1, 2, 4, 8, seed=1), randn(1, 2, 5, 8, seed=2)))

# ---------------------------------------------------------------------------
# linear, as a module and as a function, over ranks.
# ---------------------------------------------------------------------------


def _linear(in_features: int, out_features: int, bias: bool = True):
    def setup(self):
        self.fc = nn.Linear(in_features, out_features, bias=bias)

    return setup


define_case("Linear1DInput", lambda self, x: self.fc(x), lambda: (randn(16, seed=1),), setup=_linear(16, 8), doc="A vector input (no batch dim).")
define_case("Linear4D", lambda self, x: self.fc(x), lambda: (randn(2, 3, 4, 16, seed=1),), setup=_linear(16, 8))
define_case("LinearWide", lambda self, x: self.fc(x), lambda: (randn(3, 256, seed=1),), setup=_linear(256, 64))
define_case("LinearSingleOutput", lambda self, x: self.fc(x), lambda: (randn(5, 12, seed=1),), setup=_linear(12, 1))
define_case(
    "LinearFunctionalInputs",
    lambda self, x, w, b: F.linear(x, w, b),
    lambda: (randn(4, 8, seed=1), randn(6, 8, seed=2), randn(6, seed=3)),
    doc="Weight and bias are runtime inputs, not constants.",
)
define_case("LinearFunctionalNoBiasInput", lambda self, x, w: F.linear(x, w), lambda: (randn(2, 3, 8, seed=1), randn(6, 8, seed=2)))


def _two_linears_shared(self):
    self.fc = nn.Linear(8, 8)


define_case(
    "LinearSharedTwice",
    lambda self, x: self.fc(torch.relu(self.fc(x))),
    lambda: (randn(3, 8, seed=1),),
    setup=_two_linears_shared,
    doc="One nn.Linear applied twice: its weight must be stored once.",
)


def _linear_chain(self):
    self.fc1 = nn.Linear(8, 16)
    self.fc2 = nn.Linear(16, 4, bias=False)


define_case("LinearChain", lambda self, x: self.fc2(F.gelu(self.fc1(x))), lambda: (randn(2, 5, 8, seed=1),), setup=_linear_chain)


def _linear_unused_input(self):
    self.fc = nn.Linear(8, 4)


define_case(
    "LinearWithUnusedInput",
    lambda self, x, unused: self.fc(x),
    lambda: (randn(3, 8, seed=1), randn(2, 2, seed=2)),
    setup=_linear_unused_input,
    doc="An input the graph never reads must still be a Circle input.",
)

# ---------------------------------------------------------------------------
# addmm / baddbmm / addbmm.
# ---------------------------------------------------------------------------


def _addmm_params(self):
    self.weight = _parameter(8, 5, seed=11)
    self.bias = nn.Parameter(randn(5, seed=12))


define_case("AddmmBias2D", lambda self, b, x, w: torch.addmm(b, x, w), lambda: (randn(4, 5, seed=1), randn(4, 8, seed=2), randn(8, 5, seed=3)))
define_case("AddmmBetaZero", lambda self, b, x, w: torch.addmm(b, x, w, beta=0.0), lambda: (randn(4, 5, seed=1), randn(4, 8, seed=2), randn(8, 5, seed=3)))
define_case("AddmmAlphaZero", lambda self, b, x, w: torch.addmm(b, x, w, alpha=0.0), lambda: (randn(4, 5, seed=1), randn(4, 8, seed=2), randn(8, 5, seed=3)))
define_case("AddmmConstWeight", lambda self, x: torch.addmm(self.bias, x, self.weight, beta=2.0), lambda: (randn(3, 8, seed=1),), setup=_addmm_params)
define_case(
    "Baddbmm",
    lambda self, b, x, y: torch.baddbmm(b, x, y),
    lambda: (randn(2, 4, 5, seed=1), randn(2, 4, 8, seed=2), randn(2, 8, 5, seed=3)),
)
define_case(
    "BaddbmmScaled",
    lambda self, b, x, y: torch.baddbmm(b, x, y, beta=0.5, alpha=0.25),
    lambda: (randn(1, 4, 5, seed=1), randn(3, 4, 8, seed=2), randn(3, 8, 5, seed=3)),
    doc="beta/alpha scaling and a broadcasting input.",
)
define_case("Addbmm", lambda self, b, x, y: torch.addbmm(b, x, y), lambda: (randn(4, 5, seed=1), randn(3, 4, 8, seed=2), randn(3, 8, 5, seed=3)))
define_case("Addmv", lambda self, b, m, v: torch.addmv(b, m, v), lambda: (randn(4, seed=1), randn(4, 8, seed=2), randn(8, seed=3)))
