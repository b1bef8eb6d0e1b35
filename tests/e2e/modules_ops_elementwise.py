"""Op cases: elementwise arithmetic and math (add … clamp), over shapes, dtypes and operand kinds.

Operand kinds: two tensors, broadcasting tensors, a Python scalar on either side,
a lifted constant, integer and boolean tensors, 0-d tensors.  Inputs of ops with
a restricted domain (log, sqrt, pow with a fractional exponent, division) are
drawn inside the domain so every comparison is well conditioned.
"""

from __future__ import annotations

import torch

from case_registry import define_case, rand_range, randint, randn

# ---------------------------------------------------------------------------
# add / sub / mul / div with tensor, broadcast, scalar and integer operands.
# ---------------------------------------------------------------------------

define_case("AddRank4", lambda self, x, y: x + y, lambda: (randn(2, 3, 4, 5, seed=1), randn(2, 3, 4, 5, seed=2)))
define_case("AddRank1", lambda self, x, y: torch.add(x, y), lambda: (randn(7, seed=1), randn(7, seed=2)))
define_case(
    "AddBroadcastBothSides",
    lambda self, x, y: x + y,
    lambda: (randn(4, 1, 3, seed=1), randn(1, 5, 1, seed=2)),
    doc="Each operand broadcasts along a dim of the other: [4,1,3] + [1,5,1] -> [4,5,3].",
)
define_case("AddScalarLeft", lambda self, x: 3.0 + x, lambda: (randn(3, 4, seed=1),))
define_case("AddAlpha", lambda self, x, y: torch.add(x, y, alpha=0.5), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)))
define_case("AddInt64", lambda self, x, y: x + y, lambda: (randint(3, 4, high=100, seed=1), randint(3, 4, high=100, seed=2)))
define_case(
    "AddInt32",
    lambda self, x, y: x + y,
    lambda: (randint(3, 4, high=100, seed=1, dtype=torch.int32), randint(4, high=100, seed=2, dtype=torch.int32)),
)
define_case("AddInt64Scalar", lambda self, x: x + 7, lambda: (randint(2, 5, high=50, seed=1),))
define_case(
    "AddIntTensorFloatScalar",
    lambda self, x: x + 0.5,
    lambda: (randint(2, 5, high=50, seed=1),),
    doc="Type promotion: int64 tensor + float scalar gives a float32 tensor.",
)
define_case(
    "AddIntAndFloatTensors",
    lambda self, x, y: x + y,
    lambda: (randint(2, 5, high=50, seed=1, dtype=torch.int32), randn(2, 5, seed=2)),
    doc="Type promotion between tensors: int32 + float32 gives float32.",
)
define_case("Add0dTensor", lambda self, x, s: x + s, lambda: (randn(3, 4, seed=1), randn(seed=2)), doc="A 0-d tensor input.")
define_case("Add0dTensors", lambda self, a, b: a + b, lambda: (randn(seed=1), randn(seed=2)), doc="Scalar (0-d) inputs and output.")
define_case("AddSelf", lambda self, x: x + x, lambda: (randn(2, 6, seed=1),), doc="Both operands are the same tensor.")


def _setup_buffer(self):
    self.register_buffer("offset", torch.arange(12, dtype=torch.float32).reshape(3, 4) / 10)


define_case("AddBuffer", lambda self, x: x + self.offset, lambda: (randn(2, 3, 4, seed=1),), setup=_setup_buffer)


def _setup_nonpersistent(self):
    self.register_buffer("offset", torch.linspace(-1, 1, 4), persistent=False)


define_case(
    "AddNonPersistentBuffer",
    lambda self, x: x + self.offset,
    lambda: (randn(3, 4, seed=1),),
    setup=_setup_nonpersistent,
    doc="A non-persistent buffer (exported as a constant tensor, not a state-dict entry).",
)
define_case(
    "AddConstantTensor",
    lambda self, x: x + torch.tensor([1.0, -2.0, 3.0]),
    lambda: (randn(4, 3, seed=1),),
    doc="A tensor created in forward: a lifted tensor constant.",
)
define_case(
    "AddChannelsLast",
    lambda self, x, y: x.contiguous(memory_format=torch.channels_last) + y,
    lambda: (randn(1, 3, 4, 5, seed=1), randn(1, 3, 4, 5, seed=2)),
    doc="One operand in channels_last memory format (a clone with a memory format in the graph).",
)

