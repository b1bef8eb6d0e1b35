"""Op cases: reductions (mean, sum, max, min, amax, amin, prod, var, std), arg-reductions and scans.

Arg-reduction inputs have no ties (a random permutation), because PyTorch and
a runtime may break ties differently and both be right.
"""

from __future__ import annotations

import torch

from case_registry import define_case, rand_range, randint, randn


def _distinct(*shape: int, seed: int) -> torch.Tensor:
    """Distinct float32 values in a random order (no ties for argmax/argmin)."""
    count = 1
    for size in shape:
        count *= size
    generator = torch.Generator().manual_seed(seed)
    return (torch.randperm(count, generator=generator).to(torch.float32) / count - 0.5).reshape(shape)


# ---------------------------------------------------------------------------
# mean / sum.
# ---------------------------------------------------------------------------

define_case("MeanAll", lambda self, x: x.mean(), lambda: (randn(3, 4, 5, seed=1),), doc="aten.mean.default: every dim, 0-d output.")
define_case("MeanLastDim", lambda self, x: x.mean(-1), lambda: (randn(2, 3, 8, seed=1),))
define_case("MeanDim1KeepDim", lambda self, x: x.mean(1, keepdim=True), lambda: (randn(2, 3, 8, seed=1),))
define_case("MeanNegativeDims", lambda self, x: x.mean((-2, -1)), lambda: (randn(2, 3, 4, 5, seed=1),))
define_case("MeanSpatialRank4KeepDim", lambda self, x: torch.mean(x, dim=[2, 3], keepdim=True), lambda: (randn(1, 8, 6, 6, seed=1),), doc="Global average pooling written as mean.")
define_case("SumDimNeg1", lambda self, x: x.sum(-1), lambda: (randn(4, 6, seed=1),))
define_case("SumDim2KeepDim", lambda self, x: x.sum(2, keepdim=True), lambda: (randn(2, 3, 4, 5, seed=1),))
define_case("SumAll", lambda self, x: torch.sum(x), lambda: (randn(3, 4, seed=1),))
define_case("SumDims", lambda self, x: x.sum((0, 2)), lambda: (randn(2, 3, 4, seed=1),))
define_case("SumInt64", lambda self, x: x.sum(1), lambda: (randint(3, 4, high=100, seed=1),))
define_case(
    "SumInt32PromotesToInt64",
    lambda self, x: x.sum(0),
    lambda: (randint(3, 4, high=100, seed=1, dtype=torch.int32),),
    doc="Summing int32 gives int64 in PyTorch.",
)
define_case("SumBool", lambda self, x: (x > 0).sum(-1), lambda: (randn(3, 6, seed=1),), doc="Counting true values: bool summed to int64.")
define_case("SumDtypeFloat", lambda self, x: x.sum(1, dtype=torch.float32), lambda: (randint(3, 4, high=100, seed=1),), doc="sum with a dtype= keyword.")

# ---------------------------------------------------------------------------
# max / min / amax / amin / prod.
# ---------------------------------------------------------------------------

define_case("MaxAll", lambda self, x: torch.max(x), lambda: (randn(3, 4, seed=1),))
define_case("MaxDimValues", lambda self, x: torch.max(x, dim=1)[0], lambda: (_distinct(3, 5, seed=1),), doc="aten.max.dim, values only.")
define_case("MaxDimKeepDimValues", lambda self, x: torch.max(x, dim=-1, keepdim=True).values, lambda: (_distinct(2, 3, 5, seed=1),))
define_case(
    "MaxDimValuesAndIndices",
    lambda self, x: tuple(torch.max(x, dim=1)),
    lambda: (_distinct(3, 5, seed=1),),
    # A plain tuple: torch.export.save cannot serialize the torch.return_types output spec.
    doc="Both outputs of aten.max.dim (the original supports the values only).",
)
define_case("MaxDimInt64", lambda self, x: torch.max(x, dim=0).values, lambda: (randint(4, 3, high=100, seed=1),))
define_case("MinAll", lambda self, x: torch.min(x), lambda: (randn(3, 4, seed=1),))
define_case("MinDimValues", lambda self, x: torch.min(x, dim=0).values, lambda: (_distinct(4, 3, seed=1),))
define_case("MinDimValuesAndIndices", lambda self, x: tuple(torch.min(x, dim=-1)), lambda: (_distinct(2, 3, 5, seed=1),))
define_case("Amax", lambda self, x: torch.amax(x, dim=(1, 2)), lambda: (randn(2, 3, 4, seed=1),))
define_case("AmaxKeepDim", lambda self, x: torch.amax(x, dim=-1, keepdim=True), lambda: (randn(2, 3, 4, seed=1),))
define_case("Amin", lambda self, x: torch.amin(x, dim=0), lambda: (randn(3, 4, seed=1),))
define_case("ProdDim", lambda self, x: torch.prod(x, dim=1), lambda: (rand_range(3, 4, low=0.5, high=1.5, seed=1),))
define_case("ProdAll", lambda self, x: torch.prod(x), lambda: (rand_range(2, 3, low=0.5, high=1.5, seed=1),))

