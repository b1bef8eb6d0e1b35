"""What the LLM export and generation refuse, each with an error naming the problem and no
output file: a model whose attention has no cache path, a cache layout the export does not know,
a prefill longer than the context, a tokenizer that cannot be embedded, a prompt longer than
max_context (tests of the last are in test_llm_export.py), a file that is not an exported LLM."""

import json

import pytest
import torch
import transformers as tf
from tokenizers import Tokenizer, models, pre_tokenizers
from torch import nn

from tico_native import llm
from tico_native.errors import LlmError

from conftest import build, run_tool, VOCAB


class NoCacheLM(nn.Module):
    """A causal LM whose attention never touches a cache (it recomputes everything)."""

    def __init__(self):
        super().__init__()
        self.config = tf.LlamaConfig(vocab_size=VOCAB, hidden_size=8, num_hidden_layers=1, num_attention_heads=1)
        self.embed = nn.Embedding(VOCAB, 8)
        self.head = nn.Linear(8, VOCAB)

    def forward(self, input_ids, position_ids=None, attention_mask=None, cache=None, use_cache=None):
        from transformers.modeling_outputs import CausalLMOutput

        return CausalLMOutput(logits=self.head(self.embed(input_ids)))


class OddCacheLM(NoCacheLM):
    """Writes a 3-D (head-merged) key/value into the cache: a layout the export does not know."""

    def forward(self, input_ids, position_ids=None, attention_mask=None, cache=None, use_cache=None):
        from transformers.modeling_outputs import CausalLMOutput

        h = self.embed(input_ids)
        if cache is not None:
            cache.update(h, h, 0)
        return CausalLMOutput(logits=self.head(h))


def test_a_model_without_a_cache_path_is_refused(tmp_path):
    out = tmp_path / "m.circle"
    with pytest.raises(LlmError, match="no attention layer reads or writes a KV cache"):
        llm.export(NoCacheLM().eval(), out, max_context=16, prefill_len=4, tokenizer=False)
    assert not out.exists()


def test_an_unknown_cache_layout_is_refused(tmp_path):
    out = tmp_path / "m.circle"
    with pytest.raises(LlmError, match=r"layer 0 writes keys \[1, 2, 8\].*knows the layout \[batch 1, kv_heads, tokens, head_dim\]"):
        llm.export(OddCacheLM().eval(), out, max_context=16, prefill_len=4, tokenizer=False)
    assert not out.exists()


def test_an_unknown_attention_layer_type_is_refused(tmp_path):
    model = build("qwen2")
    model.config.layer_types = ["chunked_attention"] * model.config.num_hidden_layers
    out = tmp_path / "m.circle"
    with pytest.raises(LlmError, match=r"attention layer types \['chunked_attention'\] have a cache layout"):
        llm.export(model, out, max_context=16, prefill_len=4, tokenizer=False)
    assert not out.exists()


def test_a_prefill_longer_than_the_context_is_refused(tmp_path):
    out = tmp_path / "m.circle"
    with pytest.raises(LlmError, match=r"prefill_len must be in \[1, max_context = 8\], got 16"):
        llm.export(build("llama"), out, max_context=8, prefill_len=16, tokenizer=False)
    assert not out.exists()


def test_a_tokenizer_that_cannot_be_embedded_is_refused(tmp_path):
    # A WordLevel model behind a Whitespace pre-tokenizer: tico's tokenizer reads BPE only.
    vocab = {f"w{i}": i for i in range(VOCAB)}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="w0"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = tf.PreTrainedTokenizerFast(tokenizer_object=raw)
    out = tmp_path / "m.circle"
    with pytest.raises(LlmError, match="cannot be read by tico's tokenizer.*WordLevel|cannot be read by tico's tokenizer.*Whitespace"):
        llm.export(build("llama"), out, max_context=16, prefill_len=4, tokenizer=tokenizer)
    assert not out.exists()


def test_generate_on_a_model_that_is_not_an_exported_llm(tmp_path):
    import tico_native

    plain = tmp_path / "plain.circle"
    tico_native.convert(nn.Linear(4, 2).eval(), (torch.randn(1, 4),)).save(plain)
    result = run_tool("tico-circle", "generate", plain, "--prompt-ids", "1 2")
    assert result.returncode == 2
    assert "not an LLM exported by tico_native.llm.export" in result.stderr


def test_token_ids_outside_the_vocabulary(tmp_path):
    path = tmp_path / "m.circle"
    circle = llm.export(build("llama"), path, max_context=16, prefill_len=4, tokenizer=False, progress=False)
    result = run_tool("tico-circle", "generate", path, "--prompt-ids", f"1 {VOCAB}")
    assert result.returncode == 2 and f"token id {VOCAB} is outside the vocabulary [0, {VOCAB})" in result.stderr
    result = run_tool("tico-circle", "generate", path, "--prompt", "hello")
    assert result.returncode == 2 and "needs the tokenizer, and the model has none embedded" in result.stderr
