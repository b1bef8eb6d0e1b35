"""Quantized test models for the import side of quantization, all exported by torch.export.

Three sources, as real users produce them (none of these graphs is written by hand):

* ``fake-quant``: modules that call ``torch.fake_quantize_per_tensor_affine`` /
  ``torch.fake_quantize_per_channel_affine`` themselves, with qparams calibrated on data the
  way a min/max observer does (float32 scales, int32 zero points). Linear and conv2d,
  per-tensor and per-channel weights, with and without bias, uint8/int8/int16 activation
  ranges, scalar and tensor qparams, and the ``_cachemask`` forms ``run_decompositions()``
  makes of them.
* ``fake-quant`` op families: modules whose every activation is fake-quantized per tensor
  (uint8 and int16 ranges, qparams observed on one calibration run) around add/sub, mul, cat,
  max/avg pools, softmax, mean, sigmoid/tanh, bmm attention, and a Llama-style decoder block
  (attention + gated SiLU MLP with residuals, without the norms and rotary embeddings, which
  need ops that have no integer kernel).
* ``pt2e``: ``torchao``'s ``prepare_pt2e`` -> calibrate -> ``convert_pt2e`` with its stock
  XNNPACK quantizer; the program holds ``quantized_decomposed`` quantize/dequantize ops and
  int8 weights.
* ``tico``: the original converter's own quantizer (``pip install tico``):
  ``prepare(PTQConfig(...))`` -> calibrate -> ``convert``, then ``torch.export``; uint8 by
  default, also uint4 weights and int16 activations.

Each builder also records the float model the quantized one was made from
(``float_reference(module)``, same weights, no quantization) for the SQNR measures.

``python quant_models.py`` prints, per model, the quantization targets torch.export records
(the table of docs/quantization.md).
"""

from __future__ import annotations

import collections
import copy
import warnings
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

# The storage ranges of the original converter's table (docs/quantization.md).
RANGES = {
    "uint8": (0, 255),
    "int8": (-128, 127),
    "int16": (-32768, 32767),
    "uint4": (0, 15),
}


