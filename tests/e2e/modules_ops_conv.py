"""Op cases: convolutions (1-D, 2-D, 3-D; depthwise, grouped, transposed) and their options.

Options covered: stride, dilation, zero padding given as ints, tuples, "same"
and "valid" (1-, 2- and 3-D, grouped and depthwise, even effective kernels), the
reflect/replicate/circular padding modes, bias on and off,
weights given as runtime tensors, and a dynamic batch dimension.  PyTorch's
default initialisation keeps outputs O(1), so 1e-5 holds for these sizes.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from case_registry import define_case, randn

BATCH = Dim("batch", min=1, max=128)


def _module(factory):
    def setup(self):
        self.conv = factory()

    return setup


def _conv_case(name: str, factory, shape: tuple, doc: str = "") -> None:
    define_case(name, lambda self, x: self.conv(x), lambda: (randn(*shape, seed=1),), setup=_module(factory), doc=doc)


# ---------------------------------------------------------------------------
# conv2d.
# ---------------------------------------------------------------------------

_conv_case("Conv2dNoBias", lambda: nn.Conv2d(3, 6, 3, bias=False), (1, 3, 8, 8))
_conv_case("Conv2dBatch3", lambda: nn.Conv2d(2, 4, 3, padding=1), (3, 2, 7, 7))
_conv_case("Conv2d1x1", lambda: nn.Conv2d(8, 4, 1), (2, 8, 5, 5), doc="Pointwise convolution.")
_conv_case("Conv2dNonSquareKernel", lambda: nn.Conv2d(3, 4, (2, 4)), (1, 3, 7, 9))
_conv_case("Conv2dStride2", lambda: nn.Conv2d(3, 4, 3, stride=2), (1, 3, 9, 9))
_conv_case("Conv2dAsymmetricStride", lambda: nn.Conv2d(3, 4, 3, stride=(1, 2), padding=1), (1, 3, 8, 9))
_conv_case("Conv2dPaddingTuple", lambda: nn.Conv2d(3, 4, 3, padding=(1, 2)), (1, 3, 6, 6))
_conv_case("Conv2dPaddingValid", lambda: nn.Conv2d(3, 4, 3, padding="valid"), (1, 3, 6, 6))
_conv_case("Conv2dPaddingSameEvenKernel", lambda: nn.Conv2d(3, 4, 4, padding="same"), (1, 3, 7, 7), doc="'same' with an even kernel pads asymmetrically.")
_conv_case("Conv2dPaddingSameDilation", lambda: nn.Conv2d(3, 4, 3, padding="same", dilation=2), (1, 3, 9, 9))
_conv_case("Conv2dDilationStride", lambda: nn.Conv2d(3, 4, 3, stride=2, dilation=(2, 1), padding=1), (1, 3, 11, 10))
_conv_case("Conv2dReflectPad", lambda: nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect"), (1, 3, 6, 7))
_conv_case("Conv2dReplicatePad", lambda: nn.Conv2d(3, 4, 3, padding=1, padding_mode="replicate"), (1, 3, 6, 7))
_conv_case("Conv2dCircularPad", lambda: nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular"), (1, 3, 6, 7))
_conv_case("Conv2dLargeKernel", lambda: nn.Conv2d(2, 3, 7, padding=3), (1, 2, 12, 12))
_conv_case("Conv2dManyChannels", lambda: nn.Conv2d(32, 48, 3, padding=1), (1, 32, 6, 6))
define_case(
    "Conv2dTensorWeights",
    lambda self, x, w, b: F.conv2d(x, w, b, padding=1),
    lambda: (randn(1, 3, 6, 6, seed=1), randn(4, 3, 3, 3, seed=2) * 0.2, randn(4, seed=3)),
    doc="Weight and bias are runtime inputs (no constant filter).",
)
define_case(
    "Conv2dTensorWeightNoBias",
    lambda self, x, w: F.conv2d(x, w, stride=2),
    lambda: (randn(1, 3, 7, 7, seed=1), randn(4, 3, 3, 3, seed=2) * 0.2),
)


def _two_convs(self):
    self.a = nn.Conv2d(3, 4, 3, padding=1)
    self.b = nn.Conv2d(3, 4, 1)


define_case("Conv2dTwoOnSameInput", lambda self, x: self.a(x) + self.b(x), lambda: (randn(1, 3, 6, 6, seed=1),), setup=_two_convs)

# ---------------------------------------------------------------------------
# depthwise and grouped conv2d.
# ---------------------------------------------------------------------------

_conv_case("DepthwiseConv2d", lambda: nn.Conv2d(4, 4, 3, groups=4, padding=1), (1, 4, 7, 7))
_conv_case("DepthwiseConv2dMultiplier2", lambda: nn.Conv2d(3, 6, 3, groups=3), (1, 3, 7, 7), doc="Depth multiplier 2: out_channels = 2 * groups.")
_conv_case("DepthwiseConv2dStride2NoBias", lambda: nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8, bias=False), (2, 8, 9, 9))
_conv_case("DepthwiseConv2dSame", lambda: nn.Conv2d(4, 4, 5, groups=4, padding="same"), (1, 4, 8, 8))
_conv_case("DepthwiseConv2dDilation", lambda: nn.Conv2d(4, 4, 3, groups=4, dilation=2, padding=2), (1, 4, 9, 9))
_conv_case("GroupedConv2d", lambda: nn.Conv2d(4, 6, 3, groups=2, padding=1), (1, 4, 6, 6))
_conv_case("GroupedConv2dFourGroups", lambda: nn.Conv2d(8, 8, 3, groups=4), (2, 8, 6, 6))
_conv_case("GroupedConv2dValidNoBias", lambda: nn.Conv2d(6, 9, 3, groups=3, bias=False, padding="valid"), (1, 6, 6, 6))
define_case(
    "GroupedConv2dTensorWeights",
    lambda self, x, w, b: F.conv2d(x, w, b, groups=2),
    lambda: (randn(1, 4, 6, 6, seed=1), randn(6, 2, 3, 3, seed=2) * 0.3, randn(6, seed=3)),
)

# ---------------------------------------------------------------------------
# conv1d.
# ---------------------------------------------------------------------------

_conv_case("Conv1d", lambda: nn.Conv1d(3, 5, 3), (2, 3, 10))
_conv_case("Conv1dPadding1", lambda: nn.Conv1d(3, 5, 3, padding=1), (1, 3, 10))
_conv_case("Conv1dPaddingSame", lambda: nn.Conv1d(3, 5, 4, padding="same"), (1, 3, 10))
_conv_case("Conv1dStrideDilation", lambda: nn.Conv1d(3, 5, 3, stride=2, dilation=2), (1, 3, 15))
_conv_case("Conv1dNoBias", lambda: nn.Conv1d(4, 4, 5, bias=False), (1, 4, 12))
_conv_case("Conv1dDepthwise", lambda: nn.Conv1d(4, 4, 3, groups=4, padding=1), (1, 4, 9))
_conv_case("Conv1dGrouped", lambda: nn.Conv1d(4, 6, 3, groups=2), (1, 4, 9))
_conv_case("Conv1dReflectPad", lambda: nn.Conv1d(2, 3, 3, padding=1, padding_mode="reflect"), (1, 2, 8))

# ---------------------------------------------------------------------------
# conv3d.
# ---------------------------------------------------------------------------

_conv_case("Conv3d", lambda: nn.Conv3d(2, 4, 3), (1, 2, 5, 6, 6))
_conv_case("Conv3dPadding", lambda: nn.Conv3d(2, 3, 3, padding=1), (1, 2, 4, 5, 5))
_conv_case("Conv3dStride", lambda: nn.Conv3d(2, 3, 3, stride=(1, 2, 2)), (1, 2, 5, 7, 7))
_conv_case("Conv3dNoBiasNonCubic", lambda: nn.Conv3d(2, 3, (2, 3, 1), bias=False), (2, 2, 4, 5, 6))
_conv_case("Conv3dDilation", lambda: nn.Conv3d(2, 3, 2, dilation=2), (1, 2, 5, 5, 5))
_conv_case("Conv3dGrouped", lambda: nn.Conv3d(4, 4, 3, groups=2, padding=1), (1, 4, 3, 4, 4))
_conv_case(
    "Conv3dPatchEmbed",
    lambda: nn.Conv3d(3, 8, kernel_size=(2, 4, 4), stride=(2, 4, 4), bias=False),
    (1, 3, 4, 8, 8),
    doc="Video/VLM patch embedding: kernel == stride, no overlap.",
)

# ---------------------------------------------------------------------------
# Padding modes ("same", "valid": the .padding overloads) with strides, dilations,
# groups, and even effective kernels ("same" then pads one more after, as ATen does).
# ---------------------------------------------------------------------------

for _name, _factory, _shape in [
    ("Conv1dPaddingValidStride", lambda: nn.Conv1d(3, 5, 3, padding="valid", stride=2), (1, 3, 11)),
    ("Conv1dPaddingSameDilation", lambda: nn.Conv1d(3, 5, 3, padding="same", dilation=3), (2, 3, 12)),
    ("Conv1dGroupedSameEven", lambda: nn.Conv1d(4, 6, 4, groups=2, padding="same"), (1, 4, 9)),
    ("Conv1dDepthwiseSame", lambda: nn.Conv1d(4, 8, 5, groups=4, padding="same"), (1, 4, 9)),
    ("Conv2dPaddingSameMixed", lambda: nn.Conv2d(3, 4, (3, 4), padding="same"), (1, 3, 6, 7)),
    ("Conv2dPaddingSameEvenDilated", lambda: nn.Conv2d(3, 4, 2, padding="same", dilation=3), (1, 3, 8, 7)),
    ("Conv2dPaddingValidStrideDilation", lambda: nn.Conv2d(3, 4, 3, padding="valid", stride=2, dilation=2), (1, 3, 11, 10)),
    ("GroupedConv2dSameEven", lambda: nn.Conv2d(4, 6, 4, groups=2, padding="same"), (1, 4, 6, 6)),
    ("DepthwiseConv2dSameEven", lambda: nn.Conv2d(4, 4, (4, 2), groups=4, padding="same"), (2, 4, 7, 6)),
    ("Conv3dPaddingSame", lambda: nn.Conv3d(2, 3, 3, padding="same"), (1, 2, 4, 5, 5)),
    ("Conv3dPaddingSameEvenKernel", lambda: nn.Conv3d(2, 3, (2, 3, 4), padding="same"), (1, 2, 4, 5, 6)),
    ("Conv3dPaddingSameDilation", lambda: nn.Conv3d(2, 3, 3, padding="same", dilation=(1, 2, 2)), (2, 2, 3, 6, 6)),
    ("Conv3dPaddingValidStride", lambda: nn.Conv3d(2, 3, 3, padding="valid", stride=(1, 2, 2)), (1, 2, 5, 7, 6)),
    ("Conv3dGroupedSame", lambda: nn.Conv3d(4, 6, 3, groups=2, padding="same"), (1, 4, 3, 5, 5)),
    ("Conv3dGroupedStrideNoBias", lambda: nn.Conv3d(6, 4, (1, 3, 3), groups=2, stride=(1, 2, 2), bias=False), (1, 6, 2, 7, 7)),
    ("Conv3dDepthwise", lambda: nn.Conv3d(4, 4, 3, groups=4, padding=1), (1, 4, 3, 5, 5)),
    ("Conv3dDepthwiseMultiplier2", lambda: nn.Conv3d(3, 6, (2, 3, 3), groups=3), (2, 3, 4, 5, 5)),
    ("Conv3dDepthwiseSameEven", lambda: nn.Conv3d(4, 8, 2, groups=4, padding="same"), (1, 4, 3, 4, 4)),
]:
    _conv_case(_name, _factory, _shape)

# ---------------------------------------------------------------------------
# Transposed convolutions.
# ---------------------------------------------------------------------------

_conv_case("ConvTranspose2d", lambda: nn.ConvTranspose2d(4, 3, 3), (1, 4, 5, 5))
_conv_case("ConvTranspose2dStride2", lambda: nn.ConvTranspose2d(4, 3, 2, stride=2), (1, 4, 5, 5), doc="2x upsampling without overlap.")
_conv_case("ConvTranspose2dStride2Pad1", lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1), (1, 4, 5, 5))
_conv_case("ConvTranspose2dOutputPadding", lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), (2, 4, 4, 4))
_conv_case("ConvTranspose2dK4S2P1", lambda: nn.ConvTranspose2d(3, 2, 4, stride=2, padding=1), (1, 3, 4, 6), doc="The decoder pattern that exactly doubles H and W.")
_conv_case("ConvTranspose2dNoBias", lambda: nn.ConvTranspose2d(3, 5, 3, bias=False), (1, 3, 4, 4))
_conv_case("ConvTranspose2dAsymmetric", lambda: nn.ConvTranspose2d(3, 4, (3, 5), stride=(2, 1), padding=(1, 2)), (1, 3, 4, 5))
_conv_case("ConvTranspose2dDilation", lambda: nn.ConvTranspose2d(3, 2, 3, dilation=2), (1, 3, 4, 4))
_conv_case("ConvTranspose2dGrouped", lambda: nn.ConvTranspose2d(4, 6, 3, groups=2), (1, 4, 4, 4))
_conv_case("ConvTranspose1d", lambda: nn.ConvTranspose1d(4, 3, 3, stride=2), (1, 4, 6))
_conv_case("ConvTranspose3d", lambda: nn.ConvTranspose3d(2, 3, 2, stride=2), (1, 2, 2, 3, 3))

# ---------------------------------------------------------------------------
# Dynamic batch (the original tests these on onert only).
# ---------------------------------------------------------------------------


def _dynamic_conv_case(name: str, factory, shape: tuple, second_batch: int, doc: str = "") -> None:
    define_case(
        name,
        lambda self, x: self.conv(x),
        lambda: (randn(*shape, seed=1),),
        setup=_module(factory),
        second_inputs=lambda: (randn(second_batch, *shape[1:], seed=2),),
        dynamic_shapes=lambda: ({0: BATCH},),
        doc=doc,
    )


_dynamic_conv_case("DynamicConv2dStride2", lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 8, 8), 5)
_dynamic_conv_case("DynamicDepthwiseConv2d", lambda: nn.Conv2d(4, 4, 3, groups=4, padding=1), (2, 4, 6, 6), 3)
_dynamic_conv_case("DynamicConvTranspose2d", lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1), (2, 4, 5, 5), 4)
_dynamic_conv_case("DynamicConv1d", lambda: nn.Conv1d(3, 4, 3, padding=1), (2, 3, 10), 6)
_dynamic_conv_case("DynamicConv2dSameEven", lambda: nn.Conv2d(3, 4, 4, padding="same"), (2, 3, 6, 6), 3)
_dynamic_conv_case("DynamicConv3dSameEven", lambda: nn.Conv3d(2, 3, 2, padding="same"), (2, 2, 3, 4, 4), 3)
_dynamic_conv_case("DynamicConv3dGrouped", lambda: nn.Conv3d(4, 6, 3, groups=2, padding=1), (2, 4, 3, 4, 4), 3)
