"""Cases: the original converter's ``circle_custom::`` ops, one module per op.

The original converter's Python package (``tico==0.3.0`` on PyPI, installed by
packaging/install-deps.sh) registers these ops with ``torch.library`` when it is
imported, and a program exported with it imported records them as they are: the
graphs here really contain ``circle_custom::*`` nodes (``run_decompositions()``
keeps them too).  Every op takes channels-last (NHWC) tensors.

The reference is the op's eager kernel from that package, except where the
kernel cannot run, and then the reference says what stands in for it:

* ``resize_nearest_neighbor``: the kernel reads ``size[1]`` and ``size[2]`` of
  the two-element ``[H, W]`` size its own fake kernel and serializer use, so it
  raises IndexError; the reference is what the serializer emits (TFLite
  RESIZE_NEAREST_NEIGHBOR, no align_corners or half-pixel centres), which is
  PyTorch's ``nearest`` interpolation of the NCHW view.
* ``attention``: the kernel returns None (the op stands for onert's fused
  decoder attention); the reference is that attention written out in PyTorch,
  following the operator's contract (docs/interpreter.md, ATTENTION).

``torch.compiler.is_exporting()`` picks the custom op while exporting and the
stand-in reference in eager mode; the reloaded program (test_export_only) runs
the package's kernel and fails as described (a strict expected failure).

The MX quantization ops become MX-typed Circle tensors (docs/quantization.md,
"MX"): ``mx_fake_quantize`` is a case here (its kernel runs); ``quantize_mx`` and
``dequantize_mx`` have kernels that always raise, so test_circle_custom.py
checks their conversion against ``mx_fake_quantize`` directly.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from case_registry import define_case, randint, randn

try:
    from tico.utils.register_custom_op import RegisterOps as _register_original_ops
except ImportError as error:  # reported by every case of this file, never skipped
    _MISSING = (
        f"the original converter's package tico==0.3.0 is not importable ({error}); "
        "packaging/install-deps.sh installs it into the test virtual environment"
    )
else:
    _MISSING = ""
    _register_original_ops()

BATCH = Dim("batch", min=1, max=64)


def _ops():
    if _MISSING:
        raise RuntimeError(_MISSING)
    return torch.ops.circle_custom


def _parameter(*shape: int, seed: int, scale: float = 1.0) -> nn.Parameter:
    return nn.Parameter(randn(*shape, seed=seed) * scale)


def _setup(**parameters):
    """A setup function creating the given parameters: name -> (shape, seed[, scale])."""

    def setup(self):
        _ops()  # a missing package fails the case here, with the reason
        for name, spec in parameters.items():
            setattr(self, name, _parameter(*spec[0], seed=spec[1], scale=spec[2] if len(spec) > 2 else 1.0))

    return setup


# ---------------------------------------------------------------------------
# Convolutions: NHWC input, OHWI weight ([1, KH, KW, C*M] for depthwise).
# ---------------------------------------------------------------------------

define_case(
    "CircleCustomConv2d",
    lambda self, x: _ops().conv2d(x, self.w, self.b, [2, 1], [1, 0], [1, 2]),
    lambda: (randn(1, 7, 8, 3, seed=1),),
    setup=_setup(w=((4, 3, 3, 3), 2, 0.3), b=((4,), 3)),
    doc="Stride (2, 1), padding (1, 0), dilation (1, 2), bias.",
)
define_case(
    "CircleCustomConv2dDefaults",
    lambda self, x: _ops().conv2d(x, self.w),
    lambda: (randn(2, 5, 5, 3, seed=1),),
    setup=_setup(w=((4, 2, 2, 3), 2, 0.3)),
    doc="Every attribute left None (the kernel's defaults), no bias.",
)
define_case(
    "CircleCustomConv2dPaddingSame",
    lambda self, x: _ops().conv2d.padding(x, self.w, self.b, [2, 2], "same"),
    lambda: (randn(1, 7, 8, 3, seed=1),),
    setup=_setup(w=((4, 4, 4, 3), 2, 0.3), b=((4,), 3)),
    doc="TFLite SAME with stride 2 and an even kernel: ceil(in / 2) outputs, the odd padding after.",
)
define_case(
    "CircleCustomConv2dPaddingValid",
    lambda self, x: _ops().conv2d.padding(x, self.w, None, [1, 2], "VALID", [2, 1]),
    lambda: (randn(1, 8, 9, 3, seed=1),),
    setup=_setup(w=((5, 3, 3, 3), 2, 0.3)),
    doc="'VALID' in upper case (the kernel lower-cases it), dilation (2, 1).",
)
define_case(
    "CircleCustomDepthwiseConv2d",
    lambda self, x: _ops().depthwise_conv2d(x, self.w, self.b, [1, 1], [1, 1], [1, 1], 4),
    lambda: (randn(1, 6, 6, 4, seed=1),),
    setup=_setup(w=((1, 3, 3, 8), 2, 0.3), b=((8,), 3)),
    doc="Depth multiplier 2: [1, 3, 3, 8] weight, groups = 4 input channels.",
)
define_case(
    "CircleCustomDepthwiseConv2dPaddingSame",
    lambda self, x: _ops().depthwise_conv2d.padding(x, self.w, self.b, [2, 2], "same", [1, 1], 3),
    lambda: (randn(1, 9, 8, 3, seed=1),),
    setup=_setup(w=((1, 3, 3, 3), 2, 0.3), b=((3,), 3)),
    doc="TFLite SAME with stride 2 on odd and even sizes.",
)
define_case(
    "CircleCustomTransposeConv",
    lambda self, x: _ops().transpose_conv(x, self.w, self.b, [2, 2], [1, 1], [1, 1]),
    lambda: (randn(1, 4, 5, 3, seed=1),),
    setup=_setup(w=((5, 3, 3, 3), 2, 0.3), b=((5,), 3)),
    doc="OHWI weight (O = 5 output channels), stride 2, padding 1, output_padding 1.",
)

# ---------------------------------------------------------------------------
# Pooling and normalisation.
# ---------------------------------------------------------------------------

define_case(
    "CircleCustomMaxPool2d",
    lambda self, x: _ops().maxpool2d(x, [3, 3], [2, 2], [1, 1]),
    lambda: (randn(1, 8, 7, 3, seed=1),),
    setup=_setup(),
)
define_case(
    "CircleCustomAvgPool2d",
    lambda self, x: _ops().avgpool2d(x, [3, 2], None, [1, 0]),
    lambda: (randn(2, 7, 6, 3, seed=1),),
    setup=_setup(),
    doc="Stride None (the kernel), padding counted in the divisor (count_include_pad default).",
)
define_case(
    "CircleCustomInstanceNorm",
    lambda self, x: _ops().instance_norm(x, self.w, self.b, eps=1e-3),
    lambda: (randn(2, 5, 6, 4, seed=1) * 2 + 1,),
    setup=_setup(w=((4,), 2), b=((4,), 3)),
)
define_case(
    "CircleCustomRmsNorm",
    lambda self, x: _ops().rms_norm(x, self.w, 1e-5),
    lambda: (randn(2, 5, 16, seed=1),),
    setup=_setup(w=((16,), 2)),
)
define_case(
    "CircleCustomPrelu",
    lambda self, x: _ops().prelu(x, self.w),
    lambda: (randn(1, 4, 5, 3, seed=1),),
    setup=_setup(w=((3,), 2, 0.5)),
    doc="One slope per channel (the last dim).",
)
define_case(
    "CircleCustomPreluShared",
    lambda self, x: _ops().prelu(x, self.w),
    lambda: (randn(2, 3, 6, seed=1),),
    setup=_setup(w=((1,), 2, 0.5)),
    doc="One slope for every element, on a rank-3 input.",
)

# ---------------------------------------------------------------------------
# Resizing.
# ---------------------------------------------------------------------------


def _nearest(self, x):
    if torch.compiler.is_exporting():
        return _ops().resize_nearest_neighbor(x, [6, 8])
    # The package's kernel fails on a [H, W] size (see the module docstring); this is what its
    # serializer emits, RESIZE_NEAREST_NEIGHBOR: source index floor(i * in / out).
    return F.interpolate(x.permute(0, 3, 1, 2), size=(6, 8), mode="nearest").permute(0, 2, 3, 1)


define_case("CircleCustomResizeNearestNeighbor", _nearest, lambda: (randn(1, 3, 4, 2, seed=1),), setup=_setup())

for _name, _size, _align, _half, _doc in [
    ("CircleCustomResizeBilinear", [7, 9], False, False, "No flags: source i * in / out."),
    ("CircleCustomResizeBilinearAlignCorners", [7, 9], True, False, "align_corners: i * (in - 1) / (out - 1)."),
    ("CircleCustomResizeBilinearHalfPixel", [7, 9], False, True, "half_pixel_centers: (i + 0.5) * in / out - 0.5."),
    ("CircleCustomResizeBilinearHalfPixelDown", [3, 2], False, True, "half_pixel_centers, downsampling."),
]:
    define_case(
        _name,
        lambda self, x, size=_size, align=_align, half=_half: _ops().resize_bilinear(x, size, align, half),
        lambda: (randn(1, 4, 5, 3, seed=1),),
        setup=_setup(),
        doc=_doc,
    )

# ---------------------------------------------------------------------------
# Shape and GatherNd.
# ---------------------------------------------------------------------------

define_case(
    "CircleCustomShape",
    lambda self, x: _ops().shape(x),
    lambda: (randn(3, 4, 5, seed=1),),
    setup=_setup(),
    second_inputs=lambda: (randn(6, 4, 5, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
    doc="The runtime shape as int32, with a dynamic batch.",
)
define_case(
    "CircleCustomGatherNd",
    lambda self, params, indices: _ops().gather_nd(params, indices),
    lambda: (randn(4, 5, 6, seed=1), torch.stack([randint(3, high=4, seed=2), randint(3, high=5, seed=3)], dim=1)),
    setup=_setup(),
    doc="[3, 2] int64 coordinates into the two leading dims of [4, 5, 6]: three rows of 6.",
)

# ---------------------------------------------------------------------------
# Attention: onert's fused decoder attention, with a cache and grouped-query heads.
# ---------------------------------------------------------------------------

_HIDDEN, _HEADS, _KV_HEADS, _HEAD_DIM, _CACHE, _TOKENS = 32, 4, 2, 8, 8, 3


def _rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


def _attention_reference(x, wq, wk, wv, wo, cos, sin, mask, past_key, past_value, cache_position):
    """The ATTENTION contract: projections, rotate_half RoPE on q and k, the new k/v written
    into a copy of the [B, C, Hkv, dh] cache at cache_position, keys = the first L (the mask's
    last dim) cache rows, query head h reads kv head h // (Hq / Hkv), softmax(q k^T / sqrt(dh)
    + mask) v, output projection."""
    batch, tokens, _ = x.shape
    q = (x @ wq.T).view(batch, tokens, _HEADS, _HEAD_DIM)
    k = (x @ wk.T).view(batch, tokens, _KV_HEADS, _HEAD_DIM)
    v = (x @ wv.T).view(batch, tokens, _KV_HEADS, _HEAD_DIM)
    c, s = cos[:, :, None, :], sin[:, :, None, :]
    q = q * c + _rotate_half(q) * s
    k = k * c + _rotate_half(k) * s
    keys, values = past_key.clone(), past_value.clone()
    keys[:, cache_position] = k
    values[:, cache_position] = v
    length = mask.shape[-1]
    keys = keys[:, :length].repeat_interleave(_HEADS // _KV_HEADS, dim=2)  # [B, L, Hq, dh]
    values = values[:, :length].repeat_interleave(_HEADS // _KV_HEADS, dim=2)
    scores = torch.einsum("bthd,blhd->bhtl", q, keys) / math.sqrt(_HEAD_DIM) + mask
    out = torch.einsum("bhtl,blhd->bthd", scores.softmax(dim=-1), values)
    return out.reshape(batch, tokens, _HEADS * _HEAD_DIM) @ wo.T


def _attention(self, x, cos, sin, mask, past_key, past_value, cache_position):
    args = (x, self.wq, self.wk, self.wv, self.wo, cos, sin, mask, past_key, past_value, cache_position)
    if torch.compiler.is_exporting():
        return _ops().attention(*args)
    return _attention_reference(*args)


def _attention_inputs():
    positions = torch.arange(2, 2 + _TOKENS)
    angles = positions[:, None].float() * torch.linspace(0.1, 1.0, _HEAD_DIM // 2)[None, :]
    angles = torch.cat([angles, angles], dim=-1)[None]  # [1, T, dh]
    # Causal over the cache: token at position p sees rows 0..p; rows past the prompt are masked.
    rows = torch.arange(_CACHE)[None, :]
    mask = torch.where(rows <= positions[:, None], 0.0, float("-inf"))[None, None]  # [1, 1, T, C]
    return (
        randn(1, _TOKENS, _HIDDEN, seed=1),
        angles.cos(),
        angles.sin(),
        mask,
        randn(1, _CACHE, _KV_HEADS, _HEAD_DIM, seed=2),
        randn(1, _CACHE, _KV_HEADS, _HEAD_DIM, seed=3),
        positions,
    )


define_case(
    "CircleCustomAttention",
    _attention,
    _attention_inputs,
    setup=_setup(
        wq=((_HEADS * _HEAD_DIM, _HIDDEN), 4, 0.2),
        wk=((_KV_HEADS * _HEAD_DIM, _HIDDEN), 5, 0.2),
        wv=((_KV_HEADS * _HEAD_DIM, _HIDDEN), 6, 0.2),
        wo=((_HIDDEN, _HEADS * _HEAD_DIM), 7, 0.2),
    ),
    doc="Three prompt tokens written at cache rows 2..4 of an 8-row cache, 4 query heads on 2 kv heads.",
)

# ---------------------------------------------------------------------------
# MX fake quantization: an MXINT8 tensor (the built-in runtime applies the MX rounding).
# ---------------------------------------------------------------------------

define_case(
    "CircleCustomMxFakeQuantize",
    lambda self, x: _ops().mx_fake_quantize(x, "int8", 1) * 2.0,
    lambda: (randn(2, 64, seed=1),),
    setup=_setup(),
)