class FloatReference:
    """The float model a quantized test model was made from (same weights, no quantization), for
    the SQNR measures. Held as a plain attribute (``module.float_reference``), which torch.export
    does not see: the exported program is the same with or without it."""

    def __init__(self, forward: Callable[..., torch.Tensor]):
        self.forward = forward

    def __call__(self, *inputs: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return self.forward(*inputs)


def float_reference(module: torch.nn.Module) -> FloatReference | None:
    """The float model of a module built by a case, or None when its builder records none."""
    reference = getattr(module, "float_reference", None)
    return reference if isinstance(reference, FloatReference) else None


@dataclass
class QuantCase:
    """One model: how to build it and what the conversion is expected to leave."""

    name: str
    source: str  # fake-quant | pt2e | tico
    build: Callable[[], tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]
    decompositions: bool = False  # export, then run_decompositions() (cachemask forms)

    def export(self) -> tuple[torch.export.ExportedProgram, torch.nn.Module, tuple[torch.Tensor, ...]]:
        torch.manual_seed(0)
        module, inputs = self.build()
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            program = torch.export.export(module, inputs)
            if self.decompositions:
                program = program.run_decompositions()
        return program, module, inputs


def quantization_targets(program: torch.export.ExportedProgram) -> collections.Counter:
    """Quantization-related call targets of a program, as ``ns::name.overload`` keys."""
    counts: collections.Counter = collections.Counter()
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        text = str(node.target)
        if "quantize" in text or "fake_quant" in text:
            ns, name, overload = text.split(".")[-3:]
            counts[f"{ns}::{name}.{overload}"] += 1
    return counts


# ---------------------------------------------------------------------------
# Fake-quantized modules
# ---------------------------------------------------------------------------


def _qparams(low: torch.Tensor, high: torch.Tensor, qrange: tuple[int, int]) -> tuple[torch.Tensor, torch.Tensor]:
    """Min/max observer qparams: symmetric for signed ranges, asymmetric for unsigned ones."""
    qmin, qmax = qrange
    low, high = torch.minimum(low, torch.zeros_like(low)), torch.maximum(high, torch.zeros_like(high))
    if qmin < 0:
        scale = torch.maximum(-low, high) / ((qmax - qmin) / 2)
        zero_point = torch.zeros_like(scale, dtype=torch.int32)
    else:
        scale = (high - low) / (qmax - qmin)
        scale = torch.clamp(scale, min=1e-8)
        zero_point = torch.clamp(torch.round(qmin - low / scale), qmin, qmax).to(torch.int32)
    return torch.clamp(scale, min=1e-8).to(torch.float32), zero_point


class _FakeQuantLayer(torch.nn.Module):
    """A linear, conv2d or conv_transpose2d layer with fake-quantized input, weight and output."""

    def __init__(self, layer: torch.nn.Module, act: str, weight: str, per_channel: bool, tensor_qparams: bool):
        super().__init__()
        self.layer = layer
        self.act_range = RANGES[act]
        self.weight_range = RANGES[weight]
        self.per_channel = per_channel
        self.tensor_qparams = tensor_qparams
        w = layer.weight.detach()
        # Output channels: dim 0, except a transposed convolution's [in, out, kh, kw] weight.
        self.w_axis = 1 if isinstance(layer, torch.nn.ConvTranspose2d) else 0
        if per_channel:
            flat = w.transpose(0, self.w_axis).reshape(w.shape[self.w_axis], -1)
            s, z = _qparams(flat.amin(1), flat.amax(1), self.weight_range)
        else:
            s, z = _qparams(w.min(), w.max(), self.weight_range)
        self.register_buffer("w_scale", s)
        self.register_buffer("w_zp", z)
        self.register_buffer("in_scale", torch.ones(()))
        self.register_buffer("in_zp", torch.zeros((), dtype=torch.int32))
        self.register_buffer("out_scale", torch.ones(()))
        self.register_buffer("out_zp", torch.zeros((), dtype=torch.int32))
        self.freeze_numbers()

    def calibrate(self, x: torch.Tensor) -> None:
        with torch.no_grad():
            s, z = _qparams(x.min(), x.max(), self.act_range)
            self.in_scale.copy_(s), self.in_zp.copy_(z)
            y = self._compute(x, self.layer.weight)
            s, z = _qparams(y.min(), y.max(), self.act_range)
            self.out_scale.copy_(s), self.out_zp.copy_(z)
        self.freeze_numbers()

    def _compute(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        if isinstance(self.layer, torch.nn.Linear):
            return F.linear(x, w, self.layer.bias)
        if isinstance(self.layer, torch.nn.ConvTranspose2d):
            return F.conv_transpose2d(x, w, self.layer.bias, stride=2, padding=1, output_padding=1)
        return F.conv2d(x, w, self.layer.bias, padding=1)

    def _fake_quantize_act(self, x: torch.Tensor, which: str) -> torch.Tensor:
        lo, hi = self.act_range
        scale, zp = getattr(self, f"{which}_scale"), getattr(self, f"{which}_zp")
        if self.tensor_qparams:  # recorded as fake_quantize_per_tensor_affine.tensor_qparams
            return torch.fake_quantize_per_tensor_affine(x, scale, zp, lo, hi)
        # Python numbers (read once, outside export): recorded as the .default overload. The
        # float32 scale as a Python float is exact.
        return torch.fake_quantize_per_tensor_affine(x, self.numbers[f"{which}_scale"], self.numbers[f"{which}_zp"], lo, hi)

    def freeze_numbers(self) -> None:
        self.numbers = {name: (float(t) if t.is_floating_point() else int(t))
                        for name, t in self.named_buffers() if t.dim() == 0 or t.numel() == 1}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self._fake_quantize_act(x, "in")
        lo, hi = self.weight_range
        if self.per_channel:
            w = torch.fake_quantize_per_channel_affine(self.layer.weight, self.w_scale, self.w_zp, self.w_axis, lo, hi)
        else:
            w = torch.fake_quantize_per_tensor_affine(self.layer.weight, self.numbers["w_scale"], self.numbers["w_zp"], lo, hi)
        return self._fake_quantize_act(self._compute(x, w), "out")


def _fake_quant_builder(kind: str, bias: bool, act: str, weight: str, per_channel: bool, tensor_qparams: bool):
    def build():
        if kind == "linear":
            layer, x = torch.nn.Linear(16, 8, bias=bias), torch.randn(4, 16)
        elif kind == "tconv":  # stride 2, padding 1, output_padding 1: TRANSPOSE_CONV + SLICE crop
            layer = torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1, bias=bias)
            x = torch.randn(1, 3, 5, 5)
        else:
            layer, x = torch.nn.Conv2d(3, 4, 3, bias=bias), torch.randn(1, 3, 8, 8)
        module = _FakeQuantLayer(layer, act, weight, per_channel, tensor_qparams).eval()
        module.calibrate(x * 1.25)  # calibration data a little wider than the test input
        module.float_reference = FloatReference(lambda x: module._compute(x, module.layer.weight))
        return module, (x,)

    return build


class _FakeQuantStack(torch.nn.Module):
    """Fake-quantized linear layers one after the other, each calibrated on the previous one's
    output (its input fake-quantize then has nearly, not exactly, the previous output's qparams)."""

    def __init__(self, layers: list[_FakeQuantLayer]):
        super().__init__()
        self.layers = torch.nn.ModuleList(layers)

    def calibrate(self, x: torch.Tensor) -> None:
        for layer in self.layers:
            layer.calibrate(x)
            with torch.no_grad():
                x = layer(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


def _fake_quant_stack_builder(width: int, depth: int, act: str, weight: str):
    def build():
        layers = [_FakeQuantLayer(torch.nn.Linear(width, width), act, weight, True, False) for _ in range(depth)]
        x = torch.randn(2, width)
        module = _FakeQuantStack(layers).eval()
        module.calibrate(x * 1.25)
        module.float_reference = FloatReference(torch.nn.Sequential(*[layer.layer for layer in layers]).eval())
        return module, (x,)

    return build


def _fake_quant_cases() -> list[QuantCase]:
    cases = []
    # Activation range -> weight range, as real recipes pair them (int16 activations with
    # 8-bit or 4-bit weights).
    pairs = [("uint8", "uint8"), ("int8", "int8"), ("int16", "uint8")]
    index = 0
    for kind in ("linear", "conv"):
        for act, weight in pairs:
            for per_channel in (False, True):
                for bias in (True, False):
                    tensor_qparams = index % 2 == 1  # alternate scalar and tensor qparams
                    index += 1
                    name = f"fq_{kind}_{act}_{'pc' if per_channel else 'pt'}{'' if bias else '_nobias'}" + (
                        "_tq" if tensor_qparams else "")
                    cases.append(QuantCase(name, "fake-quant",
                                           _fake_quant_builder(kind, bias, act, weight, per_channel, tensor_qparams)))
    # Transposed convolutions (TRANSPOSE_CONV with its bias as the 4th input).
    for act, weight, per_channel, bias, tq in (("uint8", "uint8", True, True, False), ("uint8", "uint8", False, False, True),
                                               ("int8", "int8", True, True, True), ("int16", "uint8", True, True, False)):
        name = f"fq_tconv_{act}_{'pc' if per_channel else 'pt'}{'' if bias else '_nobias'}" + ("_tq" if tq else "")
        cases.append(QuantCase(name, "fake-quant", _fake_quant_builder("tconv", bias, act, weight, per_channel, tq)))
    # 4-bit weights in an 8-bit storage type (uint4 range).
    cases.append(QuantCase("fq_linear_uint8_pc_uint4w", "fake-quant",
                           _fake_quant_builder("linear", True, "uint8", "uint4", True, False)))
    # What run_decompositions() makes of fake-quantize: the cachemask forms.
    for kind, per_channel, tq in (("linear", True, True), ("conv", False, False)):
        name = f"fq_{kind}_uint8_{'pc' if per_channel else 'pt'}_decomposed"
        cases.append(QuantCase(name, "fake-quant", _fake_quant_builder(kind, True, "uint8", "uint8", per_channel, tq),
                               decompositions=True))
    return cases


# ---------------------------------------------------------------------------
# Fake-quantized op families between quantized layers (add, sub, mul, cat, pools, softmax,
# mean, sigmoid, tanh, bmm) and a Llama-style decoder layer
# ---------------------------------------------------------------------------


class _FakeQuantGraph(torch.nn.Module):
    """A module that fake-quantizes every activation it names with per-tensor qparams observed
    on one calibration run (min/max, as an observer), and linear weights per output channel in
    the int8 range. ``share(name, other)`` gives an activation another one's qparams, as PT2E
    quantizers do for pooling."""

    def __init__(self, act: str):
        super().__init__()
        self.act_range = RANGES[act]
        self.qparams: dict[str, tuple[float, int]] = {}
        self.shared: dict[str, str] = {}
        self.calibrating = False
        self.quantizing = True  # False: the float model (float_reference), same weights

    def share(self, name: str, other: str) -> None:
        self.shared[name] = other

    def fq(self, x: torch.Tensor, name: str, act: str | None = None) -> torch.Tensor:
        if not self.quantizing:
            return x
        qrange = RANGES[act] if act else self.act_range
        lo, hi = qrange
        key = self.shared.get(name, name)
        if self.calibrating and key not in self.qparams:
            s, z = _qparams(x.detach().min(), x.detach().max(), qrange)
            self.qparams[key] = (float(s), int(z))
        s, z = self.qparams[key]
        return torch.fake_quantize_per_tensor_affine(x, s, z, lo, hi)

    def linear(self, x: torch.Tensor, layer: torch.nn.Linear) -> torch.Tensor:
        w = layer.weight
        if not self.quantizing:
            return F.linear(x, w, layer.bias)
        if not hasattr(layer, "w_scale"):  # buffers, so that torch.export records constants
            s, z = _qparams(w.detach().amin(1), w.detach().amax(1), RANGES["int8"])
            layer.register_buffer("w_scale", s)
            layer.register_buffer("w_zp", z)
        return F.linear(x, torch.fake_quantize_per_channel_affine(w, layer.w_scale, layer.w_zp, 0, *RANGES["int8"]),
                        layer.bias)

    def calibrate(self, *inputs: torch.Tensor) -> None:
        self.calibrating = True
        with torch.no_grad():
            self(*inputs)
        self.calibrating = False


class _ResidualAddSub(_FakeQuantGraph):
    def __init__(self, act):
        super().__init__(act)
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        x = self.fq(x, "x")
        y = self.fq(self.linear(x, self.fc), "fc")
        r = self.fq(x + y, "add")
        return self.fq(r - y, "sub")


class _Mul(_FakeQuantGraph):
    def forward(self, x, y):
        return self.fq(self.fq(x, "x") * self.fq(y, "y"), "mul")


class _Cat(_FakeQuantGraph):
    def forward(self, x, y):
        return self.fq(torch.cat([self.fq(x, "x"), self.fq(y * 3.0, "y")], 1), "cat")


class _Pool(_FakeQuantGraph):
    def __init__(self, act):
        super().__init__(act)
        self.share("avg", "x")  # average pooling keeps its input's qparams (the kernel's rule)

    def forward(self, x):
        x = self.fq(x, "x")
        m = self.fq(F.max_pool2d(x, 2), "max")  # own qparams: a requantize after MAX_POOL_2D
        a = self.fq(F.avg_pool2d(x, 2), "avg")
        return m, a


class _Softmax(_FakeQuantGraph):
    def __init__(self, act):
        super().__init__(act)
        self.fc = torch.nn.Linear(16, 12)

    def forward(self, x):
        y = self.fq(self.linear(self.fq(x, "x"), self.fc), "fc")
        return self.fq(torch.softmax(y, -1), "softmax")


class _SoftmaxOnly(_FakeQuantGraph):
    """Softmax between fake-quantized tensors alone: output parameters from calibration (not
    TFLite's fixed 1/256), which onert's uint8 SOFTMAX takes as they are."""

    def forward(self, x):
        return self.fq(torch.softmax(self.fq(x, "x"), -1), "softmax")


class _Mean(_FakeQuantGraph):
    def forward(self, x):
        return self.fq(torch.mean(self.fq(x, "x"), -1, keepdim=True), "mean")


class _SigmoidTanh(_FakeQuantGraph):
    def forward(self, x):
        x = self.fq(x, "x")
        return self.fq(torch.sigmoid(x), "sigmoid"), self.fq(torch.tanh(x), "tanh")


class _Attention(_FakeQuantGraph):
    """Single-head attention: bmm(q, k^T) -> softmax -> bmm(p, v)."""

    def __init__(self, act):
        super().__init__(act)
        self.q = torch.nn.Linear(16, 8)
        self.k = torch.nn.Linear(16, 8)
        self.v = torch.nn.Linear(16, 8)

    def forward(self, x):
        x = self.fq(x, "x")
        q = self.fq(self.linear(x, self.q), "q")
        k = self.fq(self.linear(x, self.k), "k")
        v = self.fq(self.linear(x, self.v), "v")
        scores = self.fq(torch.bmm(q, k.transpose(1, 2)), "scores")
        p = self.fq(torch.softmax(scores, -1), "p")
        return self.fq(torch.bmm(p, v), "out")


class _DecoderBlock(_FakeQuantGraph):
    """A Llama-style decoder layer as far as integer kernels reach: multi-head causal-free
    self-attention (q/k/v/o projections, bmm, softmax, bmm) with a residual add, then the gated
    MLP (down(silu(gate(x)) * up(x)), SiLU written as x * sigmoid(x)) with a residual add. The
    RMSNorms and rotary embeddings of a real Llama layer are left out: they need rsqrt, a
    number operand (eps) and neg, which have no quantized kernel (docs/quantization.md, "Not
    covered yet"), so strict check-missing-qparams would refuse the layer."""

    def __init__(self, act, dim=16, heads=2, hidden=32):
        super().__init__(act)
        self.heads, self.head_dim = heads, dim // heads
        self.q, self.k, self.v, self.o = (torch.nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.gate = torch.nn.Linear(dim, hidden, bias=False)
        self.up = torch.nn.Linear(dim, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, dim, bias=False)

    def _split(self, t, seq):  # [seq, dim] -> [heads, seq, head_dim]
        return t.view(seq, self.heads, self.head_dim).transpose(0, 1)

    def forward(self, x):  # x: [seq, dim]
        seq = x.shape[0]
        x = self.fq(x, "x")
        q = self._split(self.fq(self.linear(x, self.q), "q"), seq)
        k = self._split(self.fq(self.linear(x, self.k), "k"), seq)
        v = self._split(self.fq(self.linear(x, self.v), "v"), seq)
        scores = self.fq(torch.bmm(q, k.transpose(1, 2)), "scores")
        p = self.fq(torch.softmax(scores, -1), "p")
        ctx = self.fq(torch.bmm(p, v), "ctx").transpose(0, 1).reshape(seq, self.heads * self.head_dim)
        h = self.fq(x + self.fq(self.linear(ctx, self.o), "o"), "h")
        g = self.fq(self.linear(h, self.gate), "gate")
        silu = self.fq(g * self.fq(torch.sigmoid(g), "sigmoid"), "silu")
        mlp = self.fq(silu * self.fq(self.linear(h, self.up), "up"), "gated")
        return self.fq(h + self.fq(self.linear(mlp, self.down), "down"), "out")


class _LlamaLayer(_FakeQuantGraph):
    """A whole Llama decoder layer the way the original's quantization wrappers fake-quantize
    one (tico/quantization/wrapq/wrappers/llama): RMSNorm before attention and MLP (written out
    as x * rsqrt(mean(x^2) + eps) * w, which fuse-rms-norm makes one RMS_NORM; w fake-quantized
    in the uint8 model, float in the int16 one), rotary
    embeddings on q and k from fake-quantized cos/sin tables with rotate_half as chunk, neg and
    cat (the neg unobserved: its int16 output keeps its input's parameters, as the original
    propagates them; a uint8 one mirrors the zero point), a fake-quantized attention scale and causal mask (filled with -120, the
    original's attention_mask_fill_value), softmax, the o projection, residual adds and the
    gated SiLU MLP."""

    def __init__(self, act, dim=16, heads=2, hidden=32, seq=6, eps=1e-6):
        super().__init__(act)
        self.heads, self.head_dim, self.eps = heads, dim // heads, eps
        self.q, self.k, self.v, self.o = (torch.nn.Linear(dim, dim, bias=False) for _ in range(4))
        self.gate = torch.nn.Linear(dim, hidden, bias=False)
        self.up = torch.nn.Linear(dim, hidden, bias=False)
        self.down = torch.nn.Linear(hidden, dim, bias=False)
        self.norm1 = torch.nn.Parameter(1.0 + 0.1 * torch.randn(dim))
        self.norm2 = torch.nn.Parameter(1.0 + 0.1 * torch.randn(dim))
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        angles = torch.outer(torch.arange(seq).float(), inv_freq)
        angles = torch.cat([angles, angles], -1)  # [seq, head_dim]
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())
        self.register_buffer("mask", torch.full((seq, seq), -120.0).triu(1))
        self.register_buffer("scale", torch.tensor(self.head_dim**-0.5))

    def rms_norm(self, x, weight, name):
        if self.act_range[0] == 0:  # uint8: a fake-quantized weight, as the original's QuantRMSNorm
            weight = self.fq(weight, name + "_weight")
        n = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * weight  # int16: float weight
        return self.fq(n, name)

    def rope(self, t, name):  # t: [heads, seq, head_dim]
        x1, x2 = torch.chunk(t, 2, dim=-1)
        x1, x2 = self.fq(x1, name + "_x1"), self.fq(x2, name + "_x2")
        rotated = self.fq(torch.cat((-x2, x1), dim=-1), name + "_cat")
        t_cos = self.fq(t * self.fq(self.cos, "cos"), name + "_cos")
        t_sin = self.fq(rotated * self.fq(self.sin, "sin"), name + "_sin")
        return self.fq(t_cos + t_sin, name + "_rot")

    def _split(self, t, seq):  # [seq, dim] -> [heads, seq, head_dim]
        return t.view(seq, self.heads, self.head_dim).transpose(0, 1)

    def forward(self, x):  # x: [seq, dim]
        seq = x.shape[0]
        x = self.fq(x, "x")
        n1 = self.rms_norm(x, self.norm1, "norm1")
        q = self.rope(self._split(self.fq(self.linear(n1, self.q), "q"), seq), "q")
        k = self.rope(self._split(self.fq(self.linear(n1, self.k), "k"), seq), "k")
        v = self._split(self.fq(self.linear(n1, self.v), "v"), seq)
        logits = self.fq(torch.bmm(q, k.transpose(1, 2)), "logits_raw")
        logits = self.fq(logits * self.fq(self.scale, "scale"), "logits")
        logits = self.fq(logits + self.fq(self.mask, "mask"), "mask_add")
        p = self.fq(torch.softmax(logits, -1), "p")
        ctx = self.fq(torch.bmm(p, v), "ctx").transpose(0, 1).reshape(seq, self.heads * self.head_dim)
        h = self.fq(x + self.fq(self.linear(ctx, self.o), "o"), "h")
        n2 = self.rms_norm(h, self.norm2, "norm2")
        g = self.fq(self.linear(n2, self.gate), "gate")
        silu = self.fq(g * self.fq(torch.sigmoid(g), "sigmoid"), "silu")
        mlp = self.fq(silu * self.fq(self.linear(n2, self.up), "up"), "gated")
        return self.fq(h + self.fq(self.linear(mlp, self.down), "down"), "out")


class _MixedPrecision(_FakeQuantGraph):
    """int16 activations into a uint8 result: the add computes in int16 and a requantize to
    uint8 follows (insert-quantize-on-dtype-mismatch)."""

    def __init__(self, act):
        super().__init__(act)
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x, y):
        h = self.fq(self.linear(self.fq(x, "x"), self.fc), "fc")
        return self.fq(h + self.fq(y, "y"), "add", act="uint8")


def _without_quantization(module: _FakeQuantGraph, inputs):
    module.quantizing = False
    try:
        return module(*inputs)
    finally:
        module.quantizing = True


def _op_family_builder(model_class, shapes, act):
    def build():
        module = model_class(act).eval()
        inputs = tuple(torch.randn(*shape) for shape in shapes)
        module.calibrate(*(t * 1.25 for t in inputs))  # calibration a little wider than the test input
        module.float_reference = FloatReference(lambda *xs: _without_quantization(module, xs))
        return module, inputs

    return build


def _op_family_cases() -> list[QuantCase]:
    specs = [
        ("residual_add_sub", _ResidualAddSub, [(4, 16)]),
        ("mul", _Mul, [(4, 8), (4, 8)]),
        ("cat", _Cat, [(2, 4), (2, 6)]),
        ("pool", _Pool, [(1, 3, 8, 8)]),
        ("softmax", _Softmax, [(4, 16)]),
        ("softmax_only", _SoftmaxOnly, [(4, 16)]),
        ("mean", _Mean, [(2, 3, 10)]),
        ("sigmoid_tanh", _SigmoidTanh, [(4, 8)]),
        ("attention_bmm", _Attention, [(2, 5, 16)]),
        ("decoder_block", _DecoderBlock, [(6, 16)]),
        ("llama_layer", _LlamaLayer, [(6, 16)]),
    ]
    cases = [QuantCase(f"fq_{name}_{act}", "fake-quant", _op_family_builder(cls, shapes, act))
             for name, cls, shapes in specs for act in ("uint8", "int16")]
    cases.append(QuantCase("fq_add_int16_to_uint8", "fake-quant",
                           _op_family_builder(_MixedPrecision, [(4, 16), (4, 16)], "int16")))
    return cases


# ---------------------------------------------------------------------------
# PT2E (torchao)
# ---------------------------------------------------------------------------


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, stride=2)
        self.fc = torch.nn.Linear(8 * 3 * 3, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


class SmallMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def _pt2e_builder(model_class, shape, per_channel: bool):
    def build():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
            from torchao.testing.pt2e._xnnpack_quantizer import XNNPACKQuantizer, get_symmetric_quantization_config

            model = model_class().eval()
            reference = copy.deepcopy(model)  # the float model, untouched by the quantizer
            example = (torch.randn(*shape),)
            captured = torch.export.export(model, example).module()
            quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=per_channel))
            prepared = prepare_pt2e(captured, quantizer)
            for _ in range(4):
                prepared(torch.randn(*shape))
            converted = convert_pt2e(prepared)
            converted.float_reference = FloatReference(reference)
            return converted, example

    return build


