"""Op cases: the convenience and alias ops plain torch.export keeps whole (CompositeImplicit in
PyTorch: run_decompositions() expands them, the raw program does not), each decomposed by the
decompose plugin (plugins/decompose/convenience.cpp). One case per op; the "decomposed" variant
checks that PyTorch's own expansion converts too.

Left out on purpose (no decomposition; the conversion lists them as unsupported): sort, argsort,
cummax/cummin, cumprod, logcumsumexp, bucketize/searchsorted, grid_sampler, im2col/col2im,
index_add, avg_pool3d (local_response_norm) — see docs/lowering.md, "Convenience ops".
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from case_registry import define_case, rand_range, randint, randn

# name: (forward, inputs)
_CASES = {
    "NumpyT": (lambda self, x: x.T * 2, lambda: (randn(3, 4, seed=1),)),
    "MatrixTransposeMT": (lambda self, x: x.mT + 1, lambda: (randn(2, 3, 4, seed=1),)),
    "MatrixTransposeMH": (lambda self, x: x.mH + 1, lambda: (randn(2, 3, 4, seed=1),)),
    "Adjoint": (lambda self, x: x.adjoint() + 1, lambda: (randn(3, 4, seed=1),)),
    "ReshapeAs": (lambda self, x, y: x.reshape_as(y) + y, lambda: (randn(3, 4, seed=1), randn(2, 6, seed=2))),
    "ViewAs": (lambda self, x, y: x.view_as(y) * y, lambda: (randn(3, 4, seed=1), randn(4, 3, seed=2))),
    "Atleast1d": (lambda self, x: torch.atleast_1d(x) + 1, lambda: (randn(seed=1),)),
    "Atleast2d": (lambda self, x: torch.atleast_2d(x) + 1, lambda: (randn(5, seed=1),)),
    "Atleast3dVector": (lambda self, x: torch.atleast_3d(x) + 1, lambda: (randn(5, seed=1),)),
    "Atleast3dMatrix": (lambda self, x: torch.atleast_3d(x) + 1, lambda: (randn(2, 5, seed=1),)),
    "HStackVectors": (lambda self, x, y: torch.hstack([x, y]), lambda: (randn(3, seed=1), randn(4, seed=2))),
    "HStackMatrices": (lambda self, x, y: torch.hstack([x, y]), lambda: (randn(3, 2, seed=1), randn(3, 4, seed=2))),
    "VStackVectors": (lambda self, x, y: torch.vstack([x, y]), lambda: (randn(3, seed=1), randn(3, seed=2))),
    "VStackMatrices": (lambda self, x, y: torch.vstack([x, y]), lambda: (randn(2, 3, seed=1), randn(1, 3, seed=2))),
    "DStack": (lambda self, x, y: torch.dstack([x, y]), lambda: (randn(2, 3, seed=1), randn(2, 3, seed=2))),
    "Addcmul": (lambda self, x, a, b: torch.addcmul(x, a, b, value=-0.75), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2), randn(1, 4, seed=3))),
    "AddcmulDefault": (lambda self, x, a, b: torch.addcmul(x, a, b), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2), randn(3, 4, seed=3))),
    "Addcdiv": (lambda self, x, a, b: torch.addcdiv(x, a, b, value=-0.75), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2), rand_range(1, 4, low=0.5, high=2.0, seed=3))),
    "AddcdivDefault": (lambda self, x, a, b: torch.addcdiv(x, a, b), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2), rand_range(3, 4, low=0.5, high=2.0, seed=3))),
    "LerpLowWeight": (lambda self, x, y: torch.lerp(x, y, 0.3), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2))),
    "LerpHighWeight": (lambda self, x, y: torch.lerp(x, y, 0.8), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2))),
    "LerpTensorWeight": (lambda self, x, y, w: torch.lerp(x, y, w), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2), rand_range(3, 4, low=-0.5, high=1.5, seed=3))),
    "Hypot": (lambda self, x, y: torch.hypot(x, y), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2))),
    "LogAddExp": (lambda self, x, y: torch.logaddexp(x, y), lambda: (randn(3, 4, seed=1) * 10, randn(3, 4, seed=2) * 10)),
    "XLogY": (lambda self, x, y: torch.xlogy(x, y), lambda: (torch.where(randn(3, 4, seed=1) > 0, randn(3, 4, seed=3), 0.0), rand_range(3, 4, low=0.1, high=4.0, seed=2))),
    "FmodTensor": (lambda self, x, y: torch.fmod(x, y), lambda: (randn(3, 4, seed=1) * 5, rand_range(3, 4, low=0.5, high=2.0, seed=2) * torch.where(randn(3, 4, seed=3) > 0, 1.0, -1.0))),
    "CopySign": (lambda self, x, y: torch.copysign(x, y), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2))),
    "Dot": (lambda self, x, y: torch.dot(x, y), lambda: (randn(6, seed=1), randn(6, seed=2))),
    "Vdot": (lambda self, x, y: torch.vdot(x, y), lambda: (randn(6, seed=1), randn(6, seed=2))),
    "Mv": (lambda self, m, v: torch.mv(m, v), lambda: (randn(3, 5, seed=1), randn(5, seed=2))),
    "Addr": (lambda self, m, u, v: torch.addr(m, u, v, beta=0.5, alpha=2.0), lambda: (randn(3, 4, seed=1), randn(3, seed=2), randn(4, seed=3))),
    "LogSumExpKeepDims": (lambda self, x: torch.logsumexp(x, dim=(0, 2), keepdim=True), lambda: (randn(2, 3, 4, seed=1) * 5,)),
    "AminMax": (lambda self, x: tuple(torch.aminmax(x, dim=1)), lambda: (randn(3, 5, seed=1),)),
    "AminMaxAll": (lambda self, x: tuple(torch.aminmax(x)), lambda: (randn(3, 5, seed=1),)),
    "CountNonzero": (lambda self, x: torch.count_nonzero(x, dim=1), lambda: (randint(3, 6, high=3, seed=1),)),
    "CountNonzeroAll": (lambda self, x: torch.count_nonzero(torch.relu(x)), lambda: (randn(3, 6, seed=1),)),
    "BitwiseNotInt": (lambda self, x: torch.bitwise_not(x), lambda: (randint(3, 4, low=-50, high=50, seed=1),)),
    "BitwiseNotOfComparison": (lambda self, x: torch.bitwise_not(x > 0).to(torch.float32), lambda: (randn(3, 4, seed=1),)),
    "CosineSimilarity": (lambda self, x, y: F.cosine_similarity(x, y, dim=-1), lambda: (randn(4, 8, seed=1), randn(4, 8, seed=2))),
    "PairwiseDistance": (lambda self, x, y: F.pairwise_distance(x, y), lambda: (randn(4, 8, seed=1), randn(4, 8, seed=2))),
    "PairwiseDistanceP1": (lambda self, x, y: F.pairwise_distance(x, y, p=1.0, keepdim=True), lambda: (randn(4, 8, seed=1), randn(4, 8, seed=2))),
    "OneHot": (lambda self, x: F.one_hot(x, 6), lambda: (randint(2, 5, high=6, seed=1),)),
    "PixelUnshuffle": (lambda self, x: F.pixel_unshuffle(x, 2), lambda: (randn(1, 2, 4, 6, seed=1),)),
    "ChannelShuffle": (lambda self, x: F.channel_shuffle(x, 3), lambda: (randn(2, 6, 3, 3, seed=1),)),
    "DiagonalOffset": (lambda self, x: torch.diagonal(x, 1), lambda: (randn(3, 5, seed=1),)),
    "DiagonalBatched": (lambda self, x: torch.diagonal(x, -1, 1, 2) * 2, lambda: (randn(2, 4, 3, seed=1),)),
    "DiagOfMatrix": (lambda self, x: torch.diag(x), lambda: (randn(4, 3, seed=1),)),
    "Trace": (lambda self, x: torch.trace(x), lambda: (randn(4, 4, seed=1),)),
    "TensorSplitSections": (lambda self, x: torch.tensor_split(x, 4, dim=0), lambda: (randn(10, 3, seed=1),)),
    "UnfoldWindows": (lambda self, x: x.unfold(1, 3, 2), lambda: (randn(2, 9, 4, seed=1),)),
    "Kron": (lambda self, x, y: torch.kron(x, y), lambda: (randn(2, 3, seed=1), randn(3, 2, seed=2))),
    "LinalgCross": (lambda self, x, y: torch.linalg.cross(x, y), lambda: (randn(4, 3, seed=1), randn(4, 3, seed=2))),
    "CrossDim0": (lambda self, x, y: torch.linalg.cross(x, y, dim=0), lambda: (randn(3, 5, seed=1), randn(3, 5, seed=2))),
    "Cdist": (lambda self, x, y: torch.cdist(x, y), lambda: (randn(2, 5, 3, seed=1), randn(2, 4, 3, seed=2))),
    "CdistP1": (lambda self, x, y: torch.cdist(x, y, p=1.0), lambda: (randn(5, 3, seed=1), randn(4, 3, seed=2))),
    "Tensordot": (lambda self, x, y: torch.tensordot(x, y, dims=([0, 2], [1, 0])), lambda: (randn(3, 4, 5, seed=1), randn(5, 3, 2, seed=2))),
}

for _name, (_forward, _inputs) in _CASES.items():
    define_case(_name, _forward, _inputs)