define_case("SubRank4Broadcast", lambda self, x, y: x - y, lambda: (randn(2, 3, 4, 5, seed=1), randn(3, 1, 5, seed=2)))
define_case("SubScalarInt", lambda self, x: x - 3, lambda: (randn(3, 4, seed=1),), doc="Float tensor minus a Python int.")
define_case("SubInt64", lambda self, x, y: x - y, lambda: (randint(3, 4, high=100, seed=1), randint(3, 4, high=100, seed=2)))
define_case("SubAlphaInt", lambda self, x, y: torch.sub(x, y, alpha=3), lambda: (randint(2, 3, high=10, seed=1), randint(2, 3, high=10, seed=2)))
define_case("RSubTensorAlpha", lambda self, x, y: torch.rsub(x, y, alpha=2.0), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)))
define_case("RSubIntScalar", lambda self, x: 10 - x, lambda: (randint(3, 4, high=20, seed=1),))

define_case("MulRank4", lambda self, x, y: x * y, lambda: (randn(2, 3, 4, 5, seed=1), randn(2, 3, 4, 5, seed=2)))
define_case("MulBroadcastRow", lambda self, x, y: x * y, lambda: (randn(3, 4, seed=1), randn(4, seed=2)))
define_case("MulScalarInt", lambda self, x: x * 3, lambda: (randn(3, 4, seed=1),))
define_case("MulInt64", lambda self, x, y: x * y, lambda: (randint(3, 4, high=50, seed=1), randint(3, 4, high=50, seed=2)))
define_case("MulInt32Scalar", lambda self, x: x * 4, lambda: (randint(3, 4, high=50, seed=1, dtype=torch.int32),))
define_case("MulBool", lambda self, a, b: a * b, lambda: (randint(2, 4, high=2, seed=1).bool(), randint(2, 4, high=2, seed=2).bool()), doc="bool * bool is logical and.")
define_case("MulSquare", lambda self, x: x * x, lambda: (randn(5, 6, seed=1),))

