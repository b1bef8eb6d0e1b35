"""A decoder LLM as a pure function of explicit tensors, ready for torch.export.

``CachedCausalLM(model, max_context)`` wraps a Hugging Face causal LM so that one call is

    logits, k_0', v_0', ..., k_{L-1}', v_{L-1}' = f(input_ids, positions, k_0, v_0, ...)

with ``input_ids`` and ``positions`` of shape [1, T] (int32) and every layer's key and value
cache of a static shape [1, kv_heads, max_context, head_dim]. The T new rows are written at
``positions`` (index_copy, out of place) and attention reads the whole cache under a mask built
inside the graph from the positions: slot j is visible to the token at position p when
j <= p, and, in a sliding-window layer, j > p - window. So one program serves both signatures:
T = P for prefill (a padded prompt chunk) and T = 1 for decode, and nothing about the runtime
state is hidden in Python objects.

It works with any transformers model whose attention layers call ``cache.update(k, v,
layer_idx, ...)`` (Llama, Mistral, Qwen2/3, Gemma 1-3, Phi-3, Granite, OLMo 2, SmolLM3, ...).
What it cannot express is refused before export with an LlmExportError naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ..errors import LlmError

# Attention masks hide a slot with the most negative float32 (what transformers uses): exp()
# of it is exactly 0 after the row maximum is subtracted, so padded or unwritten slots cannot
# change a softmax.
MASK_MIN = torch.finfo(torch.float32).min

_KNOWN_LAYER_TYPES = ("full_attention", "sliding_attention")


class LlmExportError(LlmError):
    """A model, cache layout, prompt or tokenizer the LLM export cannot handle; says which."""


@dataclass(frozen=True)
class CacheSpec:
    """One attention layer's cache: [1, kv_heads, max_context, head_dim] for keys and values."""

    kv_heads: int
    head_dim: int
    window: int | None  # sliding-window length, None for global attention
    layer_type: str


class _ProbeCache:
    """Records which layers call cache.update and with what shapes, returns k/v unchanged."""

    def __init__(self):
        self.seen: dict[int, tuple[tuple[int, ...], tuple[int, ...], torch.dtype]] = {}

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        self.seen[int(layer_idx)] = (tuple(key_states.shape), tuple(value_states.shape), key_states.dtype)
        return key_states, value_states

    def get_seq_length(self, layer_idx=0):
        return 0


class _FunctionalCache:
    """The cache object the model sees while exported: update() writes the new rows into this
    layer's input tensor (a new tensor, no in-place write) and returns the whole cache for
    attention. The rows go to consecutive slots from ``index`` = first position + 0..T-1, which
    tico lowers to DYNAMIC_UPDATE_SLICE (one block copy, and an operator onert runs): the
    runtime contract is that a call's positions are consecutive and end inside the cache."""

    def __init__(self, keys, values, index):
        self.keys, self.values, self.index = list(keys), list(values), index

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        i = int(layer_idx)
        self.keys[i] = torch.index_copy(self.keys[i], 2, self.index, key_states.to(self.keys[i].dtype))
        self.values[i] = torch.index_copy(self.values[i], 2, self.index, value_states.to(self.values[i].dtype))
        return self.keys[i], self.values[i]

    def get_seq_length(self, layer_idx=0):
        return 0


def _layer_types(config) -> list[str] | None:
    types = getattr(config, "layer_types", None)
    return list(types) if types else None


def _mask(positions: torch.Tensor, max_context: int, window: int | None) -> torch.Tensor:
    """[1, 1, T, max_context] additive mask for the tokens at `positions` ([T], int64)."""
    slots = torch.arange(max_context, dtype=positions.dtype)
    visible = slots[None, :] <= positions[:, None]
    if window is not None:
        visible = visible & (slots[None, :] > positions[:, None] - window)
    return torch.where(visible, 0.0, MASK_MIN)[None, None]


