"""Rotations (docs/quantizers.md, "Rotations") through tico_native.llm.export: the per-head
value/output rotation reaches through the KV cache (the value caches hold rotated values in both
signatures), the online Hadamard rotations sit before every projection, and the file still
computes the model: prefill and decode logits equal eager PyTorch, greedy generation equals Hugging
Face generate."""

import numpy as np
import pytest
import torch

from conftest import VOCAB, build
from tico_native import llm

MAX_CONTEXT, PREFILL = 32, 8
ROTATE = """schema: tico.pipeline/v1
stages:
  - name: rotate
    kind: quantize
    passes:
      - name: rotate
        options: {online: ["*_proj*"]}
"""


@pytest.mark.parametrize("family", ["llama", "gemma3", "qwen3"])
def test_rotated_export_computes_the_model(family, tmp_path):
    model = build(family)
    recipe = tmp_path / "rotate.yaml"
    recipe.write_text(ROTATE)
    report = {}
    rotated = llm.export(model, tmp_path / "rotated.circle", max_context=MAX_CONTEXT, prefill_len=PREFILL,
                         tokenizer=False, progress=False, quant=recipe, report=report)
    plain = llm.export(model, tmp_path / "plain.circle", max_context=MAX_CONTEXT, prefill_len=PREFILL,
                       tokenizer=False, progress=False)
    layers = model.config.num_hidden_layers
    heads = [m for m in report["quantizer_metrics"] if m[1] == "rotate_head_block"]
    online = [m for m in report["quantizer_metrics"] if m[1] == "rotate_online_order"]
    assert len(heads) == layers and {m[2] for m in heads} == {model.config.head_dim}, report["quantizer_metrics"]
    assert len(online) == 7 * layers  # q, k, v, o, gate, up, down

    torch.manual_seed(1)
    ids = torch.randint(3, VOCAB, (1, PREFILL + 3))
    with torch.no_grad():
        reference = model(ids).logits
    zeros = [np.zeros(tuple(i.shape), np.float32) for i in rotated.signature_inputs("prefill")[2:]]
    positions = np.arange(PREFILL, dtype=np.int32)[None]
    out = rotated.run_signature("prefill", ids[:, :PREFILL].int().numpy(), positions, *zeros)
    float_out = plain.run_signature("prefill", ids[:, :PREFILL].int().numpy(), positions, *zeros)
    np.testing.assert_allclose(out[0], reference[:, :PREFILL].numpy(), rtol=1e-4, atol=1e-4)
    # Key caches as the plain file's; value caches rotated per head (same norms per head row).
    for i in range(layers):
        k, v, k0, v0 = out[1 + 2 * i], out[2 + 2 * i], float_out[1 + 2 * i], float_out[2 + 2 * i]
        np.testing.assert_allclose(k, k0, rtol=1e-4, atol=1e-5)
        assert np.abs(v - v0).max() > 1e-3
        np.testing.assert_allclose(np.linalg.norm(v, axis=-1), np.linalg.norm(v0, axis=-1), rtol=1e-4, atol=1e-5)
    cache = out[1:]
    for t in range(PREFILL, PREFILL + 3):
        out = rotated.run_signature("decode", ids[:, t:t + 1].int().numpy(), np.array([[t]], np.int32), *cache)
        np.testing.assert_allclose(out[0][:, 0], reference[:, t].numpy(), rtol=1e-4, atol=1e-4)
        cache = out[1:]

    prompt = torch.randint(3, VOCAB, (1, 5))
    with torch.no_grad():
        expected = model.generate(prompt, max_new_tokens=12, do_sample=False, eos_token_id=None,
                                  pad_token_id=0)[0, 5:].tolist()
    assert rotated.generate(prompt[0].tolist(), 12, stop_at_eos=False) == expected