def _pt2e_cases() -> list[QuantCase]:
    specs = [
        ("pt2e_cnn_pc", SmallCnn, (1, 3, 8, 8), True),
        ("pt2e_cnn_pt", SmallCnn, (1, 3, 8, 8), False),
        ("pt2e_mlp_pc", SmallMlp, (4, 16), True),
        ("pt2e_mlp_pt", SmallMlp, (4, 16), False),
    ]
    return [QuantCase(name, "pt2e", _pt2e_builder(cls, shape, pc)) for name, cls, shape, pc in specs]


# ---------------------------------------------------------------------------
# The original converter's quantizer (tico 0.3.0)
# ---------------------------------------------------------------------------


class _TicoMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 8)
        self.fc2 = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class _TicoCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))


class _TicoMlp3(torch.nn.Module):
    """Three linear layers with two relus (the original's quantizer wraps each linear)."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 32)
        self.fc3 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class _TicoLinearStack(torch.nn.Module):
    """Linear layers with nothing between them."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(self.fc1(x))


def _tico_builder(model_class, shape, layers, act: str = "uint8", weight: str = "uint8"):
    def build():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from tico.quantization import convert, prepare
            from tico.quantization.config.ptq import PTQConfig
            from tico.quantization.config.specs import affine
            from tico.quantization.wrapq.dtypes import DType

            def dtype(name):  # "uint8" -> DType.uint(8), "int16" -> DType.int(16)
                return DType.uint(int(name[4:])) if name.startswith("u") else DType.int(int(name[3:]))

            model = model_class().eval()
            reference = copy.deepcopy(model)  # the float model, before the wrappers replace layers
            config = PTQConfig(activation=affine(dtype(act)), weight=affine(dtype(weight)))
            for layer in layers:
                setattr(model, layer, prepare(getattr(model, layer), config))
            with torch.no_grad():
                for _ in range(8):
                    model(torch.randn(*shape))
            for layer in layers:
                convert(getattr(model, layer))
            model.float_reference = FloatReference(reference)
            return model, (torch.randn(*shape),)

    return build


