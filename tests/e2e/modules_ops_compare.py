"""Op cases: comparisons, logical ops, selection (where / masked_fill) and any/all.

Comparison inputs share values on purpose (integers drawn from a small range,
or a tensor compared with a copy of part of itself) so the equal case occurs
and ``ge``/``gt`` or ``le``/``lt`` really differ.  Outputs are bool tensors.
"""

from __future__ import annotations

import operator

import torch

from case_registry import define_case, randbool, randint, randn


def _close_floats(*shape: int, seed: int) -> torch.Tensor:
    # Quarter steps in [-2, 2]: two draws collide often, so equality is exercised.
    return randint(*shape, low=-8, high=9, seed=seed).to(torch.float32) / 4


_COMPARISONS = {
    "Eq": operator.eq,
    "Ne": operator.ne,
    "Gt": operator.gt,
    "Ge": operator.ge,
    "Lt": operator.lt,
    "Le": operator.le,
}

for _op_name, _op in _COMPARISONS.items():
    define_case(f"{_op_name}Tensor", lambda self, x, y, op=_op: op(x, y), lambda: (_close_floats(3, 5, seed=1), _close_floats(3, 5, seed=2)))
    define_case(f"{_op_name}ScalarFloat", lambda self, x, op=_op: op(x, 0.5), lambda: (_close_floats(3, 5, seed=1),))
    define_case(
        f"{_op_name}Int64",
        lambda self, x, y, op=_op: op(x, y),
        lambda: (randint(3, 5, high=4, seed=1), randint(3, 5, high=4, seed=2)),
    )

define_case("EqBroadcast", lambda self, x, y: x == y, lambda: (_close_floats(2, 3, 4, seed=1), _close_floats(4, seed=2)))
define_case("GtScalarInt", lambda self, x: x > 1, lambda: (randint(3, 5, high=4, seed=1),))
define_case("LtScalarIntOnFloat", lambda self, x: x < 0, lambda: (_close_floats(3, 5, seed=1),))
define_case(
    "GeMixedDtypes",
    lambda self, x, y: x >= y,
    lambda: (randint(3, 5, low=-2, high=3, seed=1, dtype=torch.int32), _close_floats(3, 5, seed=2)),
    doc="int32 compared with float32: both promoted to float32.",
)
define_case("NeInt32Scalar", lambda self, x: x != 2, lambda: (randint(3, 5, high=4, seed=1, dtype=torch.int32),))
define_case("EqBool", lambda self, a, b: a == b, lambda: (randbool(3, 4, seed=1), randbool(3, 4, seed=2)))

# ---------------------------------------------------------------------------
# Logical and bitwise ops on bool tensors.
# ---------------------------------------------------------------------------

define_case("LogicalAnd", lambda self, a, b: torch.logical_and(a, b), lambda: (randbool(3, 4, seed=1), randbool(3, 4, seed=2)))
define_case("LogicalOr", lambda self, a, b: torch.logical_or(a, b), lambda: (randbool(3, 4, seed=1), randbool(3, 4, seed=2)))
define_case("LogicalXor", lambda self, a, b: torch.logical_xor(a, b), lambda: (randbool(3, 4, seed=1), randbool(3, 4, seed=2)))
define_case("LogicalNot", lambda self, a: torch.logical_not(a), lambda: (randbool(3, 4, seed=1),))
define_case(
    "LogicalAndFloat",
    lambda self, x, y: torch.logical_and(x, y),
    lambda: (_close_floats(3, 4, seed=1), _close_floats(3, 4, seed=2)),
    doc="Float operands: non-zero means true.",
)
define_case("LogicalNotOfComparison", lambda self, x: torch.logical_not(x > 0), lambda: (randn(3, 4, seed=1),))
define_case("BitwiseAndBool", lambda self, a, b: a & b, lambda: (randbool(3, 4, seed=1), randbool(3, 4, seed=2)))
define_case("BitwiseOrBool", lambda self, a, b: a | b, lambda: (randbool(3, 4, seed=1), randbool(3, 4, seed=2)))
define_case("BitwiseNotBool", lambda self, a: ~a, lambda: (randbool(3, 4, seed=1),))
define_case("MaskFromTwoComparisons", lambda self, x: (x > -0.5) & (x < 0.5), lambda: (randn(4, 6, seed=1),))

# ---------------------------------------------------------------------------
# where / masked_fill.
# ---------------------------------------------------------------------------

