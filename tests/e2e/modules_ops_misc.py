"""Op cases: pad, resize, casts, constant producers, attention, and program-interface cases.

Interface cases: outputs that are inputs (or views of them), several outputs of
mixed dtypes, 0-d inputs and outputs, integer/bool inputs, and symbolic sizes
used as values (``x.shape[1]`` in arithmetic, ``arange`` over a dynamic dim).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from case_registry import define_case, randbool, randint, randn

BATCH = Dim("batch", min=1, max=128)
SEQ = Dim("seq", min=2, max=512)

# ---------------------------------------------------------------------------
# pad.
# ---------------------------------------------------------------------------

for _name, _fn, _shape in [
    ("PadLastDim", lambda x: F.pad(x, (1, 2)), (2, 3, 4)),
    ("PadTwoDims", lambda x: F.pad(x, (1, 1, 2, 0)), (1, 2, 3, 4)),
    ("PadThreeDims", lambda x: F.pad(x, (0, 1, 1, 0, 2, 1)), (1, 2, 3, 4)),
    ("PadValue", lambda x: F.pad(x, (1, 1), value=-2.5), (3, 4)),
    ("PadNegativeCrops", lambda x: F.pad(x, (-1, 2)), (3, 5)),
    ("PadReflect2d", lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), (1, 2, 4, 5)),
    ("PadReflect1d", lambda x: F.pad(x, (2, 1), mode="reflect"), (1, 2, 5)),
    ("PadReplicate2d", lambda x: F.pad(x, (1, 2, 0, 1), mode="replicate"), (1, 2, 4, 5)),
    ("PadCircular2d", lambda x: F.pad(x, (1, 1, 1, 0), mode="circular"), (1, 2, 4, 5)),
    ("ZeroPad2dModule", nn.ZeroPad2d((1, 0, 2, 1)), (1, 3, 4, 4)),
    ("ConstantPad1dModule", nn.ConstantPad1d(2, 3.0), (2, 3, 4)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), lambda shape=_shape: (randn(*shape, seed=1),))

define_case("PadInt64", lambda self, x: F.pad(x, (1, 1), value=7), lambda: (randint(2, 3, high=9, seed=1),))

# ---------------------------------------------------------------------------
# interpolate / upsample.
# ---------------------------------------------------------------------------

for _name, _fn, _shape in [
    ("InterpolateNearest2x", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (1, 2, 3, 4)),
    ("InterpolateNearest3x", lambda x: F.interpolate(x, scale_factor=3.0, mode="nearest"), (1, 2, 3, 3)),
    ("InterpolateNearestSize", lambda x: F.interpolate(x, size=(6, 5), mode="nearest"), (1, 2, 3, 4)),
    ("InterpolateNearestDownsample", lambda x: F.interpolate(x, size=(2, 3), mode="nearest"), (1, 2, 4, 6)),
    ("InterpolateNearestExact", lambda x: F.interpolate(x, scale_factor=2, mode="nearest-exact"), (1, 2, 3, 4)),
    ("InterpolateBilinear2x", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False), (1, 2, 3, 4)),
    ("InterpolateBilinearAlignCorners", lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True), (1, 2, 3, 4)),
    ("InterpolateBilinearSize", lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=False), (1, 2, 3, 4)),
    ("InterpolateBilinear1p5", lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=False), (1, 2, 4, 4)),
    ("InterpolateBicubic", lambda x: F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False), (1, 1, 4, 4)),
    ("InterpolateLinear1d", lambda x: F.interpolate(x, scale_factor=2, mode="linear", align_corners=False), (1, 2, 5)),
    ("InterpolateNearest1d", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (1, 2, 5)),
    ("UpsampleModule", nn.Upsample(scale_factor=2, mode="nearest"), (2, 3, 4, 4)),
    ("PixelShuffle", nn.PixelShuffle(2), (1, 8, 3, 3)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), lambda shape=_shape: (randn(*shape, seed=1),))

define_case(
    "DynamicInterpolateNearestBatch",
    lambda self, x: F.interpolate(x, scale_factor=2, mode="nearest"),
    lambda: (randn(2, 3, 4, 4, seed=1),),
    second_inputs=lambda: (randn(4, 3, 4, 4, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)

# ---------------------------------------------------------------------------
# Casts (aten._to_copy and friends).
# ---------------------------------------------------------------------------

for _name, _fn, _make, *_tolerance in [
    ("CastFloatToInt64", lambda x: x.to(torch.int64), lambda: (randn(3, 4, seed=1) * 10,)),
    ("CastFloatToInt32", lambda x: x.int(), lambda: (randn(3, 4, seed=1) * 10,)),
    ("CastInt64ToFloat", lambda x: x.float() * 0.5, lambda: (randint(3, 4, high=100, seed=1),)),
    ("CastInt32ToFloat", lambda x: x.to(torch.float32), lambda: (randint(3, 4, high=100, seed=1, dtype=torch.int32),)),
    ("CastInt64ToInt32", lambda x: x.to(torch.int32), lambda: (randint(3, 4, low=-100, high=100, seed=1),)),
    ("CastInt32ToInt64", lambda x: x.long(), lambda: (randint(3, 4, low=-100, high=100, seed=1, dtype=torch.int32),)),
    ("CastBoolToFloat", lambda x: x.float(), lambda: (randbool(3, 4, seed=1),)),
    ("CastBoolToInt64", lambda x: x.long(), lambda: (randbool(3, 4, seed=1),)),
    ("CastFloatToBool", lambda x: x.bool(), lambda: (torch.tensor([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]]),)),
    ("CastInt64ToBool", lambda x: x.to(torch.bool), lambda: (randint(3, 4, low=-1, high=2, seed=1),)),
    # Under the dtype policy (half-precision-policy) casts to a half type are computed in
    # float32, i.e. skipped: the Circle output is the unrounded value, eager's is rounded once
    # (2**-11 relative for float16, 2**-8 for bfloat16), hence the tolerances.
    ("CastFloatToFloat16", lambda x: x.half(), lambda: (randn(3, 4, seed=1),), {"rtol": 1e-3, "atol": 1e-3}),
    ("CastFloat16ToFloat", lambda x: x.float(), lambda: (randn(3, 4, seed=1, dtype=torch.float16),)),
    ("CastFloatToBFloat16RoundTrip", lambda x: x.to(torch.bfloat16).to(torch.float32), lambda: (randn(3, 4, seed=1),), {"rtol": 1e-2, "atol": 1e-2}),
    ("CastRedundantSameDtype", lambda x: x.to(torch.float32) + 1.0, lambda: (randn(3, 4, seed=1),)),
    ("CastTypeAs", lambda x: (x > 0).type_as(x) * x, lambda: (randn(3, 4, seed=1),)),
    ("CastToWithMemoryFormat", lambda x: x.to(memory_format=torch.channels_last) * 2.0, lambda: (randn(1, 3, 2, 2, seed=1),)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), _make, **(_tolerance[0] if _tolerance else {}))

# ---------------------------------------------------------------------------
# Constant producers: the value is written into the Circle buffer.
# ---------------------------------------------------------------------------

define_case("ArangeEnd", lambda self, x: x + torch.arange(5), lambda: (randn(3, 5, seed=1),))
define_case("ArangeStartStepFloat", lambda self, x: x * torch.arange(0.5, 3.0, 0.5), lambda: (randn(2, 5, seed=1),))
define_case("ArangeInt64", lambda self, x: x + torch.arange(1, 10, 2), lambda: (randint(2, 5, high=9, seed=1),))
define_case("Full", lambda self, x: x + torch.full((2, 3), 1.5), lambda: (randn(2, 3, seed=1),))
define_case("FullBool", lambda self, m: m & torch.full((2, 3), True), lambda: (randbool(2, 3, seed=1),))
define_case("FullLike", lambda self, x: torch.full_like(x, 2.0) * x, lambda: (randn(3, 4, seed=1),))
define_case("FullLikeInt", lambda self, x: torch.full_like(x, 3, dtype=torch.int64), lambda: (randn(3, 4, seed=1),))
define_case("ZerosAdd", lambda self, x: x + torch.zeros(3, 4), lambda: (randn(3, 4, seed=1),))
define_case("OnesMul", lambda self, x: x * torch.ones(4), lambda: (randn(3, 4, seed=1),))
define_case("ZerosLike", lambda self, x: torch.zeros_like(x) + x.sum(), lambda: (randn(3, 4, seed=1),))
define_case("OnesLikeInt", lambda self, x: torch.ones_like(x) + x, lambda: (randint(3, 4, high=9, seed=1),))
define_case("ScalarTensor", lambda self, x: x * torch.scalar_tensor(2.5), lambda: (randn(3, 4, seed=1),))
define_case("Eye", lambda self, x: x + torch.eye(4), lambda: (randn(4, 4, seed=1),))
define_case("Linspace", lambda self, x: x * torch.linspace(0, 1, 5), lambda: (randn(2, 5, seed=1),))
define_case(
    "CausalMaskFromOnes",
    lambda self, x: x.masked_fill(torch.ones(4, 4, dtype=torch.bool).triu(1), float("-inf")).softmax(-1),
    lambda: (randn(2, 4, 4, seed=1),),
)
define_case(
    "DynamicArangeSeq",
    lambda self, x: x + torch.arange(x.shape[1], dtype=torch.float32),
    lambda: (randn(2, 5, seed=1),),
    second_inputs=lambda: (randn(2, 9, seed=2),),
    dynamic_shapes=lambda: ({1: SEQ},),
    doc="arange over a symbolic length: not a constant any more.",
)
define_case(
    "DynamicFullLike",
    lambda self, x: torch.ones_like(x) * 2.0 + x,
    lambda: (randn(3, 4, seed=1),),
    second_inputs=lambda: (randn(7, 4, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)
define_case(
    "DynamicSymSizeArithmetic",
    lambda self, x: x * x.shape[0] + x.shape[1],
    lambda: (randn(3, 4, seed=1),),
    second_inputs=lambda: (randn(6, 5, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH, 1: SEQ},),
    doc="sym_size values used as scalars (the original makes a Circle SHAPE).",
)
define_case(
    "DynamicCausalMask",
    lambda self, x: x.masked_fill(torch.ones(x.shape[-1], x.shape[-1], dtype=torch.bool).triu(1), float("-inf")).softmax(-1),
    lambda: (randn(1, 5, 5, seed=1),),
    second_inputs=lambda: (randn(1, 8, 8, seed=2),),
    dynamic_shapes=lambda: ({1: SEQ, 2: SEQ},),
    doc="A causal mask whose size follows the dynamic sequence.",
)

# ---------------------------------------------------------------------------
# scaled_dot_product_attention.
# ---------------------------------------------------------------------------


def _qkv(batch: int, heads: int, seq: int, dim: int, kv_heads: int | None = None, kv_seq: int | None = None, seed: int = 1):
    kv_heads = kv_heads or heads
    kv_seq = kv_seq or seq
    return (
        randn(batch, heads, seq, dim, seed=seed),
        randn(batch, kv_heads, kv_seq, dim, seed=seed + 1),
        randn(batch, kv_heads, kv_seq, dim, seed=seed + 2),
    )


define_case("SdpaNoMask", lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v), lambda: _qkv(1, 2, 5, 8))
define_case("SdpaCausal", lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), lambda: _qkv(2, 2, 6, 8))
define_case(
    "SdpaBoolMask",
    lambda self, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
    lambda: (*_qkv(1, 2, 4, 8), torch.tensor([[True, True, False, True]] * 4)),
    doc="A boolean mask (True = attend); every row keeps at least one key.",
)
define_case(
    "SdpaFloatMask",
    lambda self, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
    lambda: (*_qkv(1, 2, 4, 8), randn(1, 1, 4, 4, seed=9)),
    doc="An additive float mask broadcast over heads.",
)
define_case(
    "SdpaScale",
    lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.5),
    lambda: _qkv(1, 2, 4, 8),
)
define_case(
    "SdpaCrossAttention",
    lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v),
    lambda: _qkv(1, 2, 3, 8, kv_seq=6),
    doc="Query and key/value lengths differ.",
)
define_case(
    "SdpaGQA",
    lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
    lambda: _qkv(1, 4, 5, 8, kv_heads=2),
    doc="Grouped-query attention: 4 query heads share 2 key/value heads.",
)
define_case(
    "SdpaRank3",
    lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v),
    lambda: (randn(2, 5, 8, seed=1), randn(2, 5, 8, seed=2), randn(2, 5, 8, seed=3)),
    doc="[B, S, D] operands (no head dim).",
)
define_case(
    "DynamicSdpaCausalSeq",
    lambda self, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    lambda: _qkv(1, 2, 5, 8),
    second_inputs=lambda: _qkv(1, 2, 9, 8, seed=4),
    dynamic_shapes=lambda: ({2: SEQ}, {2: SEQ}, {2: SEQ}),
)


def _mha(self):
    self.attention = nn.MultiheadAttention(16, 4, batch_first=True)


define_case(
    "MultiheadAttentionModule",
    lambda self, x: self.attention(x, x, x, need_weights=False)[0],
    lambda: (randn(2, 5, 16, seed=1),),
    setup=_mha,
)

# ---------------------------------------------------------------------------
# Program interface.
# ---------------------------------------------------------------------------

define_case(
    "AliasOutputIsInput",
    lambda self, x, y: (x, x + y),
    lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)),
    doc="An output that is an input, unchanged.",
)
define_case(
    "AliasOutputViewOfInput",
    lambda self, x: (x.view(4, 3), x * 2.0),
    lambda: (randn(3, 4, seed=1),),
    doc="An output that is a view of an input.",
)
define_case(
    "AliasOutputSliceOfInput",
    lambda self, x: x[:, 1:3],
    lambda: (randn(3, 4, seed=1),),
    doc="The only output is a slice (a view) of the input.",
)
define_case(
    "AliasSameOutputTwice",
    lambda self, x: (lambda y: (y, y))(torch.relu(x)),
    lambda: (randn(3, 4, seed=1),),
    doc="One tensor returned as two outputs.",
)
define_case("AliasOnlyInput", lambda self, x: x, lambda: (randn(2, 3, seed=1),), doc="The identity module: the output is the input.")
define_case(
    "MultipleOutputsMixedDtypes",
    lambda self, x: (x * 2.0, x > 0, torch.argmax(x, dim=-1)),
    lambda: (randn(3, 5, seed=1),),
    doc="float32, bool and int64 outputs in one program.",
)
define_case(
    "NestedOutputs",
    lambda self, x: {"sum": x.sum(0), "parts": (x + 1.0, [x * 3.0])},
    lambda: (randn(3, 4, seed=1),),
    doc="Outputs in a dict, a tuple and a list: flattened in pytree order.",
)
define_case("ScalarInputScalarOutput", lambda self, s: s * 2.0 + 1.0, lambda: (randn(seed=1),), doc="A 0-d input and a 0-d output.")
define_case("ScalarInt64Input", lambda self, x, n: x * n, lambda: (randn(3, 4, seed=1), torch.tensor(3)), doc="A 0-d int64 tensor input scales a float tensor.")
define_case("BoolInput", lambda self, x, m: torch.where(m, x, -x), lambda: (randn(3, 4, seed=1), randbool(3, 4, seed=2)))
define_case("Int32Input", lambda self, x, i: x + i.to(torch.float32), lambda: (randn(3, 4, seed=1), randint(3, 4, high=9, seed=2, dtype=torch.int32)))
define_case(
    "KeywordOnlyInputs",
    lambda self, x, *, bias, mask: torch.where(mask, x + bias, x),
    lambda: (randn(3, 4, seed=1),),
    kwargs=lambda: {"bias": randn(4, seed=2), "mask": randbool(3, 4, seed=3)},
    doc="Two keyword inputs after a positional one.",
)
define_case(
    "ConstantOutput",
    lambda self, x: (x + 1.0, torch.ones(2, 2)),
    lambda: (randn(3, seed=1),),
    doc="An output that does not depend on any input (a constant).",
)
define_case(
    "InputToOutputDirectAndComputed",
    lambda self, x, y: (y, torch.matmul(x, y)),
    lambda: (randn(3, 4, seed=1), randn(4, 2, seed=2)),
    doc="The second input is returned unchanged as the first output.",
)
