"""Op cases: pooling (max, average, adaptive) and normalisations (batch, layer, group, instance, RMS).

Max-pooling cases with padding use all-negative inputs so a zero (instead of
-inf) padding value would change the result.  Normalisation modules get
non-trivial affine parameters and running statistics, so an ignored weight,
bias, mean or variance shows up in the comparison.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from case_registry import define_case, rand_range, randn

BATCH = Dim("batch", min=1, max=128)
SEQ = Dim("seq", min=2, max=512)


def _negative(*shape: int, seed: int = 1) -> torch.Tensor:
    return rand_range(*shape, low=-3.0, high=-0.5, seed=seed)


# ---------------------------------------------------------------------------
# Max pooling.
# ---------------------------------------------------------------------------

for _name, _fn, _make in [
    ("MaxPool2dNoStride", lambda x: F.max_pool2d(x, 3), lambda: (randn(1, 2, 9, 9, seed=1),)),
    ("MaxPool2dStride1", lambda x: F.max_pool2d(x, 2, stride=1), lambda: (randn(1, 2, 6, 6, seed=1),)),
    ("MaxPool2dNonSquare", lambda x: F.max_pool2d(x, (2, 3), stride=(2, 1)), lambda: (randn(2, 3, 8, 9, seed=1),)),
    ("MaxPool2dCeilMode", lambda x: F.max_pool2d(x, 3, stride=2, ceil_mode=True), lambda: (_negative(1, 2, 8, 8),)),
    ("MaxPool2dPaddingCeilMode", lambda x: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), lambda: (_negative(1, 2, 8, 8),)),
    ("MaxPool2dDilation", lambda x: F.max_pool2d(x, 2, stride=1, dilation=2), lambda: (randn(1, 2, 7, 7, seed=1),)),
    ("MaxPool2dPaddingAsymmetricInput", lambda x: F.max_pool2d(x, 3, stride=2, padding=(1, 0)), lambda: (_negative(1, 3, 7, 10),)),
    ("MaxPool1d", lambda x: F.max_pool1d(x, 2), lambda: (randn(2, 3, 10, seed=1),)),
    ("MaxPool3d", lambda x: F.max_pool3d(x, 2), lambda: (randn(1, 2, 4, 4, 4, seed=1),)),
    ("AdaptiveMaxPool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), lambda: (randn(1, 3, 6, 9, seed=1),)),
    ("AdaptiveAvgPool2d1x1", lambda x: F.adaptive_avg_pool2d(x, 1), lambda: (randn(2, 4, 7, 7, seed=1),)),
    ("AdaptiveAvgPool2dDivisible", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), lambda: (randn(1, 3, 6, 9, seed=1),)),
    ("AdaptiveAvgPool2dUneven", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), lambda: (randn(1, 2, 7, 5, seed=1),)),
    ("AdaptiveAvgPool1d", lambda x: F.adaptive_avg_pool1d(x, 4), lambda: (randn(2, 3, 8, seed=1),)),
    ("AvgPool2dNoStride", lambda x: F.avg_pool2d(x, 3), lambda: (randn(1, 2, 9, 9, seed=1),)),
    ("AvgPool2dNonSquare", lambda x: F.avg_pool2d(x, (3, 2), stride=(1, 2)), lambda: (randn(2, 3, 7, 8, seed=1),)),
    ("AvgPool2dCeilMode", lambda x: F.avg_pool2d(x, 3, stride=2, ceil_mode=True), lambda: (randn(1, 2, 8, 8, seed=1),)),
    (
        "AvgPool2dCeilModePadding",
        lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=True),
        lambda: (randn(1, 2, 8, 8, seed=1),),
    ),
    ("AvgPool2dPaddingExcludedNonSquare", lambda x: F.avg_pool2d(x, (3, 5), stride=1, padding=(1, 2), count_include_pad=False), lambda: (randn(1, 2, 6, 7, seed=1),)),
    ("AvgPool2dDivisorOverride", lambda x: F.avg_pool2d(x, 2, divisor_override=3), lambda: (randn(1, 2, 6, 6, seed=1),)),
    ("AvgPool1d", lambda x: F.avg_pool1d(x, 3, stride=2), lambda: (randn(2, 3, 11, seed=1),)),
    ("AvgPool3d", lambda x: F.avg_pool3d(x, 2), lambda: (randn(1, 2, 4, 4, 4, seed=1),)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), _make)

define_case(
    "MaxPool2dWithIndices",
    lambda self, x: F.max_pool2d(x, 2, return_indices=True),
    lambda: (randn(1, 2, 6, 6, seed=1),),
    doc="Both outputs of max_pool2d_with_indices: values and flat spatial indices.",
)


def _pool_modules(self):
    self.max = nn.MaxPool2d(3, stride=2, padding=1)
    self.avg = nn.AvgPool2d(2)


define_case(
    "PoolModules",
    lambda self, x: self.avg(self.max(x)),
    lambda: (randn(1, 3, 12, 12, seed=1),),
    setup=_pool_modules,
)
define_case(
    "DynamicMaxPool2d",
    lambda self, x: F.max_pool2d(x, 2),
    lambda: (randn(2, 3, 8, 8, seed=1),),
    second_inputs=lambda: (randn(5, 3, 8, 8, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)
define_case(
    "DynamicAvgPool2dWithAdd",
    lambda self, x: F.avg_pool2d(x, 2) + 1.0,
    lambda: (randn(3, 2, 6, 6, seed=1),),
    second_inputs=lambda: (randn(1, 2, 6, 6, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)
define_case(
    "DynamicAdaptiveAvgPool2d",
    lambda self, x: torch.flatten(F.adaptive_avg_pool2d(x, 1), 1),
    lambda: (randn(2, 4, 5, 5, seed=1),),
    second_inputs=lambda: (randn(6, 4, 5, 5, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)

# ---------------------------------------------------------------------------
# Batch normalisation (eval mode: running statistics).
# ---------------------------------------------------------------------------


def _with_statistics(norm: nn.modules.batchnorm._NormBase) -> nn.Module:
    channels = norm.num_features
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():
        norm.running_mean.copy_(torch.randn(channels, generator=generator) * 0.5)
        norm.running_var.copy_(torch.rand(channels, generator=generator) + 0.5)
        if norm.affine:
            norm.weight.copy_(torch.rand(channels, generator=generator) + 0.5)
            norm.bias.copy_(torch.randn(channels, generator=generator) * 0.5)
    return norm


def _norm_case(name: str, factory, shape: tuple, doc: str = "", **attributes) -> None:
    def setup(self):
        self.norm = factory()

    define_case(name, lambda self, x: self.norm(x), lambda: (randn(*shape, seed=1),), setup=setup, doc=doc, **attributes)


_norm_case("BatchNorm2d", lambda: _with_statistics(nn.BatchNorm2d(4)), (2, 4, 5, 5))
_norm_case("BatchNorm2dNoAffine", lambda: _with_statistics(nn.BatchNorm2d(4, affine=False)), (2, 4, 5, 5))
_norm_case("BatchNorm1d", lambda: _with_statistics(nn.BatchNorm1d(6)), (3, 6))
_norm_case("BatchNorm1dSequence", lambda: _with_statistics(nn.BatchNorm1d(6)), (2, 6, 7), doc="[N, C, L] input.")
_norm_case("BatchNorm3d", lambda: _with_statistics(nn.BatchNorm3d(3)), (1, 3, 2, 4, 4))


def _conv_bn(self):
    self.conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
    self.bn = _with_statistics(nn.BatchNorm2d(4))


define_case("Conv2dBatchNormRelu", lambda self, x: torch.relu(self.bn(self.conv(x))), lambda: (randn(1, 3, 6, 6, seed=1),), setup=_conv_bn)
define_case(
    "BatchNormFunctional",
    lambda self, x, mean, var: F.batch_norm(x, mean, var, eps=1e-3),
    lambda: (randn(2, 3, 4, seed=1), randn(3, seed=2), rand_range(3, low=0.5, high=1.5, seed=3)),
    doc="Running statistics as runtime inputs.",
)

# ---------------------------------------------------------------------------
# Layer / group / instance / RMS normalisation.
# ---------------------------------------------------------------------------


def _affine(norm: nn.Module) -> nn.Module:
    generator = torch.Generator().manual_seed(9)
    with torch.no_grad():
        for parameter in norm.parameters():
            parameter.copy_(torch.rand(parameter.shape, generator=generator) + 0.5)
    return norm


_norm_case("LayerNorm", lambda: _affine(nn.LayerNorm(16)), (2, 5, 16))
_norm_case("LayerNorm2D", lambda: _affine(nn.LayerNorm(8)), (4, 8))
_norm_case("LayerNormNoAffine", lambda: nn.LayerNorm(16, elementwise_affine=False), (2, 5, 16))
_norm_case("LayerNormNoBias", lambda: _affine(nn.LayerNorm(16, bias=False)), (2, 5, 16))
_norm_case("LayerNormMultiDim", lambda: _affine(nn.LayerNorm((4, 6))), (2, 3, 4, 6), doc="Normalised over the last two dims.")
_norm_case("LayerNormEps", lambda: _affine(nn.LayerNorm(16, eps=1e-2)), (3, 16))
define_case(
    "LayerNormChannelsLast",
    lambda self, x: self.norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2),
    lambda: (randn(1, 8, 4, 4, seed=1),),
    setup=lambda self: setattr(self, "norm", _affine(nn.LayerNorm(8))),
    doc="LayerNorm over channels of an NCHW tensor (ConvNeXt pattern).",
)
define_case(
    "LayerNormFunctionalInputs",
    lambda self, x, w, b: F.layer_norm(x, (8,), w, b),
    lambda: (randn(3, 8, seed=1), randn(8, seed=2), randn(8, seed=3)),
)
_norm_case("GroupNorm", lambda: _affine(nn.GroupNorm(2, 6)), (2, 6, 4, 4))
_norm_case("GroupNormOneGroup", lambda: _affine(nn.GroupNorm(1, 4)), (2, 4, 3, 3))
_norm_case("GroupNormPerChannel", lambda: _affine(nn.GroupNorm(4, 4)), (2, 4, 3, 3), doc="groups == channels: instance norm with affine.")
_norm_case("GroupNormNoAffine", lambda: nn.GroupNorm(3, 6, affine=False), (1, 6, 5, 5))
_norm_case("GroupNorm3D", lambda: _affine(nn.GroupNorm(2, 4)), (2, 4, 7), doc="[N, C, L] input.")
_norm_case("InstanceNorm2d", lambda: nn.InstanceNorm2d(3), (2, 3, 5, 5))
_norm_case("InstanceNorm2dAffine", lambda: _affine(nn.InstanceNorm2d(3, affine=True)), (2, 3, 5, 5))
_norm_case("InstanceNorm1d", lambda: nn.InstanceNorm1d(4), (2, 4, 9))
_norm_case("RMSNorm", lambda: _affine(nn.RMSNorm(16)), (2, 5, 16))
_norm_case("RMSNormEps", lambda: _affine(nn.RMSNorm(16, eps=1e-6)), (3, 16))
_norm_case("RMSNormNoAffine", lambda: nn.RMSNorm(16, elementwise_affine=False), (2, 16))


def _manual_rms(self, x):
    # The Llama spelling of RMS normalisation, written out with primitives.
    variance = x.pow(2).mean(-1, keepdim=True)
    return self.weight * (x * torch.rsqrt(variance + 1e-6))


define_case(
    "RMSNormManual",
    _manual_rms,
    lambda: (randn(2, 5, 16, seed=1),),
    setup=lambda self: setattr(self, "weight", nn.Parameter(torch.rand(16) + 0.5)),
)
define_case(
    "NormalizeL2",
    lambda self, x: F.normalize(x, dim=-1),
    lambda: (randn(3, 8, seed=1),),
)
define_case(
    "DynamicLayerNormSeq",
    lambda self, x: self.norm(x),
    lambda: (randn(2, 6, 16, seed=1),),
    setup=lambda self: setattr(self, "norm", _affine(nn.LayerNorm(16))),
    second_inputs=lambda: (randn(2, 11, 16, seed=2),),
    dynamic_shapes=lambda: ({1: SEQ},),
)
define_case(
    "DynamicRMSNormSeq",
    lambda self, x: self.norm(x),
    lambda: (randn(1, 6, 16, seed=1),),
    setup=lambda self: setattr(self, "norm", _affine(nn.RMSNorm(16, eps=1e-6))),
    second_inputs=lambda: (randn(1, 9, 16, seed=2),),
    dynamic_shapes=lambda: ({1: SEQ},),
)
define_case(
    "DynamicBatchNorm2d",
    lambda self, x: self.norm(x),
    lambda: (randn(2, 4, 5, 5, seed=1),),
    setup=lambda self: setattr(self, "norm", _with_statistics(nn.BatchNorm2d(4))),
    second_inputs=lambda: (randn(7, 4, 5, 5, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)

# nn.Unfold / nn.Fold (im2col / col2im, window_im2col.cpp): padding, dilation, strides that
# leave gaps, overlapping windows that add up in Fold, an unbatched input.
_IM2COL_CASES = {
    "UnfoldPadded": (lambda self, x: F.unfold(x, 3, padding=1), lambda: (randn(2, 3, 5, 6, seed=1),)),
    "UnfoldDilatedStrided": (lambda self, x: F.unfold(x, (2, 3), dilation=(2, 1), stride=(2, 3)), lambda: (randn(1, 2, 7, 9, seed=2),)),
    "FoldOverlapping": (lambda self, x: F.fold(x, (6, 5), 3, padding=1), lambda: (randn(2, 2 * 9, 30, seed=3),)),
    "FoldStrided": (lambda self, x: F.fold(x, (7, 8), (3, 2), dilation=(1, 2), padding=(1, 0), stride=(2, 3)),
                    lambda: (randn(1, 4 * 6, 4 * 2, seed=4),)),
    "UnfoldThenFold": (lambda self, x: F.fold(F.unfold(x, 3, padding=1, stride=2) * 0.5, (6, 6), 3, padding=1, stride=2),
                       lambda: (randn(2, 3, 6, 6, seed=5),)),
    "UnfoldUnbatched": (lambda self, x: F.unfold(x, 2, stride=2), lambda: (randn(3, 4, 6, seed=6),)),
}
for _name, (_forward, _inputs) in _IM2COL_CASES.items():
    define_case(_name, _forward, _inputs)
