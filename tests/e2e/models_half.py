"""Half-precision model cases: networks whose weights and activations are bfloat16 or float16.

The default pipeline's dtype policy (``half-precision-policy``, docs/passes.md)
computes such programs in float32 with the weights widened exactly, so the
Circle model's numerical model is eager PyTorch on a float32 copy of the module
(``module.float()``): these cases set ``float32_reference`` and are held to the
float32 model tolerance on onert, on the interpreter and in the evaluator after
the pipeline.  The checks that run the program in its own precision (the
export round trip, the evaluator before any pass) compare with the
half-precision eager outputs at ``half_rtol``: those run the same PyTorch
kernels, so they agree to a few half-precision rounding steps at most.

The Llama-style language model follows the layer structure of Hugging Face's
``LlamaForCausalLM`` (RMSNorm computed in float32 and cast back, rotary
embeddings from a float32 ``inv_freq`` buffer, grouped-query causal attention,
SiLU-gated MLP, an untied output projection), at a size that converts and runs
in about a second; the 1 B-parameter configuration is measured by
``tests/bench/bench_convert_half.py``, not in CI.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from case_registry import e2e_case, randint, randn

# float32 compute against a float32 reference: the model tolerance of models.py.
MODEL_RTOL = 1e-4
MODEL_ATOL = 1e-4
# Eager half precision against the same program evaluated op by op in half precision: a few
# rounding steps of bfloat16 (2**-8 relative) on O(1) values.
BFLOAT16_EAGER_TOLERANCE = 3e-2
FLOAT16_EAGER_TOLERANCE = 4e-3


class _LlamaRMSNorm(nn.Module):
    """Normalised in float32, scaled in the input's dtype (as Hugging Face's LlamaRMSNorm)."""

    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class _LlamaLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, intermediate: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        self.input_norm = _LlamaRMSNorm(hidden)
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)
        self.post_attention_norm = _LlamaRMSNorm(hidden)
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)

    def _attention(self, x, cos, sin):
        batch, seq, hidden = x.shape
        q = self.q_proj(x).view(batch, seq, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.o_proj(out.transpose(1, 2).reshape(batch, seq, hidden))

    def forward(self, x, cos, sin):
        x = x + self._attention(self.input_norm(x), cos, sin)
        h = self.post_attention_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class _TinyLlamaLM(nn.Module):
    """Token ids -> logits, in the module's parameter dtype (converted by the subclasses)."""

    rtol = MODEL_RTOL
    atol = MODEL_ATOL
    float32_reference = True

    vocab = 96
    hidden = 32
    heads = 4
    kv_heads = 2
    intermediate = 64
    layers = 2
    dtype = torch.float32

    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(self.vocab, self.hidden)
        self.blocks = nn.ModuleList(
            _LlamaLayer(self.hidden, self.heads, self.kv_heads, self.intermediate) for _ in range(self.layers)
        )
        self.norm = _LlamaRMSNorm(self.hidden)
        self.lm_head = nn.Linear(self.hidden, self.vocab, bias=False)
        head_dim = self.hidden // self.heads
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.to(self.dtype)
        self.inv_freq = inv_freq  # stays float32 after .to(half), as in Hugging Face's rotary embedding

    def forward(self, tokens):
        x = self.embed_tokens(tokens)
        positions = torch.arange(tokens.shape[1], dtype=torch.float32)
        angles = torch.outer(positions, self.inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.lm_head(self.norm(x))

    def get_example_inputs(self):
        return (randint(1, 8, high=self.vocab, seed=1),), {}


@e2e_case
class LlamaLMBFloat16(_TinyLlamaLM):
    """A two-layer Llama-style language model with bfloat16 weights and activations."""

    dtype = torch.bfloat16
    half_rtol = BFLOAT16_EAGER_TOLERANCE
    half_atol = BFLOAT16_EAGER_TOLERANCE


@e2e_case
class LlamaLMFloat16(_TinyLlamaLM):
    """The same language model in float16."""

    dtype = torch.float16
    half_rtol = FLOAT16_EAGER_TOLERANCE
    half_atol = FLOAT16_EAGER_TOLERANCE


@e2e_case
class CnnFloat16(nn.Module):
    """A small float16 CNN: conv + batch norm + ReLU, a depthwise conv, pooling, a classifier.

    The float16 image input is a float32 Circle input under the dtype policy.
    """

    rtol = MODEL_RTOL
    atol = MODEL_ATOL
    float32_reference = True
    half_rtol = FLOAT16_EAGER_TOLERANCE
    half_atol = FLOAT16_EAGER_TOLERANCE

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.depthwise = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.classifier = nn.Linear(8, 5)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)
        self.half()

    def forward(self, images):
        x = F.relu(self.bn(self.conv(images)))
        x = F.relu(self.depthwise(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.classifier(x)

    def get_example_inputs(self):
        return (randn(2, 3, 16, 16, seed=1, dtype=torch.float16),), {}