class CachedCausalLM(nn.Module):
    """See the module docstring. ``max_context``: the static cache length (the largest position
    + 1 a generation may reach)."""

    def __init__(self, model: nn.Module, max_context: int):
        super().__init__()
        if max_context < 1:
            raise LlmExportError(f"max_context must be at least 1, got {max_context}")
        self.model = model.eval()
        self.max_context = int(max_context)
        config = model.config
        self.layer_types = _layer_types(config)
        self.window = getattr(config, "sliding_window", None)
        if self.layer_types:
            unknown = sorted(set(self.layer_types) - set(_KNOWN_LAYER_TYPES))
            if unknown:
                raise LlmExportError(
                    f"{type(model).__name__}: attention layer types {unknown} have a cache layout the LLM export "
                    f"does not know (it knows {list(_KNOWN_LAYER_TYPES)})")
        self.specs = self._probe()

    # -- the cache layout, found by running the model once -----------------------------------

    def _masks(self, positions: torch.Tensor, kv_length: int | None = None):
        """What the model's attention_mask argument takes: a dict by layer type for models that
        mix layer types (transformers reads it as given), else one 4-D tensor."""
        length = self.max_context if kv_length is None else kv_length
        if self.layer_types:
            masks = {"full_attention": _mask(positions, length, None)}
            if "sliding_attention" in self.layer_types:
                masks["sliding_attention"] = _mask(positions, length, self.window)
            return masks
        return _mask(positions, length, self.window)

    def _layer_window(self, layer: int) -> tuple[int | None, str]:
        if self.layer_types:
            kind = self.layer_types[layer]
            return (self.window if kind == "sliding_attention" else None), kind
        return self.window, ("sliding_attention" if self.window else "full_attention")

    @torch.no_grad()
    def _probe(self) -> list[CacheSpec]:
        name = type(self.model).__name__
        probe = _ProbeCache()
        ids = torch.zeros(1, 2, dtype=torch.long)
        positions = torch.arange(2)
        try:
            self.model(input_ids=ids, position_ids=positions[None], attention_mask=self._masks(positions, 2),
                       cache=probe, use_cache=True)
        except TypeError as e:
            raise LlmExportError(f"{name} does not take a cache argument: {e}") from None
        layers = getattr(self.model.config, "num_hidden_layers", None)
        if not probe.seen:
            raise LlmExportError(
                f"{name}: no attention layer reads or writes a KV cache (cache.update was never called), so "
                "there is no cache path to export; the LLM export needs a transformers model whose attention "
                "calls cache.update(key, value, layer_idx)")
        if layers is not None and sorted(probe.seen) != list(range(layers)):
            missing = sorted(set(range(layers)) - set(probe.seen))
            raise LlmExportError(f"{name}: layers {missing} of {layers} have no cache path (cache.update never called)")
        specs = []
        for layer in sorted(probe.seen):
            k_shape, v_shape, dtype = probe.seen[layer]
            if len(k_shape) != 4 or k_shape[0] != 1 or k_shape[2] != 2 or tuple(v_shape[:3]) != tuple(k_shape[:3]):
                raise LlmExportError(
                    f"{name}: layer {layer} writes keys {list(k_shape)} and values {list(v_shape)} into its cache; the "
                    "LLM export knows the layout [batch 1, kv_heads, tokens, head_dim] for both")
            if k_shape[3] != v_shape[3]:
                raise LlmExportError(f"{name}: layer {layer} has key head_dim {k_shape[3]} and value head_dim {v_shape[3]}")
            window, kind = self._layer_window(layer)
            specs.append(CacheSpec(kv_heads=k_shape[1], head_dim=k_shape[3], window=window, layer_type=kind))
        return specs

    # -- the exported function ---------------------------------------------------------------

    def empty_cache(self, dtype=torch.float32) -> list[torch.Tensor]:
        """Zero caches in input order: k_0, v_0, k_1, v_1, ..."""
        out = []
        for spec in self.specs:
            shape = (1, spec.kv_heads, self.max_context, spec.head_dim)
            out += [torch.zeros(shape, dtype=dtype), torch.zeros(shape, dtype=dtype)]
        return out

    def cache_names(self) -> list[str]:
        names = []
        for layer in range(len(self.specs)):
            names += [f"k_cache_{layer}", f"v_cache_{layer}"]
        return names

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor, *cache: torch.Tensor):
        index = positions.reshape(-1).to(torch.int64)
        slots = index[:1] + torch.arange(index.shape[0], dtype=torch.int64)
        keys, values = cache[0::2], cache[1::2]
        state = _FunctionalCache(keys, values, slots)
        out = self.model(input_ids=input_ids, position_ids=index[None], attention_mask=self._masks(index),
                         cache=state, use_cache=True)
        new_cache = []
        for k, v in zip(state.keys, state.values):
            new_cache += [k, v]
        return (out.logits, *new_cache)


def exportable(wrapper: CachedCausalLM) -> nn.Module:
    """A module whose forward names every input (input_ids, positions, k_cache_0, v_cache_0, ...)
    so that the exported program, and the Circle signatures after it, carry those names."""
    names = ["input_ids", "positions", *wrapper.cache_names()]
    params = ", ".join(names)
    source = f"def forward(self, {params}):\n    return self.inner({params})\n"
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 - the source is built from fixed identifiers above

    class Named(nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

    Named.forward = namespace["forward"]
    return Named(wrapper).eval()
