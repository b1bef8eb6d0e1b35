"""Op cases: slicing, concat/split/chunk/unbind/stack and layout ops (view … contiguous).

Cases whose whole graph would be a pure view of the input multiply by a
constant or add one, so the output is a fresh tensor; the ``Alias*`` cases in
``modules_ops_misc.py`` cover outputs that alias inputs on purpose.
"""

from __future__ import annotations

import torch
from torch.export import Dim

from case_registry import define_case, randint, randn

BATCH = Dim("batch", min=1, max=128)
SEQ = Dim("seq", min=2, max=512)

# ---------------------------------------------------------------------------
# Slicing.
# ---------------------------------------------------------------------------

for _name, _fn, _shape in [
    ("SliceDim0", lambda x: x[1:3] * 2.0, (5, 4)),
    ("SliceStartOnly", lambda x: x[:, 2:] * 2.0, (3, 6)),
    ("SliceEndOnly", lambda x: x[:, :, :3] * 2.0, (2, 3, 6)),
    ("SliceNegativeStart", lambda x: x[:, -2:] * 2.0, (3, 6)),
    ("SliceNegativeEnd", lambda x: x[:-1, 1:-1] * 2.0, (4, 6)),
    ("SliceStride3", lambda x: x[:, 1::3] * 2.0, (3, 10)),
    ("SliceStrideNegativeBounds", lambda x: x[-5:-1:2] * 2.0, (7, 3)),
    ("SliceOutOfBoundEnd", lambda x: x[:, 2:100] * 2.0, (3, 6)),
    ("SliceMultipleDims", lambda x: x[1:, ::2, 1:4, :-1] * 2.0, (3, 6, 5, 4)),
    ("SliceFullNoOp", lambda x: x[:, :] * 2.0, (3, 4)),
    ("NarrowDim1", lambda x: torch.narrow(x, 1, 1, 3) * 2.0, (2, 6, 3)),
    ("SliceThenAdd", lambda x: x[:, :3] + x[:, 3:], (4, 6)),
    ("SliceCopy", lambda x: torch.ops.aten.slice_copy.Tensor(x, 1, 0, 2), (3, 5)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), lambda shape=_shape: (randn(*shape, seed=1),))

define_case("SliceInt64", lambda self, x: x[:, 1:3] + 1, lambda: (randint(3, 5, high=9, seed=1),))
define_case(
    "DynamicSliceLastToken",
    lambda self, x: x[:, -1, :] * 2.0,
    lambda: (randn(2, 5, 8, seed=1),),
    second_inputs=lambda: (randn(2, 9, 8, seed=2),),
    dynamic_shapes=lambda: ({1: SEQ},),
    doc="The last position along a dynamic sequence (the LM-head pattern).",
)
define_case(
    "DynamicSliceFromSymbolicEnd",
    lambda self, x: x[:, : x.shape[1] - 1] * 2.0,
    lambda: (randn(2, 6, 3, seed=1),),
    second_inputs=lambda: (randn(2, 10, 3, seed=2),),
    # min=3: the slice keeps seq - 1 rows, and export guards against a length-1 result.
    dynamic_shapes=lambda: ({1: Dim("seq_from_3", min=3, max=512)},),
    doc="The slice end is a symbolic expression (seq - 1).",
)

# ---------------------------------------------------------------------------
# cat / stack / split / chunk / unbind.
# ---------------------------------------------------------------------------

