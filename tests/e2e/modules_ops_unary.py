"""Op cases: unary pointwise ops that Circle has no operator for (or onert no kernel), which
the decompose plugin's math rules rewrite (math_erf.cpp, math_exp_log.cpp,
math_hyperbolic.cpp, math_trig.cpp, math_classify.cpp).

One case per op, at the float32 tolerance. Inputs cover every branch of a
decomposition (erf's |x| < 1 polynomial and its tail, expm1's series and
exp(x) - 1, the large-argument forms of sinh / asinh / acosh) and, where the op
defines them, the special values: +-inf, NaN, +-0 and domain ends.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from case_registry import define_case, rand_range, randn

INF = float("inf")
NAN = float("nan")


def _with(values: list[float], body: torch.Tensor) -> torch.Tensor:
    """`body` flattened with `values` in front, as a [2, n] tensor (n even)."""
    flat = torch.cat([torch.tensor(values, dtype=torch.float32), body.flatten()])
    if flat.numel() % 2:
        flat = torch.cat([flat, flat[-1:]])
    return flat.reshape(2, -1)


SPECIAL = [INF, -INF, NAN, 0.0, -0.0]

for _name, _fn, _make in [
    ("ErfWithTail", torch.erf, lambda: (_with(SPECIAL + [1.0, -1.0, 0.999, 9.0], randn(6, 10, seed=1) * 3.0),)),
    ("Erfc", torch.erfc, lambda: (_with(SPECIAL + [1.0, -1.0, 0.999, 9.0], randn(6, 10, seed=2) * 3.0),)),
    ("SpecialErf", torch.special.erf, lambda: (randn(4, 8, seed=3) * 2.0,)),
    ("GeluErfComposed", lambda x: 0.5 * x * (1 + torch.erf(x / 2**0.5)), lambda: (randn(4, 8, seed=4) * 3.0,)),
    ("Expm1", torch.expm1, lambda: (_with(SPECIAL + [1e-6, -1e-6, 0.5, -0.5], randn(4, 10, seed=5)),)),
    ("Exp2", torch.exp2, lambda: (_with([INF, -INF, NAN, 0.0, 3.0, -3.0], randn(4, 10, seed=6) * 8.0),)),
    ("Log2", torch.log2, lambda: (_with([INF, 0.0, 1.0, 8.0, -1.0], rand_range(4, 10, low=1e-3, high=100.0, seed=7)),)),
    ("Log10", torch.log10, lambda: (_with([INF, 0.0, 1.0, 1000.0], rand_range(4, 10, low=1e-3, high=100.0, seed=8)),)),
    ("SignSpecialValues", torch.sign, lambda: (_with(SPECIAL, randn(4, 10, seed=9)),)),
    ("Sgn", torch.sgn, lambda: (_with([0.0, -2.0], randn(3, 6, seed=10)),)),
    ("Signbit", torch.signbit, lambda: (_with([INF, -INF, 0.0, -0.0], randn(3, 6, seed=11)),)),
    ("Sinh", torch.sinh, lambda: (_with(SPECIAL + [1e-4, 25.0, -25.0, 88.5], randn(4, 10, seed=12) * 5.0),)),
    ("Cosh", torch.cosh, lambda: (_with(SPECIAL + [25.0, -88.5], randn(4, 10, seed=13) * 5.0),)),
    ("Tan", torch.tan, lambda: (_with([0.0, -0.0, NAN], rand_range(4, 10, low=-1.4, high=1.4, seed=14)),)),
    ("Asin", torch.asin, lambda: (_with([1.0, -1.0, 0.0, 1.5, NAN], rand_range(4, 10, low=-1.0, high=1.0, seed=15)),)),
    ("Acos", torch.acos, lambda: (_with([1.0, -1.0, 0.0, -1.5, NAN], rand_range(4, 10, low=-1.0, high=1.0, seed=16)),)),
    ("Asinh", torch.asinh, lambda: (_with(SPECIAL + [1e-4, 2e4, -3e5], randn(4, 10, seed=17) * 10.0),)),
    ("Acosh", torch.acosh, lambda: (_with([1.0, INF, 0.5, 2e4, 1.0001], rand_range(4, 10, low=1.0, high=50.0, seed=18)),)),
    ("Atanh", torch.atanh, lambda: (_with([1.0, -1.0, 0.0, 2.0, 1e-4], rand_range(4, 10, low=-0.99, high=0.99, seed=19)),)),
    ("IsNan", torch.isnan, lambda: (_with(SPECIAL, randn(3, 6, seed=20)),)),
    ("IsInf", torch.isinf, lambda: (_with(SPECIAL, randn(3, 6, seed=21)),)),
    ("IsFinite", torch.isfinite, lambda: (_with(SPECIAL, randn(3, 6, seed=22)),)),
    ("IsPosInf", torch.isposinf, lambda: (_with(SPECIAL, randn(3, 6, seed=23)),)),
    ("IsNegInf", torch.isneginf, lambda: (_with(SPECIAL, randn(3, 6, seed=24)),)),
    ("NanToNum", torch.nan_to_num, lambda: (_with(SPECIAL, randn(3, 6, seed=25)),)),
    ("NanToNumValues", lambda x: torch.nan_to_num(x, nan=-1.0, posinf=100.0, neginf=-100.0), lambda: (_with(SPECIAL, randn(3, 6, seed=26)),)),
    ("Frac", torch.frac, lambda: (_with([-0.5, 2.0, -2.25], randn(3, 6, seed=27) * 5.0),)),
    ("Fix", torch.fix, lambda: (_with([-0.5, 2.0, -2.25], randn(3, 6, seed=28) * 5.0),)),
    ("Hardshrink", F.hardshrink, lambda: (_with([0.5, -0.5, NAN], randn(3, 6, seed=29)),)),
    ("Softshrink", lambda x: F.softshrink(x, 0.3), lambda: (_with([0.3, -0.3, INF], randn(3, 6, seed=30)),)),
    ("Logit", torch.logit, lambda: (_with([0.0, 1.0, 0.5], rand_range(3, 6, low=0.01, high=0.99, seed=31)),)),
    ("LogitEps", lambda x: torch.logit(x, eps=0.05), lambda: (_with([0.0, 1.0], rand_range(3, 6, low=0.0, high=1.0, seed=32)),)),
    ("Sinc", torch.sinc, lambda: (_with([0.0, 1.0, -2.5], randn(3, 6, seed=33) * 3.0),)),
    ("Deg2Rad", torch.deg2rad, lambda: (randn(3, 6, seed=34) * 180.0,)),
    ("Rad2Deg", torch.rad2deg, lambda: (randn(3, 6, seed=35) * 3.0,)),
    ("SpecialExpm1", torch.special.expm1, lambda: (randn(3, 6, seed=36),)),
    ("SpecialLog1p", torch.special.log1p, lambda: (rand_range(3, 6, low=0.0, high=5.0, seed=37),)),
    ("Positive", lambda x: torch.positive(x) * 2.0, lambda: (randn(3, 6, seed=38),)),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), _make)