define_case("WhereTensors", lambda self, c, x, y: torch.where(c, x, y), lambda: (randbool(3, 4, seed=1), randn(3, 4, seed=2), randn(3, 4, seed=3)))
define_case(
    "WhereBroadcast",
    lambda self, c, x, y: torch.where(c, x, y),
    lambda: (randbool(3, 1, seed=1), randn(1, 4, seed=2), randn(3, 4, seed=3)),
    doc="Condition, self and other broadcast to a common shape.",
)
define_case("WhereScalarOther", lambda self, x: torch.where(x > 0, x, 0.0), lambda: (randn(3, 4, seed=1),))
define_case("WhereScalarSelf", lambda self, x: torch.where(x > 0, 1.0, x), lambda: (randn(3, 4, seed=1),))
define_case("WhereScalars", lambda self, x: torch.where(x > 0, 2.0, -3.0), lambda: (randn(3, 4, seed=1),), doc="aten.where.Scalar: both branches scalars.")
define_case("WhereInt64", lambda self, c, x, y: torch.where(c, x, y), lambda: (randbool(3, 4, seed=1), randint(3, 4, high=9, seed=2), randint(3, 4, high=9, seed=3)))
define_case(
    "WhereConstantTensor",
    lambda self, x: torch.where(x > 0, x, torch.tensor([-1.0, -2.0, -3.0, -4.0])),
    lambda: (randn(3, 4, seed=1),),
)
define_case(
    "WhereMixedDtypes",
    lambda self, c, x, y: torch.where(c, x, y),
    lambda: (randbool(3, 4, seed=1), randn(3, 4, seed=2), randint(3, 4, high=9, seed=3, dtype=torch.int32)),
    doc="float32 and int32 branches promote to float32.",
)
define_case("MaskedFillScalar", lambda self, x, m: x.masked_fill(m, -1.5), lambda: (randn(3, 4, seed=1), randbool(3, 4, seed=2)))
define_case("MaskedFillBroadcastMask", lambda self, x, m: x.masked_fill(m, 0.0), lambda: (randn(2, 3, 4, seed=1), randbool(3, 4, seed=2)))
define_case(
    "MaskedFillNegInf",
    lambda self, x: torch.softmax(x.masked_fill(torch.triu(torch.ones(5, 5, dtype=torch.bool), diagonal=1), float("-inf")), dim=-1),
    lambda: (randn(2, 5, 5, seed=1),),
    doc="A causal mask filled with -inf, then softmax (the attention pattern).",
)
define_case(
    "MaskedFillTensorValue",
    lambda self, x, m, v: x.masked_fill(m, v),
    lambda: (randn(3, 4, seed=1), randbool(3, 4, seed=2), randn(seed=3)),
    doc="aten.masked_fill.Tensor: the fill value is a 0-d tensor input.",
)
define_case("MaskedFillInt64", lambda self, x, m: x.masked_fill(m, 7), lambda: (randint(3, 4, high=5, seed=1), randbool(3, 4, seed=2)))

# ---------------------------------------------------------------------------
# any / all.
# ---------------------------------------------------------------------------

define_case("AnyBool", lambda self, a: torch.any(a), lambda: (randbool(3, 4, seed=1),))
define_case("AnyBoolAllFalse", lambda self, a: torch.any(a), lambda: (torch.zeros(3, 4, dtype=torch.bool),))
define_case("AnyDimBool", lambda self, a: torch.any(a, dim=1), lambda: (randbool(4, 3, seed=3) & randbool(4, 3, seed=4),))
define_case("AnyDimKeepdim", lambda self, a: torch.any(a, dim=-1, keepdim=True), lambda: (randbool(2, 3, 4, seed=1),))
define_case("AnyDims", lambda self, a: torch.any(a, dim=(0, 2)), lambda: (randbool(2, 3, 4, seed=1) & randbool(2, 3, 4, seed=2),))
define_case("AnyFloat", lambda self, x: torch.any(x, dim=1), lambda: (torch.tensor([[0.0, 0.0, 1.5], [0.0, 0.0, 0.0], [-2.0, 0.0, 0.0]]),))
define_case("AnyInt64", lambda self, x: torch.any(x, dim=0), lambda: (randint(3, 4, low=-1, high=1, seed=1),))
define_case("AllBool", lambda self, a: torch.all(a, dim=1), lambda: (randbool(4, 3, seed=1) | randbool(4, 3, seed=2),))
define_case("AllFloat", lambda self, x: torch.all(x), lambda: (randn(3, 4, seed=1),))