define_case("DivRank4", lambda self, x, y: x / y, lambda: (randn(2, 3, 4, 5, seed=1), rand_range(2, 3, 4, 5, low=0.5, high=2.0, seed=2)))
define_case("DivScalarLeft", lambda self, x: 2.0 / x, lambda: (rand_range(3, 4, low=0.5, high=2.0, seed=1),))
define_case("DivTensorByInt", lambda self, x: x / 4, lambda: (randn(3, 4, seed=1),))
define_case(
    "DivInt64TrueDivision",
    lambda self, x, y: x / y,
    lambda: (randint(3, 4, high=100, seed=1), randint(3, 4, low=1, high=10, seed=2)),
    doc="int64 / int64 is true division with a float32 result.",
)
define_case(
    "DivFloorMode",
    lambda self, x, y: torch.div(x, y, rounding_mode="floor"),
    lambda: (randn(3, 5, seed=1) * 5, rand_range(3, 5, low=0.7, high=2.0, seed=2)),
)
define_case(
    "DivTruncMode",
    lambda self, x, y: torch.div(x, y, rounding_mode="trunc"),
    lambda: (randn(3, 5, seed=1) * 5, rand_range(3, 5, low=0.7, high=2.0, seed=2)),
)
define_case(
    "DivFloorInt64",
    lambda self, x, y: torch.div(x, y, rounding_mode="floor"),
    lambda: (randint(3, 5, low=-50, high=50, seed=1), randint(3, 5, low=1, high=7, seed=2)),
    doc="Integer floor division (negative dividends round towards -inf).",
)
define_case("FloorDivideScalar", lambda self, x: x // 3, lambda: (randint(3, 5, low=-20, high=20, seed=1),))
define_case("Reciprocal", lambda self, x: torch.reciprocal(x), lambda: (rand_range(3, 4, low=0.5, high=3.0, seed=1),))
define_case("ReciprocalNegative", lambda self, x: 1.0 / x, lambda: (rand_range(3, 4, low=-3.0, high=-0.5, seed=1),))

# ---------------------------------------------------------------------------
# pow in all operand combinations.
# ---------------------------------------------------------------------------

define_case("PowTensorScalar2", lambda self, x: torch.pow(x, 2), lambda: (randn(3, 4, seed=1),), doc="x ** 2 (the original lowers it to MUL).")
define_case("PowTensorScalar3", lambda self, x: x**3, lambda: (randn(3, 4, seed=1),))
define_case("PowTensorScalarHalf", lambda self, x: x**0.5, lambda: (rand_range(3, 4, low=0.1, high=4.0, seed=1),))
define_case("PowTensorScalarNegative", lambda self, x: x**-1.5, lambda: (rand_range(3, 4, low=0.5, high=3.0, seed=1),))
define_case("PowTensorTensor", lambda self, x, y: torch.pow(x, y), lambda: (rand_range(3, 4, low=0.5, high=2.0, seed=1), randn(3, 4, seed=2)))
define_case("PowScalarTensor", lambda self, y: torch.pow(2.0, y), lambda: (randn(3, 4, seed=1),), doc="aten.pow.Scalar: scalar base.")
define_case(
    "PowIntTensorFloatScalar",
    lambda self, x: x**1.5,
    lambda: (randint(3, 4, low=1, high=10, seed=1),),
    doc="int64 base with a float exponent: the result is float32.",
)
define_case("PowIntTensorIntScalar", lambda self, x: x**2, lambda: (randint(3, 4, low=-9, high=10, seed=1),))
define_case(
    "PowFloatTensorIntTensor",
    lambda self, x, y: x**y,
    lambda: (randn(3, 4, seed=1), randint(3, 4, high=4, seed=2)),
    doc="Float base, int64 exponent tensor.",
)
define_case("Square", lambda self, x: torch.square(x), lambda: (randn(4, 5, seed=1),))

# ---------------------------------------------------------------------------
# Unary math over several shapes.
# ---------------------------------------------------------------------------

_positive = lambda *shape, seed=1: rand_range(*shape, low=0.1, high=5.0, seed=seed)  # noqa: E731

for _name, _fn, _make in [
    ("Sqrt", torch.sqrt, lambda: (_positive(3, 4),)),
    ("SqrtRank4", torch.sqrt, lambda: (_positive(2, 3, 4, 5),)),
    ("Rsqrt", torch.rsqrt, lambda: (_positive(3, 4),)),
    ("RsqrtRank3", torch.rsqrt, lambda: (_positive(2, 5, 6),)),
    ("Exp", torch.exp, lambda: (randn(3, 4, seed=1),)),
    ("ExpRank4", torch.exp, lambda: (randn(2, 3, 4, 5, seed=1),)),
    ("Log", torch.log, lambda: (_positive(3, 4),)),
    ("LogRank3", torch.log, lambda: (_positive(2, 4, 6),)),
    ("Log1p", torch.log1p, lambda: (rand_range(3, 4, low=-0.5, high=3.0, seed=1),)),
    ("Sin", torch.sin, lambda: (randn(3, 4, seed=1) * 3,)),
    ("Cos", torch.cos, lambda: (randn(3, 4, seed=1) * 3,)),
    ("CosRank4", torch.cos, lambda: (randn(2, 3, 4, 5, seed=1),)),
    ("Abs", torch.abs, lambda: (randn(3, 4, seed=1),)),
    ("AbsInt64", torch.abs, lambda: (randint(3, 4, low=-50, high=50, seed=1),)),
    ("AbsInt32", torch.abs, lambda: (randint(3, 4, low=-50, high=50, seed=1, dtype=torch.int32),)),
    ("Neg", torch.neg, lambda: (randn(3, 4, seed=1),)),
    ("NegInt64", torch.neg, lambda: (randint(3, 4, low=-50, high=50, seed=1),)),
    ("Floor", torch.floor, lambda: (randn(3, 4, seed=1) * 4,)),
    ("Ceil", torch.ceil, lambda: (randn(3, 4, seed=1) * 4,)),
    ("Sign", torch.sign, lambda: (torch.tensor([[-2.0, 0.0, 3.0], [0.5, -0.25, 0.0]]),)),
    ("Trunc", torch.trunc, lambda: (randn(3, 4, seed=1) * 4,)),
    ("Erf", torch.erf, lambda: (randn(3, 4, seed=1),)),
    ("Atan", torch.atan, lambda: (randn(3, 4, seed=1) * 2,)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), _make)

define_case("Round", lambda self, x: torch.round(x), lambda: (randn(3, 4, seed=1) * 5,))
define_case(
    "RoundHalfToEven",
    lambda self, x: torch.round(x),
    lambda: (torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49]),),
    doc="Ties round to even in PyTorch; the runtime must agree.",
)
define_case("RoundDecimals", lambda self, x: torch.round(x, decimals=2), lambda: (randn(3, 4, seed=1) * 5,))

# ---------------------------------------------------------------------------
# maximum / minimum / clamp and its spellings.
# ---------------------------------------------------------------------------

