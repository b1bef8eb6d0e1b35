"""Model-level e2e cases: small but complete networks built in-process with random weights.

Each model follows the layer structure of a well-known architecture at a size
that converts and runs in about a second: a ResNet-18-style CNN, a
MobileNetV2-style CNN, a BERT encoder layer, a ViT block (with its patch
embedding), a Llama decoder layer with a dynamic sequence length, a GRU cell
unrolled over time, and a language model whose output projection shares the
embedding matrix.  Nothing is downloaded: weights come from ``torch.manual_seed``
(set by ``build_module``), and batch norms get random running statistics so
their folding is really exercised.

Tolerances: the models chain tens of matrix products and convolutions whose
accumulation order differs between PyTorch and the Circle runtime; float32
rounding then grows above 1e-5 in the larger outputs, so these cases use 1e-4
(still far below any real lowering mistake, which shows as O(0.1) errors).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

from case_registry import e2e_case, randint, randn

# See the module docstring: accumulation order over long reductions.
MODEL_RTOL = 1e-4
MODEL_ATOL = 1e-4


def _randomize_batch_norms(module: nn.Module) -> None:
    """Gives every batch norm non-trivial statistics and affine parameters (eval mode uses them)."""
    for child in module.modules():
        if isinstance(child, nn.BatchNorm2d):
            with torch.no_grad():
                child.running_mean.uniform_(-0.5, 0.5)
                child.running_var.uniform_(0.5, 1.5)
                child.weight.uniform_(0.5, 1.5)
                child.bias.uniform_(-0.2, 0.2)


# ---------------------------------------------------------------------------
# ResNet-18-style CNN: stem, four stages of two basic blocks, global pool, classifier.
# ---------------------------------------------------------------------------


class _BasicBlock(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False), nn.BatchNorm2d(out_channels))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


@e2e_case
class ResNet18Style(nn.Module):
    """ResNet-18 layout (2-2-2-2 basic blocks, 1x1 projection shortcuts) with narrow channels."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    def __init__(self):
        super().__init__()
        widths = (8, 16, 24, 32)
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU())
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        blocks = []
        in_channels = widths[0]
        for stage, width in enumerate(widths):
            stride = 1 if stage == 0 else 2
            blocks += [_BasicBlock(in_channels, width, stride), _BasicBlock(width, width, 1)]
            in_channels = width
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(widths[-1], 10)
        _randomize_batch_norms(self)

    def forward(self, x):
        x = self.blocks(self.pool(self.stem(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)

    def get_example_inputs(self):
        return (randn(2, 3, 32, 32, seed=1),), {}


# ---------------------------------------------------------------------------
# MobileNetV2-style CNN: inverted residual blocks with depthwise convolutions and ReLU6.
# ---------------------------------------------------------------------------


class _InvertedResidual(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, stride: int, expansion: int):
        super().__init__()
        hidden = in_channels * expansion
        layers: list[nn.Module] = []
        if expansion != 1:
            layers += [nn.Conv2d(in_channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6()]
        layers += [
            nn.Conv2d(hidden, hidden, 3, stride=stride, padding=1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
        ]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and in_channels == out_channels

    def forward(self, x):
        out = self.body(x)
        return x + out if self.residual else out


@e2e_case
class MobileNetV2Style(nn.Module):
    """MobileNetV2 layout (expansion 1 then 6, residual only at stride 1) with a dynamic batch."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU6())
        self.blocks = nn.Sequential(
            _InvertedResidual(8, 8, 1, 1),
            _InvertedResidual(8, 12, 2, 6),
            _InvertedResidual(12, 12, 1, 6),
            _InvertedResidual(12, 16, 2, 6),
            _InvertedResidual(16, 16, 1, 6),
        )
        self.head = nn.Sequential(nn.Conv2d(16, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6())
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(32, 10))
        _randomize_batch_norms(self)

    def forward(self, x):
        x = self.head(self.blocks(self.stem(x)))
        x = x.mean(dim=(2, 3))
        return self.classifier(x)

    def get_example_inputs(self):
        return (randn(2, 3, 32, 32, seed=1),), {}

    def get_dynamic_shapes(self):
        return ({0: Dim("batch", min=1, max=16)},)

    def get_second_inputs(self):
        return (randn(3, 3, 32, 32, seed=2),), {}


# ---------------------------------------------------------------------------
# BERT encoder layer: post-norm self-attention with an additive padding mask, GELU FFN.
# ---------------------------------------------------------------------------


@e2e_case
class BertEncoderLayer(nn.Module):
    """One BERT layer written the way Hugging Face's BertLayer computes it (eval mode)."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    hidden = 32
    heads = 4
    intermediate = 64

    def __init__(self):
        super().__init__()
        self.query = nn.Linear(self.hidden, self.hidden)
        self.key = nn.Linear(self.hidden, self.hidden)
        self.value = nn.Linear(self.hidden, self.hidden)
        self.attention_output = nn.Linear(self.hidden, self.hidden)
        self.attention_norm = nn.LayerNorm(self.hidden, eps=1e-12)
        self.intermediate_dense = nn.Linear(self.hidden, self.intermediate)
        self.output_dense = nn.Linear(self.intermediate, self.hidden)
        self.output_norm = nn.LayerNorm(self.hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def _split_heads(self, x):
        batch, seq, _ = x.shape
        return x.view(batch, seq, self.heads, self.hidden // self.heads).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        q = self._split_heads(self.query(hidden_states))
        k = self._split_heads(self.key(hidden_states))
        v = self._split_heads(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hidden // self.heads)
        # mask: 1 keeps a token, 0 drops it; BERT turns it into a large negative bias.
        extended = (1.0 - attention_mask[:, None, None, :].to(scores.dtype)) * torch.finfo(scores.dtype).min
        probs = self.dropout(torch.softmax(scores + extended, dim=-1))
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        context = context.view(context.shape[0], context.shape[1], self.hidden)
        attended = self.attention_norm(self.dropout(self.attention_output(context)) + hidden_states)
        ffn = self.output_dense(F.gelu(self.intermediate_dense(attended)))
        return self.output_norm(self.dropout(ffn) + attended)

    def get_example_inputs(self):
        mask = torch.ones(2, 6, dtype=torch.int64)
        mask[1, 4:] = 0  # the second sequence is padded
        return (randn(2, 6, self.hidden, seed=1), mask), {}


# ---------------------------------------------------------------------------
# ViT: patch embedding, class token, position embedding, one pre-norm block, head.
# ---------------------------------------------------------------------------


@e2e_case
class ViTBlock(nn.Module):
    """Patchify conv + [CLS] + learned positions, one pre-norm transformer block (SDPA), classifier."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    dim = 32
    heads = 4
    patch = 4
    image = 16

    def __init__(self):
        super().__init__()
        patches = (self.image // self.patch) ** 2
        self.patch_embed = nn.Conv2d(3, self.dim, self.patch, stride=self.patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, self.dim) * 0.02)
        self.position = nn.Parameter(torch.randn(1, patches + 1, self.dim) * 0.02)
        self.norm1 = nn.LayerNorm(self.dim, eps=1e-6)
        self.qkv = nn.Linear(self.dim, 3 * self.dim)
        self.proj = nn.Linear(self.dim, self.dim)
        self.norm2 = nn.LayerNorm(self.dim, eps=1e-6)
        self.fc1 = nn.Linear(self.dim, 4 * self.dim)
        self.fc2 = nn.Linear(4 * self.dim, self.dim)
        self.norm = nn.LayerNorm(self.dim, eps=1e-6)
        self.head = nn.Linear(self.dim, 10)

    def _attention(self, x):
        batch, tokens, _ = x.shape
        qkv = self.qkv(x).reshape(batch, tokens, 3, self.heads, self.dim // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        out = F.scaled_dot_product_attention(q, k, v)
        return self.proj(out.transpose(1, 2).reshape(batch, tokens, self.dim))

    def forward(self, images):
        x = self.patch_embed(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.position
        x = x + self._attention(self.norm1(x))
        x = x + self.fc2(F.gelu(self.fc1(self.norm2(x))))
        return self.head(self.norm(x)[:, 0])

    def get_example_inputs(self):
        return (randn(2, 3, self.image, self.image, seed=1),), {}


# ---------------------------------------------------------------------------
# Llama decoder layer: RMSNorm, rotary embeddings, grouped-query causal attention,
# SiLU-gated MLP; the sequence length is dynamic.
# ---------------------------------------------------------------------------


class _RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


@e2e_case
class LlamaDecoderLayer(nn.Module):
    """Llama layer: 4 query heads sharing 2 KV heads, RoPE tables sliced to the (dynamic) length."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    hidden = 32
    heads = 4
    kv_heads = 2
    intermediate = 64
    max_positions = 64

    def __init__(self):
        super().__init__()
        head_dim = self.hidden // self.heads
        self.input_norm = _RMSNorm(self.hidden)
        self.q_proj = nn.Linear(self.hidden, self.heads * head_dim, bias=False)
        self.k_proj = nn.Linear(self.hidden, self.kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(self.hidden, self.kv_heads * head_dim, bias=False)
        self.o_proj = nn.Linear(self.heads * head_dim, self.hidden, bias=False)
        self.post_attention_norm = _RMSNorm(self.hidden)
        self.gate_proj = nn.Linear(self.hidden, self.intermediate, bias=False)
        self.up_proj = nn.Linear(self.hidden, self.intermediate, bias=False)
        self.down_proj = nn.Linear(self.intermediate, self.hidden, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        angles = torch.outer(torch.arange(self.max_positions, dtype=torch.float32), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos_cached", angles.cos(), persistent=False)
        self.register_buffer("sin_cached", angles.sin(), persistent=False)

    def _attention(self, x):
        batch, seq, _ = x.shape
        head_dim = self.hidden // self.heads
        q = self.q_proj(x).view(batch, seq, self.heads, head_dim).transpose(1, 2)
        k = self.k_proj(x).view(batch, seq, self.kv_heads, head_dim).transpose(1, 2)
        v = self.v_proj(x).view(batch, seq, self.kv_heads, head_dim).transpose(1, 2)
        cos = self.cos_cached[:seq]
        sin = self.sin_cached[:seq]
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        repeat = self.heads // self.kv_heads
        k = k.repeat_interleave(repeat, dim=1)
        v = v.repeat_interleave(repeat, dim=1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(batch, seq, self.hidden))

    def forward(self, x):
        x = x + self._attention(self.input_norm(x))
        h = self.post_attention_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))

    def get_example_inputs(self):
        return (randn(1, 7, self.hidden, seed=1),), {}

    def get_dynamic_shapes(self):
        return ({1: Dim("seq", min=2, max=self.max_positions)},)

    def get_second_inputs(self):
        return (randn(1, 12, self.hidden, seed=2),), {}


# ---------------------------------------------------------------------------
# GRU cell unrolled over a short sequence.
# ---------------------------------------------------------------------------


@e2e_case
class GRUCellUnrolled(nn.Module):
    """nn.GRUCell applied step by step (export unrolls the loop); returns all states and the last."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(8, 16)
        self.out = nn.Linear(16, 4)

    def forward(self, sequence, state):
        states = []
        for step in range(sequence.shape[1]):
            state = self.cell(sequence[:, step], state)
            states.append(state)
        return self.out(torch.stack(states, dim=1)), state

    def get_example_inputs(self):
        return (randn(2, 5, 8, seed=1), randn(2, 16, seed=2)), {}


@e2e_case
class GRUCellManual(nn.Module):
    """The GRU update written out (gates from one fused matmul, chunked), three steps."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    def __init__(self):
        super().__init__()
        self.input_gates = nn.Linear(6, 3 * 12)
        self.hidden_gates = nn.Linear(12, 3 * 12)

    def forward(self, sequence):
        state = torch.zeros(sequence.shape[0], 12)
        for step in range(sequence.shape[1]):
            xr, xz, xn = self.input_gates(sequence[:, step]).chunk(3, dim=-1)
            hr, hz, hn = self.hidden_gates(state).chunk(3, dim=-1)
            reset = torch.sigmoid(xr + hr)
            update = torch.sigmoid(xz + hz)
            candidate = torch.tanh(xn + reset * hn)
            state = (1 - update) * candidate + update * state
        return state

    def get_example_inputs(self):
        return (randn(3, 3, 6, seed=1),), {}


# ---------------------------------------------------------------------------
# Full-sequence recurrent layers (aten::lstm.input, gru.input, rnn_tanh/relu.input), unrolled by
# the decompose plugin (rnn_sequences.cpp).
# ---------------------------------------------------------------------------


class _Recurrent(nn.Module):
    rtol = MODEL_RTOL
    atol = MODEL_ATOL
    layer: type[nn.Module] = nn.LSTM
    options: dict = {}
    batch_first = True
    with_state = False
    shape = (2, 6, 5)  # batch-first (batch, steps, features)

    def __init__(self):
        super().__init__()
        self.rnn = self.layer(5, 8, batch_first=self.batch_first, **self.options)

    def _state_shape(self):
        layers = self.options.get("num_layers", 1) * (2 if self.options.get("bidirectional") else 1)
        return (layers, self.shape[0], self.options.get("proj_size", 0) or 8)

    def forward(self, x, *state):
        if not self.with_state:
            out, last = self.rnn(x)
        elif self.layer is nn.LSTM:
            out, last = self.rnn(x, (state[0], state[1]))
        else:
            out, last = self.rnn(x, state[0])
        return (out, *last) if isinstance(last, tuple) else (out, last)

    def get_example_inputs(self):
        x = randn(*self.shape, seed=1) if self.batch_first else randn(self.shape[1], self.shape[0], self.shape[2], seed=1)
        if not self.with_state:
            return (x,), {}
        h = randn(*self._state_shape(), seed=2)
        if self.layer is nn.LSTM:
            c = randn(*self._state_shape()[:2], 8, seed=3)
            return (x, h, c), {}
        return (x, h), {}


@e2e_case
class LSTMSequence(_Recurrent):
    """One-layer LSTM over a batch-first sequence, zero initial state."""


@e2e_case
class LSTMStackedBidirectional(_Recurrent):
    """Two layers, both directions, initial states given, time-first input."""

    options = {"num_layers": 2, "bidirectional": True}
    batch_first = False
    with_state = True


@e2e_case
class LSTMProjected(_Recurrent):
    """An LSTM with a projection (proj_size): h is W_hr of the cell's output."""

    options = {"num_layers": 2, "proj_size": 4}
    with_state = True


@e2e_case
class GRUSequence(_Recurrent):
    """Two-layer bidirectional GRU, batch-first, zero initial state."""

    layer = nn.GRU
    options = {"num_layers": 2, "bidirectional": True}


@e2e_case
class RNNTanhSequence(_Recurrent):
    """Plain tanh RNN with a given initial state, no biases."""

    layer = nn.RNN
    options = {"bias": False}
    with_state = True


@e2e_case
class RNNReluSequence(_Recurrent):
    """ReLU RNN, two layers, time-first."""

    layer = nn.RNN
    options = {"nonlinearity": "relu", "num_layers": 2}
    batch_first = False


# ---------------------------------------------------------------------------
# Tied embeddings: the output projection is the embedding matrix.
# ---------------------------------------------------------------------------


@e2e_case
class TiedEmbeddingLM(nn.Module):
    """Embedding -> LayerNorm -> MLP -> logits through the *same* matrix (weight tying)."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL

    vocab = 50
    dim = 16

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(self.vocab, self.dim)
        self.norm = nn.LayerNorm(self.dim)
        self.mlp = nn.Sequential(nn.Linear(self.dim, 32), nn.GELU(approximate="tanh"), nn.Linear(32, self.dim))
        self.lm_head = nn.Linear(self.dim, self.vocab, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, tokens):
        h = self.embed(tokens)
        h = h + self.mlp(self.norm(h))
        return self.lm_head(h)

    def get_example_inputs(self):
        return (randint(2, 7, high=self.vocab, seed=1),), {}
