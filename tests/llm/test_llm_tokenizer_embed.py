"""An exported LLM carries its tokenizer: text in and text out on the built-in runtime (Python and
tico-circle generate), the same ids as the Hugging Face tokenizer, and the special tokens the
generation loop needs. The tokenizers are the offline-trained fixtures of tests/llm/data."""

import json
from pathlib import Path

import pytest
import torch
import transformers as tf

from tico_native import CircleModel, llm

from conftest import run_tool

DATA = Path(__file__).parent / "data"


def tiny_model(vocab: int, bos: int, eos: int, pad: int):
    torch.manual_seed(0)
    config = tf.LlamaConfig(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                            bos_token_id=bos, eos_token_id=eos, pad_token_id=pad)
    model = tf.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(8.0)
    return model


@pytest.mark.parametrize("fixture", ["gemma", "llama3"])
def test_text_in_text_out(fixture, tmp_path):
    tokenizer = tf.PreTrainedTokenizerFast(tokenizer_file=str(DATA / f"{fixture}.json"))
    bos = tokenizer.convert_tokens_to_ids("<bos>" if fixture == "gemma" else "<|begin_of_text|>")
    eos = tokenizer.convert_tokens_to_ids("<eos>" if fixture == "gemma" else "<|end_of_text|>")
    tokenizer.bos_token_id, tokenizer.eos_token_id = bos, eos
    model = tiny_model(len(tokenizer), bos, eos, 0)
    path = tmp_path / "m.circle"
    circle = llm.export(model, path, max_context=48, prefill_len=8, tokenizer=tokenizer, progress=False)
    spec = circle.llm_spec
    assert spec["bos_token_id"] == bos and spec["eos_token_ids"] == [eos]
    assert spec["tokenizer"] == "tico.tokenizer.json"
    assert json.loads(circle._native.tokenizer_json()) == json.loads(tokenizer.backend_tokenizer.to_str())

    prompt = "def add(x, y): return x + y  # ünïcode ✓"
    prompt_ids = tokenizer(prompt)["input_ids"]
    assert list(circle.tokenizer.encode(prompt, True)) == prompt_ids
    with torch.no_grad():
        expected = model.generate(torch.tensor([prompt_ids]), max_new_tokens=12, do_sample=False, eos_token_id=None,
                                  pad_token_id=0)[0, len(prompt_ids):].tolist()
    assert circle.generate(prompt, 12, stop_at_eos=False) == expected
    # tico-circle generate: text in, the same tokens out (as text, and as ids with --ids).
    result = run_tool("tico-circle", "generate", path, "--prompt", prompt, "-n", 12, "--ignore-eos", "--ids")
    assert result.returncode == 0, result.stderr
    assert [int(t) for t in result.stdout.split()] == expected
    result = run_tool("tico-circle", "generate", path, "--prompt", prompt, "-n", 12, "--ignore-eos")
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip("\n") == tokenizer.decode(expected, skip_special_tokens=True)
    # Perplexity of a text file through the embedded tokenizer equals the one of its ids.
    text = tmp_path / "t.txt"
    text.write_text("The quick brown fox jumps over the lazy dog. " * 6)
    ids = tokenizer(text.read_text(), add_special_tokens=False)["input_ids"]
    by_text = json.loads(run_tool("tico-circle", "eval", path, "--perplexity", text, "--text", "--json").stdout)
    assert by_text["perplexity"] == pytest.approx(circle.perplexity(ids)["perplexity"], rel=1e-9)


def test_a_reloaded_file_generates_the_same(tmp_path):
    tokenizer = tf.PreTrainedTokenizerFast(tokenizer_file=str(DATA / "gemma.json"))
    model = tiny_model(len(tokenizer), 2, 1, 0)
    path = tmp_path / "m.circle"
    first = llm.export(model, path, max_context=32, prefill_len=8, tokenizer=tokenizer, progress=False)
    again = CircleModel.load(path)
    assert again.generate("hello world", 8, seed=3, temperature=0.8, top_k=5) == \
        first.generate("hello world", 8, seed=3, temperature=0.8, top_k=5)
    # Sampling is seeded: another seed gives another sequence, the same seed the same one.
    runs = {tuple(again.generate("hello world", 8, seed=s, temperature=1.5, stop_at_eos=False)) for s in range(4)}
    assert len(runs) > 1