define_case("CatDim0", lambda self, x, y: torch.cat([x, y]), lambda: (randn(2, 4, seed=1), randn(3, 4, seed=2)))
define_case("CatRank4Channels", lambda self, x, y: torch.cat([x, y], dim=1), lambda: (randn(1, 2, 4, 4, seed=1), randn(1, 3, 4, 4, seed=2)))
define_case("CatSameTensorTwice", lambda self, x: torch.cat([x, x], dim=-1), lambda: (randn(2, 3, seed=1),))
define_case("CatWithConstant", lambda self, x: torch.cat([x, torch.ones(2, 1)], dim=1), lambda: (randn(2, 3, seed=1),))
define_case("CatInt64", lambda self, x, y: torch.cat([x, y], dim=1), lambda: (randint(2, 2, high=9, seed=1), randint(2, 3, high=9, seed=2)))
define_case("CatBool", lambda self, a, b: torch.cat([a, b]), lambda: (randint(2, 3, high=2, seed=1).bool(), randint(1, 3, high=2, seed=2).bool()))
define_case("CatNested", lambda self, x, y, z: torch.cat([torch.cat([x, y], 1), z], 1), lambda: (randn(2, 1, seed=1), randn(2, 2, seed=2), randn(2, 3, seed=3)), doc="Consecutive cats (the original merges them).")
define_case("StackDim0", lambda self, x, y: torch.stack([x, y]), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)))
define_case("StackLastDim", lambda self, x, y, z: torch.stack([x, y, z], dim=-1), lambda: (randn(2, 3, seed=1), randn(2, 3, seed=2), randn(2, 3, seed=3)))
define_case("SplitEqual", lambda self, x: torch.split(x, 2, dim=1), lambda: (randn(3, 6, seed=1),), doc="Three outputs of equal size.")
define_case("SplitUneven", lambda self, x: torch.split(x, 4, dim=-1), lambda: (randn(2, 10, seed=1),), doc="The last chunk is smaller (4, 4, 2).")
define_case("SplitWithSizes", lambda self, x: torch.split(x, [1, 3, 2], dim=0), lambda: (randn(6, 4, seed=1),))
define_case("SplitWithSizesDim1", lambda self, x: torch.split_with_sizes(x, [2, 5], dim=1), lambda: (randn(3, 7, 2, seed=1),))
define_case("SplitUseOne", lambda self, x: torch.split(x, 2, dim=0)[1] * 2.0, lambda: (randn(6, 3, seed=1),), doc="Only one of the split outputs is used.")
define_case("Chunk", lambda self, x: torch.chunk(x, 3, dim=-1), lambda: (randn(2, 9, seed=1),))
define_case("ChunkTwoGate", lambda self, x: (lambda a, b: a * torch.sigmoid(b))(*x.chunk(2, dim=-1)), lambda: (randn(3, 8, seed=1),), doc="GLU pattern: chunk in two, gate one with the other.")
define_case("Unbind", lambda self, x: torch.unbind(x, dim=1), lambda: (randn(2, 3, 4, seed=1),))
define_case("UnbindDim0Sum", lambda self, x: sum(torch.unbind(x, 0)), lambda: (randn(3, 4, seed=1),))
define_case(
    "DynamicCatSeq",
    lambda self, x, y: torch.cat([x, y], dim=1),
    lambda: (randn(2, 3, 4, seed=1), randn(2, 5, 4, seed=2)),
    second_inputs=lambda: (randn(2, 7, 4, seed=3), randn(2, 5, 4, seed=4)),
    dynamic_shapes=lambda: ({1: SEQ}, None),
)
define_case(
    "DynamicSplitStatic",
    lambda self, x: torch.split(x, [2, 6], dim=-1),
    lambda: (randn(3, 8, seed=1),),
    second_inputs=lambda: (randn(6, 8, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)

# ---------------------------------------------------------------------------
# view / reshape / flatten / unflatten.
# ---------------------------------------------------------------------------

for _name, _fn, _shape in [
    ("ViewFirstDimInferred", lambda x: x.view(-1, 4) + 1.0, (2, 3, 4)),
    ("ViewLastDimInferred", lambda x: x.view(6, -1) + 1.0, (2, 3, 4)),
    ("ViewToRank1", lambda x: x.view(-1) + 1.0, (2, 3, 4)),
    ("ViewAddUnitDims", lambda x: x.view(1, 2, 1, 12) + 1.0, (2, 3, 4)),
    ("ReshapeTorchApi", lambda x: torch.reshape(x, (4, 6)) + 1.0, (2, 3, 4)),
    ("ReshapeAfterPermute", lambda x: x.permute(0, 2, 1).reshape(2, -1) + 1.0, (2, 3, 4)),
    ("ViewAsSplitHeads", lambda x: x.view(2, 5, 4, 4).transpose(1, 2) + 1.0, (2, 5, 16)),
    ("Flatten", lambda x: torch.flatten(x) + 1.0, (2, 3, 4)),
    ("FlattenStartDim1", lambda x: torch.flatten(x, 1) + 1.0, (2, 3, 4, 5)),
    ("FlattenMiddle", lambda x: torch.flatten(x, 1, 2) + 1.0, (2, 3, 4, 5)),
    ("Unflatten", lambda x: x.unflatten(1, (3, 4)) + 1.0, (2, 12)),
    ("ReshapeRoundTrip", lambda x: x.reshape(6, 4).reshape(2, 3, 4) + 1.0, (2, 3, 4)),
    ("View0dTo1d", lambda x: x.view(1) + 1.0, ()),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), lambda shape=_shape: (randn(*shape, seed=1),))

define_case("ViewInt64", lambda self, x: x.view(3, 4) + 1, lambda: (randint(2, 6, high=9, seed=1),))
define_case("ViewBool", lambda self, x: (x > 0).view(-1), lambda: (randn(2, 3, seed=1),))
define_case(
    "DynamicViewBatchFlatten",
    lambda self, x: x.flatten(1) + 1.0,
    lambda: (randn(3, 2, 4, seed=1),),
    second_inputs=lambda: (randn(8, 2, 4, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)
define_case(
    "DynamicReshapeMergeSeq",
    lambda self, x: x.reshape(-1, x.shape[-1]) * 2.0,
    lambda: (randn(2, 5, 4, seed=1),),
    second_inputs=lambda: (randn(2, 8, 4, seed=2),),
    dynamic_shapes=lambda: ({1: SEQ},),
    doc="Batch and a dynamic sequence merged into one dim.",
)
define_case(
    "DynamicViewSplitHeads",
    lambda self, x: x.view(x.shape[0], x.shape[1], 2, 4).transpose(1, 2) * 2.0,
    lambda: (randn(1, 5, 8, seed=1),),
    second_inputs=lambda: (randn(1, 12, 8, seed=2),),
    dynamic_shapes=lambda: ({1: SEQ},),
)
define_case(
    "DynamicBatchAndSeq",
    lambda self, x: torch.relu(x).sum(-1),
    lambda: (randn(2, 5, 4, seed=1),),
    second_inputs=lambda: (randn(3, 9, 4, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH, 1: SEQ},),
    doc="Two dynamic dims at once.",
)

# ---------------------------------------------------------------------------
# permute / transpose / t / movedim.
# ---------------------------------------------------------------------------

for _name, _fn, _shape in [
    ("PermuteRank3", lambda x: x.permute(2, 0, 1) * 2.0, (2, 3, 4)),
    ("PermuteNCHWToNHWC", lambda x: x.permute(0, 2, 3, 1) * 2.0, (1, 3, 4, 5)),
    ("PermuteNegativeDims", lambda x: x.permute(-1, 0, -2) * 2.0, (2, 3, 4)),
    ("PermuteRank5", lambda x: x.permute(0, 4, 1, 3, 2) * 2.0, (1, 2, 3, 2, 4)),
    ("PermuteTwiceIdentity", lambda x: x.permute(0, 2, 1).permute(0, 2, 1) * 2.0, (2, 3, 4)),
    ("TransposeLastTwo", lambda x: x.transpose(-2, -1) * 2.0, (2, 3, 4, 5)),
    ("TransposeRank2", lambda x: x.t() * 2.0, (3, 5)),
    ("Movedim", lambda x: torch.movedim(x, 1, -1) * 2.0, (2, 3, 4, 5)),
    ("PermuteContiguous", lambda x: x.permute(1, 0).contiguous() + 1.0, (3, 4)),
    ("Contiguous", lambda x: x.contiguous() * 2.0, (3, 4)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), lambda shape=_shape: (randn(*shape, seed=1),))

# ---------------------------------------------------------------------------
# unsqueeze / squeeze / expand / repeat / tile / flip / roll.
# ---------------------------------------------------------------------------

for _name, _fn, _shape in [
    ("UnsqueezeDim0", lambda x: x.unsqueeze(0) * 2.0, (3, 4)),
    ("UnsqueezeNegative", lambda x: x.unsqueeze(-2) * 2.0, (3, 4)),
    ("Unsqueeze0d", lambda x: x.unsqueeze(0) * 2.0, ()),
    ("SqueezeAll", lambda x: x.squeeze() * 2.0, (1, 3, 1, 4)),
    ("SqueezeDims", lambda x: torch.squeeze(x, (0, 2)) * 2.0, (1, 3, 1, 4)),
    ("SqueezeNonUnitDim", lambda x: x.squeeze(1) * 2.0, (2, 3, 4)),
    ("NoneIndexing", lambda x: x[:, None, :, None] * 2.0, (3, 4)),
    ("ExpandDim0", lambda x: x.expand(3, 4) * 2.0, (1, 4)),
    ("ExpandMinusOne", lambda x: x.expand(2, -1, 5) * 2.0, (1, 3, 1)),
    ("ExpandNewLeadingDim", lambda x: x.expand(2, 3, 4) * 2.0, (3, 4)),
    ("ExpandAs", lambda x: x.unsqueeze(-1).expand(-1, -1, 6) + 1.0, (2, 3)),
    ("Repeat", lambda x: x.repeat(2, 3) * 2.0, (2, 3)),
    ("RepeatNewDims", lambda x: x.repeat(2, 1, 2) * 2.0, (3, 4)),
    ("RepeatOnes", lambda x: x.repeat(1, 1) * 2.0, (3, 4)),
    ("RepeatInterleave", lambda x: torch.repeat_interleave(x, 2, dim=1) * 2.0, (2, 3, 4)),
    ("Tile", lambda x: torch.tile(x, (2,)) * 2.0, (2, 3)),
    ("Flip", lambda x: torch.flip(x, [1]) * 2.0, (2, 5)),
    ("Roll", lambda x: torch.roll(x, 2, dims=1) * 2.0, (2, 5)),
    ("Tril", lambda x: torch.tril(x), (4, 4)),
    ("Triu1", lambda x: torch.triu(x, diagonal=1), (3, 5)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), lambda shape=_shape: (randn(*shape, seed=1),))

define_case("ExpandBool", lambda self, m: m.expand(3, 4), lambda: (randint(1, 4, high=2, seed=1).bool(),), doc="A broadcast bool mask (output is a fresh tensor in Circle).")
define_case(
    "DynamicExpandBatch",
    lambda self, x, y: x + y.expand(x.shape[0], -1),
    lambda: (randn(3, 5, seed=1), randn(1, 5, seed=2)),
    second_inputs=lambda: (randn(6, 5, seed=3), randn(1, 5, seed=4)),
    dynamic_shapes=lambda: ({0: BATCH}, None),
)
define_case(
    "DynamicRepeatBatch",
    lambda self, x: x.repeat(1, 2) * 2.0,
    lambda: (randn(3, 4, seed=1),),
    second_inputs=lambda: (randn(5, 4, seed=2),),
    dynamic_shapes=lambda: ({0: BATCH},),
)
define_case(
    "GQARepeatKV",
    lambda self, k: k[:, :, None, :, :].expand(1, 2, 3, 5, 4).reshape(1, 6, 5, 4) * 1.0,
    lambda: (randn(1, 2, 5, 4, seed=1),),
    doc="Grouped-query attention: each KV head expanded to 3 query heads.",
)
