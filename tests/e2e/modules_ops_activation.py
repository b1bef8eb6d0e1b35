"""Op cases: activations and softmax-like normalisations.

Inputs are scaled so both the saturated and the linear region of each
activation are exercised (for example ReLU6 sees values below 0 and above 6).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from case_registry import define_case, randn

# ---------------------------------------------------------------------------
# Pointwise activations, through functional calls and nn modules.
# ---------------------------------------------------------------------------

for _name, _fn, _shape, _scale in [
    ("ReluRank4", torch.relu, (2, 3, 4, 5), 1.0),
    ("Relu6", F.relu6, (3, 8), 5.0),
    ("Relu6Rank4", F.relu6, (1, 4, 5, 5), 5.0),
    ("Hardtanh0To6", lambda x: F.hardtanh(x, 0.0, 6.0), (3, 8), 5.0),
    ("HardtanhDefault", F.hardtanh, (3, 8), 2.0),
    ("Elu", F.elu, (3, 8), 2.0),
    ("EluAlpha", lambda x: F.elu(x, alpha=0.5), (3, 8), 2.0),
    ("Selu", F.selu, (3, 8), 2.0),
    ("Celu", lambda x: F.celu(x, alpha=1.5), (3, 8), 2.0),
    ("LeakyRelu", F.leaky_relu, (3, 8), 2.0),
    ("LeakyReluSlope", lambda x: F.leaky_relu(x, negative_slope=0.2), (2, 3, 8), 2.0),
    ("GeluRank4", F.gelu, (2, 3, 4, 5), 2.0),
    ("Hardswish", F.hardswish, (3, 10), 4.0),
    ("Hardsigmoid", F.hardsigmoid, (3, 10), 4.0),
    ("Silu", F.silu, (3, 10), 3.0),
    ("SiluRank4", F.silu, (1, 2, 4, 4), 3.0),
    ("Mish", F.mish, (3, 10), 3.0),
    ("Softplus", F.softplus, (3, 10), 3.0),
    ("LogSigmoid", F.logsigmoid, (3, 10), 3.0),
    ("SigmoidRank4", torch.sigmoid, (2, 3, 4, 5), 3.0),
    ("TanhRank3", torch.tanh, (2, 5, 6), 2.0),
    ("Softsign", F.softsign, (3, 10), 3.0),
    ("Tanhshrink", F.tanhshrink, (3, 10), 2.0),
    ("Threshold", lambda x: F.threshold(x, 0.5, -1.0), (3, 10), 1.0),
]:
    define_case(_name, lambda self, x, fn=_fn: fn(x), lambda shape=_shape, scale=_scale: (randn(*shape, seed=1) * scale,))


def _relu6_module(self):
    self.act = nn.ReLU6()


define_case("Relu6Module", lambda self, x: self.act(x), lambda: (randn(2, 8, seed=1) * 5,), setup=_relu6_module)


# PReLU: one shared slope, and one slope per channel (dim 1).
def _prelu_shared(self):
    self.act = nn.PReLU()


def _prelu_channels(self):
    self.act = nn.PReLU(num_parameters=4)
    with torch.no_grad():
        self.act.weight.copy_(torch.tensor([0.1, 0.25, -0.5, 2.0]))


define_case("PReluShared", lambda self, x: self.act(x), lambda: (randn(2, 4, 5, 5, seed=1),), setup=_prelu_shared)
define_case("PReluChannelwise", lambda self, x: self.act(x), lambda: (randn(2, 4, 5, 5, seed=1),), setup=_prelu_channels)
define_case("PReluChannelwise2D", lambda self, x: self.act(x), lambda: (randn(3, 4, seed=1),), setup=_prelu_channels)

# ---------------------------------------------------------------------------
# softmax / log_softmax / _safe_softmax.
# ---------------------------------------------------------------------------

define_case("SoftmaxRank2", lambda self, x: torch.softmax(x, dim=1), lambda: (randn(4, 10, seed=1) * 3,))
define_case("SoftmaxRank4LastDim", lambda self, x: F.softmax(x, dim=-1), lambda: (randn(2, 2, 5, 7, seed=1) * 3,))
define_case("SoftmaxDim0", lambda self, x: F.softmax(x, dim=0), lambda: (randn(4, 3, seed=1) * 3,), doc="Softmax over the first dim (not the last).")
define_case("SoftmaxLargeValues", lambda self, x: F.softmax(x, dim=-1), lambda: (randn(3, 8, seed=1) * 30 + 100,), doc="Large logits: needs the max-subtraction for stability.")


def _softmax_module(self):
    self.softmax = nn.Softmax(dim=-1)


define_case("SoftmaxModule", lambda self, x: self.softmax(x), lambda: (randn(2, 6, seed=1),), setup=_softmax_module)
define_case("LogSoftmax", lambda self, x: F.log_softmax(x, dim=-1), lambda: (randn(3, 9, seed=1) * 3,))
define_case("LogSoftmaxDim1", lambda self, x: F.log_softmax(x, dim=1), lambda: (randn(2, 5, 3, seed=1) * 3,))
define_case(
    "SafeSoftmax",
    lambda self, x: torch._safe_softmax(x, -1),
    lambda: (randn(3, 8, seed=1),),
    doc="aten._safe_softmax (what attention uses): like softmax for finite rows.",
)
define_case(
    "SafeSoftmaxMaskedRow",
    lambda self, x: torch._safe_softmax(x.masked_fill(torch.tensor([[False] * 8, [True] * 8, [False] * 4 + [True] * 4]), float("-inf")), -1),
    lambda: (randn(3, 8, seed=1),),
    doc="A fully masked (-inf) row gives zeros in _safe_softmax, not NaN.",
)