define_case("Maximum", lambda self, x, y: torch.maximum(x, y), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)))
define_case("MaximumBroadcast", lambda self, x, y: torch.maximum(x, y), lambda: (randn(2, 3, 4, seed=1), randn(4, seed=2)))
define_case("MaximumConstant", lambda self, x: torch.maximum(x, torch.tensor(0.25)), lambda: (randn(3, 4, seed=1),))
define_case("MaximumInt64", lambda self, x, y: torch.maximum(x, y), lambda: (randint(3, 4, high=50, seed=1), randint(3, 4, high=50, seed=2)))
define_case("Minimum", lambda self, x, y: torch.minimum(x, y), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)))
define_case("MinimumBroadcast", lambda self, x, y: torch.minimum(x, y), lambda: (randn(2, 3, 4, seed=1), randn(3, 1, seed=2)))
define_case("MinimumInt32", lambda self, x, y: torch.minimum(x, y), lambda: (randint(3, 4, high=50, seed=1, dtype=torch.int32), randint(3, 4, high=50, seed=2, dtype=torch.int32)))
define_case("ClampMinMax", lambda self, x: torch.clamp(x, -0.5, 0.75), lambda: (randn(3, 4, seed=1),))
define_case("ClampMinOnly", lambda self, x: torch.clamp(x, min=-0.2), lambda: (randn(3, 4, seed=1),))
define_case("ClampMaxOnly", lambda self, x: torch.clamp(x, max=0.3), lambda: (randn(3, 4, seed=1),))
define_case("Clamp0To6", lambda self, x: torch.clamp(x, 0, 6), lambda: (randn(3, 4, seed=1) * 5,), doc="clamp(0, 6): ReLU6 in disguise.")
define_case("ClampDouble0To6", lambda self, x: torch.clamp(torch.clamp(x, min=0), max=6), lambda: (randn(3, 4, seed=1) * 5,), doc="Two clamps forming ReLU6.")
define_case("ClampInt64", lambda self, x: torch.clamp(x, 10, 40), lambda: (randint(3, 4, high=50, seed=1),))
define_case(
    "ClampIntTensorFloatBounds",
    lambda self, x: torch.clamp(x, 1.5, 30.5),
    lambda: (randint(3, 4, high=50, seed=1),),
    doc="int64 input with float bounds keeps the int64 dtype in PyTorch.",
)
define_case(
    "ClampTensorBounds",
    lambda self, x, lo, hi: torch.clamp(x, lo, hi),
    lambda: (randn(3, 4, seed=1), randn(4, seed=2) - 0.5, randn(4, seed=3).abs() + 0.5),
    doc="aten.clamp.Tensor: bounds are broadcasting tensors (lo < 0 < hi).",
)
define_case("ClampMinTensor", lambda self, x, lo: torch.clamp_min(x, lo), lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)))
define_case("ClampMaxScalar", lambda self, x: torch.clamp_max(x, 0.1), lambda: (randn(3, 4, seed=1),))


# ---------------------------------------------------------------------------
# Reduced-precision dtypes.  Circle files carry float16 tensors; bfloat16 has
# no NumPy dtype, so bfloat16 cases cast inside the graph and keep float32 I/O.
# ---------------------------------------------------------------------------


# A runtime may compute a float16 op in float32 and round once, where eager
# PyTorch rounds the same way or per step; float16 has an 11-bit significand,
# so results agree to about 2**-11 ≈ 4.9e-4 relative: 1e-3 covers one step.
HALF_TOLERANCE = 1e-3


define_case(
    "AddFloat16",
    lambda self, x, y: x + y,
    lambda: (randn(3, 4, seed=1, dtype=torch.float16), randn(3, 4, seed=2, dtype=torch.float16)),
    rtol=HALF_TOLERANCE,
    atol=HALF_TOLERANCE,
)
define_case(
    "MulFloat16Scalar",
    lambda self, x: x * 1.5,
    lambda: (randn(3, 4, seed=1, dtype=torch.float16),),
    rtol=HALF_TOLERANCE,
    atol=HALF_TOLERANCE,
)


def _bf16_round_trip(self, x, y):
    # bfloat16 arithmetic inside the graph, float32 at the interface.
    return (x.to(torch.bfloat16) * y.to(torch.bfloat16)).to(torch.float32)


define_case(
    "MulBFloat16Internal",
    _bf16_round_trip,
    lambda: (randn(3, 4, seed=1), randn(3, 4, seed=2)),
    doc="bfloat16 casts and a bfloat16 multiply between float32 inputs and output.",
    # bfloat16 keeps 8 significand bits: two input roundings and one product
    # rounding can each differ by 2**-8 ≈ 3.9e-3 relative if a runtime rounds
    # differently (e.g. computes in float32 and rounds once), hence 1e-2.
    rtol=1e-2,
    atol=1e-2,
)
define_case(
    "AddBFloat16Constant",
    lambda self, x: (x.to(torch.bfloat16) + torch.tensor([0.5, 1.0, 2.0], dtype=torch.bfloat16)).float(),
    lambda: (randn(4, 3, seed=1),),
    doc="A bfloat16 constant tensor.",
    # See MulBFloat16Internal: one bfloat16 rounding step is 2**-8 relative.
    rtol=1e-2,
    atol=1e-2,
)
