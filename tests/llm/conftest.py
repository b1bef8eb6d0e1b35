"""Shared pieces of the LLM tests (docs/llm.md): small random decoders of each family, the
tools of the build tree, eager references."""

import json
import math
import os
import subprocess
from pathlib import Path

import pytest
import torch
import transformers as tf

VOCAB = 97


def tool(name: str) -> str:
    from tico_native import _resources

    path = _resources.BIN_DIR / name
    assert path.exists(), f"the package lacks {path}"
    return str(path)


def run_tool(name: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([tool(name), *map(str, args)], capture_output=True, text=True)


def inspect_json(path) -> dict:
    result = run_tool("tico-circle", "inspect", path, "--json", "--tensors")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _config(config_class, **extra):
    base = dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=128, bos_token_id=2, eos_token_id=1, pad_token_id=0)
    base.update(extra)
    return config_class(**base)


# One decoder per family the export promises (Llama, Qwen, Gemma, Phi), plus Mistral's uniform
# sliding window and Gemma 3's mix of sliding and global layers with a window shorter than the
# prompts, so masks past the window are exercised.
FAMILIES = {
    "llama": lambda: tf.LlamaForCausalLM(_config(tf.LlamaConfig)),
    "qwen2": lambda: tf.Qwen2ForCausalLM(_config(tf.Qwen2Config)),
    "qwen3": lambda: tf.Qwen3ForCausalLM(_config(tf.Qwen3Config, head_dim=8)),
    "gemma": lambda: tf.GemmaForCausalLM(_config(tf.GemmaConfig, head_dim=8)),
    "gemma3": lambda: tf.Gemma3ForCausalLM(_config(
        tf.Gemma3TextConfig, head_dim=8, sliding_window=4, num_hidden_layers=3,
        layer_types=["sliding_attention", "sliding_attention", "full_attention"])),
    "mistral": lambda: tf.MistralForCausalLM(_config(tf.MistralConfig, sliding_window=5)),
    "phi3": lambda: tf.Phi3ForCausalLM(_config(tf.Phi3Config)),
}


def build(family: str) -> torch.nn.Module:
    torch.manual_seed(0)
    model = FAMILIES[family]().eval()
    # Random-init logits are nearly flat; a scaled head gives greedy decoding clear winners, so a
    # token-for-token comparison tests the model rather than float rounding between near-ties.
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(8.0)
    return model


def eager_nll(model, windows: list[list[int]]) -> tuple[float, int]:
    """Summed negative log-likelihood of each window's tokens after its first, from eager."""
    total, count = 0.0, 0
    with torch.no_grad():
        for w in windows:
            logits = model(torch.tensor([w])).logits[0].double()
            logp = torch.log_softmax(logits, -1)
            for i in range(len(w) - 1):
                total -= logp[i, w[i + 1]].item()
                count += 1
    return total, count