# ---------------------------------------------------------------------------
# argmax / argmin.
# ---------------------------------------------------------------------------

define_case("ArgmaxDim", lambda self, x: torch.argmax(x, dim=1), lambda: (_distinct(3, 5, seed=1),))
define_case("ArgmaxNegativeDim", lambda self, x: torch.argmax(x, dim=-1), lambda: (_distinct(2, 3, 5, seed=1),))
define_case("ArgmaxKeepDim", lambda self, x: torch.argmax(x, dim=0, keepdim=True), lambda: (_distinct(4, 3, seed=1),))
define_case("ArgmaxFlat", lambda self, x: torch.argmax(x), lambda: (_distinct(3, 4, seed=1),), doc="argmax without dim: index into the flattened tensor.")
define_case("ArgmaxInt64", lambda self, x: torch.argmax(x, dim=1), lambda: (torch.randperm(12, generator=torch.Generator().manual_seed(1)).reshape(3, 4),))
define_case("ArgminDim", lambda self, x: torch.argmin(x, dim=1), lambda: (_distinct(3, 5, seed=1),))

# ---------------------------------------------------------------------------
# var / std (population and sample), var_mean.
# ---------------------------------------------------------------------------

define_case("VarLastDim", lambda self, x: torch.var(x, dim=-1), lambda: (randn(3, 8, seed=1),))
define_case("VarUnbiasedFalseKeepDim", lambda self, x: torch.var(x, dim=1, unbiased=False, keepdim=True), lambda: (randn(2, 6, 3, seed=1),))
define_case("VarCorrection0", lambda self, x: torch.var(x, dim=(1, 2), correction=0), lambda: (randn(2, 3, 4, seed=1),))
define_case("VarAll", lambda self, x: torch.var(x), lambda: (randn(4, 5, seed=1),))
define_case("StdDim", lambda self, x: torch.std(x, dim=-1), lambda: (randn(3, 8, seed=1),))
define_case("VarMean", lambda self, x: torch.var_mean(x, dim=-1, keepdim=True), lambda: (randn(3, 8, seed=1),), doc="Two outputs: variance and mean.")

# ---------------------------------------------------------------------------
# cumsum and friends.
# ---------------------------------------------------------------------------

define_case("CumsumDim0", lambda self, x: torch.cumsum(x, dim=0), lambda: (randn(4, 3, seed=1),))
define_case("CumsumDim1", lambda self, x: torch.cumsum(x, dim=1), lambda: (randn(3, 6, seed=1),))
define_case("CumsumNegativeDim", lambda self, x: torch.cumsum(x, dim=-1), lambda: (randn(2, 3, 5, seed=1),))
define_case("CumsumInt64", lambda self, x: torch.cumsum(x, dim=1), lambda: (randint(3, 5, high=10, seed=1),))
define_case(
    "CumsumInt32",
    lambda self, x: torch.cumsum(x, dim=0),
    lambda: (randint(4, 3, high=10, seed=1, dtype=torch.int32),),
    doc="cumsum of int32 gives int64 in PyTorch.",
)
define_case(
    "CumsumBoolMaskPositions",
    lambda self, m: torch.cumsum(m.to(torch.int64), dim=-1) - 1,
    lambda: (torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=torch.bool),),
    doc="Position ids from an attention mask (the Hugging Face pattern).",
)
define_case("LogSumExp", lambda self, x: torch.logsumexp(x, dim=-1), lambda: (randn(3, 7, seed=1) * 3,))
define_case("Norm2", lambda self, x: torch.linalg.vector_norm(x, dim=-1), lambda: (randn(3, 7, seed=1),))