def _tico_cases() -> list[QuantCase]:
    # The original's PTQConfig: per-tensor asymmetric activations, per-channel asymmetric weights
    # (its linear and conv wrappers), uint8 by default; int16 activations are symmetric.
    return [
        QuantCase("tico_ptq_mlp", "tico", _tico_builder(_TicoMlp, (2, 16), ["fc1", "fc2"])),
        QuantCase("tico_ptq_cnn", "tico", _tico_builder(_TicoCnn, (1, 3, 6, 6), ["conv", "fc"])),
        QuantCase("tico_ptq_mlp3", "tico", _tico_builder(_TicoMlp3, (4, 16), ["fc1", "fc2", "fc3"])),
        QuantCase("tico_ptq_mlp3_uint4w", "tico", _tico_builder(_TicoMlp3, (4, 16), ["fc1", "fc2", "fc3"], weight="uint4")),
        QuantCase("tico_ptq_linear2_int16", "tico", _tico_builder(_TicoLinearStack, (4, 16), ["fc1", "fc2"], act="int16")),
    ]


# A model whose size is dominated by its weights: 4 x (256 x 256) per-channel weights in the
# uint4 range (test_quant_size.py). Not in all_cases(): one-step differences of the integer
# kernels add up over its four layers (2 output steps measured), past test_quant_convert.py's
# one-step bound for single quantized layers.
SIZE_CASE = QuantCase("fq_mlp4x256_uint8_pc_uint4w", "fake-quant", _fake_quant_stack_builder(256, 4, "uint8", "uint4"))


def all_cases() -> list[QuantCase]:
    return _fake_quant_cases() + _op_family_cases() + _pt2e_cases() + _tico_cases()


def _table() -> str:
    lines = ["| model | source | quantization targets recorded by torch.export (count) |", "|---|---|---|"]
    for case in all_cases():
        program, _, _ = case.export()
        targets = ", ".join(f"`{k}` {v}" for k, v in sorted(quantization_targets(program).items()))
        lines.append(f"| {case.name} | {case.source} | {targets} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(_table())
