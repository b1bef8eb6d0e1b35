"""Op cases: the convenience and alias ops plain torch.export keeps whole (CompositeImplicit in
PyTorch: run_decompositions() expands them, the raw program does not), each decomposed by the
decompose plugin (plugins/decompose/convenience.cpp, aliases.cpp, array_ops.cpp, math_composites.cpp,
rank0_ops.cpp). One case per op; the "decomposed" variant
checks that PyTorch's own expansion converts too.

Left out on purpose (no decomposition; the conversion lists them as unsupported): sort, argsort,
cummax/cummin, cumprod, logcumsumexp, bucketize/searchsorted, grid_sampler,
index_add, avg_pool3d (local_response_norm) — see docs/lowering.md, "Convenience ops".
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from case_registry import define_case, rand_range, randint, randn


def _with_nans(x: torch.Tensor) -> torch.Tensor:
    """x with NaN in every third element (each row and column keeps some numbers)."""
    flat = x.flatten().clone()
    flat[::3] = float("nan")
    return flat.reshape(x.shape)


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
    # aliases.cpp: alias spellings become their canonical ops
    "AliasSpellings": (lambda self, x, y: torch.clip(torch.subtract(torch.multiply(x, y), torch.divide(x, 2.0)), -1.0, 1.0)
                       + torch.concat([torch.negative(x), torch.absolute(y)], dim=0)[:3]
                       + torch.greater(x, y).float() + torch.arctan(x) + torch.special.expit(y),
                       lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2))),
    "SpecialSoftmaxRound": (lambda self, x: torch.special.softmax(x, 1) + torch.special.round(x, decimals=2), lambda: (randn(3, 5, seed=1),)),
    "LinalgDiagonalH": (lambda self, x: torch.linalg.diagonal(x) + x.H.sum(0), lambda: (randn(4, 4, seed=1),)),
    # array_ops.cpp
    "Ravel": (lambda self, x: x.ravel() * 2, lambda: (randn(2, 3, 4, seed=1),)),
    "FlipLrUd": (lambda self, x: torch.fliplr(x) + torch.flipud(x), lambda: (randn(3, 4, seed=1),)),
    "Rot90": (lambda self, x: torch.rot90(x, 1, (1, 2)) * 2 + torch.rot90(x, -1, (1, 2)) + torch.rot90(x, 2, (2, 1)),
              lambda: (randn(2, 4, 4, seed=1),)),
    "ColumnStack": (lambda self, x, y, z: torch.column_stack([x, y, z]), lambda: (randn(4, seed=1), randn(4, 2, seed=2), randn(4, seed=3))),
    "HsplitVsplitDsplit": (lambda self, x: torch.hsplit(x, 2) + torch.vsplit(x, [1, 3]) + torch.dsplit(x, [2]),
                           lambda: (randn(4, 6, 3, seed=1),)),
    "TensorSplitIndices": (lambda self, x: torch.tensor_split(x, (2, 5), dim=1), lambda: (randn(3, 7, seed=1),)),
    "MeshgridIJ": (lambda self, x, y: torch.meshgrid(x, y, indexing="ij"), lambda: (randn(3, seed=1), randn(4, seed=2))),
    "MeshgridXY": (lambda self, x, y, z: torch.meshgrid(x, y, z, indexing="xy"), lambda: (randn(3, seed=1), randn(4, seed=2), randn(2, seed=3))),
    "CartesianProd": (lambda self, x, y: torch.cartesian_prod(x, y), lambda: (randn(3, seed=1), randn(2, seed=2))),
    "BroadcastTensors": (lambda self, x, y, z: torch.broadcast_tensors(x, y, z), lambda: (randn(3, 1, seed=1), randn(1, 4, seed=2), randn(2, 1, 1, seed=3))),
    "SumToSize": (lambda self, x: x.sum_to_size(1, 4) + x.sum_to_size(3, 1).sum(), lambda: (randn(2, 3, 4, seed=1),)),
    "DiagOfVector": (lambda self, x: torch.diag(x) + torch.diag(x, 1)[1:, :-1] + torch.diag(x, -2)[2:, :-2], lambda: (randn(4, seed=1),)),
    "DiagEmbed": (lambda self, x: torch.diag_embed(x, offset=1, dim1=0, dim2=2), lambda: (randn(2, 3, seed=1),)),
    "DiagFlat": (lambda self, x: torch.diagflat(x, -1), lambda: (randn(2, 2, seed=1),)),
    "DiagEmbedKeepsInfinities": (lambda self, x: torch.diag_embed(x / (x > 0).float()), lambda: (randn(2, 3, seed=1),)),
    "BlockDiag": (lambda self, x, y, z: torch.block_diag(x, y, z), lambda: (randn(2, 3, seed=1), randn(4, seed=2), randn(3, 1, seed=3))),
    "Inner": (lambda self, x, y: torch.inner(x, y), lambda: (randn(2, 3, 5, seed=1), randn(4, 5, seed=2))),
    "LogAddExp2": (lambda self, x, y: torch.logaddexp2(x, y), lambda: (randn(3, 4, seed=1) * 10, randn(3, 4, seed=2) * 10)),
    "CopySignScalar": (lambda self, x: torch.copysign(x, -2.0) + torch.copysign(x, -0.0) * 3 + torch.copysign(x, 1.5), lambda: (randn(3, 4, seed=1),)),
    "RmsNormTwoDims": (lambda self, x, w: F.rms_norm(x, (3, 4), w, eps=1e-5), lambda: (randn(2, 3, 4, seed=1), randn(3, 4, seed=2))),
    "EinsumThreeOperands": (lambda self, a, b, c: torch.einsum("ij,jk,kl->il", a, b, c), lambda: (randn(2, 3, seed=1), randn(3, 4, seed=2), randn(4, 5, seed=3))),
    "EinsumDiagonalAndImplicit": (lambda self, x, y: torch.einsum("iji->j", x) + torch.einsum("ij,jk", y, y.T)[0],
                                  lambda: (randn(3, 4, 3, seed=1), randn(4, 5, seed=2))),
    # math_composites.cpp and rank0_ops.cpp
    "StdMeanVarMean": (lambda self, x: torch.std_mean(x, dim=1) + torch.var_mean(x, dim=(0, 2), keepdim=True, correction=0),
                       lambda: (randn(3, 4, 5, seed=1),)),
    "NanSum": (lambda self, x: torch.nansum(x, dim=1) + torch.nansum(x), lambda: (_with_nans(randn(4, 6, seed=1)),)),
    "NanMean": (lambda self, x: torch.nanmean(x, dim=0, keepdim=True), lambda: (_with_nans(randn(4, 6, seed=1)),)),
    "VecdotMultiDot": (lambda self, x, y, m: (torch.linalg.vecdot(x, y), torch.linalg.multi_dot([x[0], m, m.T, y[1]])),
                       lambda: (randn(3, 5, seed=1), randn(3, 5, seed=2), randn(5, 4, seed=3))),
    "MatrixPower": (lambda self, m: (torch.linalg.matrix_power(m, 3), torch.linalg.matrix_power(m, 0) + torch.matrix_power(m, 1)),
                    lambda: (randn(2, 3, 3, seed=1) * 0.5,)),
    "FftShift": (lambda self, x: torch.fft.fftshift(x) + torch.fft.ifftshift(x, dim=1), lambda: (randn(5, 4, seed=1),)),
    "CrossDefaultDim": (lambda self, x, y: torch.cross(x, y), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2))),
    "XLog1PyEntr": (lambda self, x, y: torch.special.xlog1py(x, y) + torch.special.entr(y),
                    lambda: (torch.where(randn(3, 4, seed=1) > 0, randn(3, 4, seed=3), 0.0), rand_range(3, 4, low=0.0, high=3.0, seed=2))),
    "LinalgNormVector": (lambda self, x: torch.linalg.norm(x, dim=1) + torch.linalg.norm(x), lambda: (randn(3, 4, seed=1),)),
    "HeavisideIsReal": (lambda self, x, v: torch.heaviside(torch.where(x > 0.5, 0.0, x), v) + torch.isreal(x).float(),
                        lambda: (randn(3, 4, seed=1), randn(4, seed=2))),
    "PreluScalarWeight": (lambda self, x, w: F.prelu(x, w), lambda: (randn(7, seed=1), randn(1, seed=2))),
    "RankZeroSelections": (lambda self, x, i: (torch.index_select(x, 0, i), torch.max(x, 0)[0] + torch.softmax(x, 0) + torch.log_softmax(x, 0),
                                                torch.topk(x, 1)[1]),
                           lambda: (randn(seed=1), torch.zeros(1, dtype=torch.int64))),
}

for _name, (_forward, _inputs) in _CASES.items():
    define_case(_name, _forward, _inputs)
