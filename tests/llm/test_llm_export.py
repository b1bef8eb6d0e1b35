"""tico_native.llm.export on small random decoders of every family (docs/llm.md): one Circle
file with prefill and decode signatures over an explicit KV cache, weights stored once, run on
the built-in runtime against eager PyTorch and Hugging Face generate."""

import json
import math

import numpy as np
import pytest
import torch

from tico_native import CircleModel, llm
from tico_native.errors import InterpreterError, LlmError

from conftest import FAMILIES, VOCAB, build, eager_nll, inspect_json, run_tool

MAX_CONTEXT, PREFILL = 32, 8


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def exported(request, tmp_path_factory):
    model = build(request.param)
    path = tmp_path_factory.mktemp(request.param) / "model.circle"
    circle = llm.export(model, path, max_context=MAX_CONTEXT, prefill_len=PREFILL, tokenizer=False, progress=False)
    return request.param, model, path, circle


def test_signatures_and_interface(exported):
    family, model, path, circle = exported
    layers = model.config.num_hidden_layers
    keys = [s.key for s in circle.signatures]
    assert keys == ["prefill", "decode"]
    cache_names = [f"{kv}_cache_{i}" for i in range(layers) for kv in ("k", "v")]
    for signature, tokens in (("prefill", PREFILL), ("decode", 1)):
        inputs = circle.signature_inputs(signature)
        assert [i.name for i in inputs] == ["input_ids", "positions", *cache_names]
        assert inputs[0].shape == (1, tokens) and inputs[0].dtype == "int32"
        assert inputs[1].shape == (1, tokens) and inputs[1].dtype == "int32"
        assert all(i.shape == (1, model.config.num_key_value_heads, MAX_CONTEXT, i.shape[3]) for i in inputs[2:])
        sig = next(s for s in circle.signatures if s.key == signature)
        assert list(sig.outputs) == ["logits", *cache_names]
        assert circle.signature_outputs(signature)[0].shape == (1, tokens, VOCAB)
    spec = circle.llm_spec
    assert spec["max_context"] == MAX_CONTEXT and spec["prefill_len"] == PREFILL and len(spec["cache"]) == layers
    assert run_tool("tico-circle", "verify", path).returncode == 0


def test_weights_stored_once(exported):
    """Both subgraphs read every weight from the same buffer: the file holds one copy."""
    family, model, path, circle = exported
    doc = inspect_json(path)
    constant = [{t["buffer"] for t in sg["tensors"] if t["bytes"] >= 1024} for sg in doc["subgraphs"]]
    assert constant[0] and constant[0] == constant[1]
    # parameters() yields a tied embedding once; the rest of the payload is small constants
    # (RoPE frequencies, norms' 1 + w, shapes) and the metadata. Parameters with equal values
    # (the test model's identical norm weights) are one buffer (deduplicate-constants).
    weight_bytes = sum(len(b) for b in {p.detach().float().numpy().tobytes() for p in model.parameters()})
    assert weight_bytes <= doc["buffers"]["payload_bytes"] < weight_bytes * 1.15 + 8192, (doc["buffers"], weight_bytes)


def test_prefill_and_decode_match_eager(exported):
    family, model, path, circle = exported
    torch.manual_seed(1)
    ids = torch.randint(3, VOCAB, (1, PREFILL + 3))
    with torch.no_grad():
        reference = model(ids).logits
    cache = [np.zeros(tuple(i.shape), np.float32) for i in circle.signature_inputs("prefill")[2:]]
    out = circle.run_signature("prefill", ids[:, :PREFILL].int().numpy(),
                               np.arange(PREFILL, dtype=np.int32)[None], *cache)
    np.testing.assert_allclose(out[0], reference[:, :PREFILL].numpy(), rtol=1e-4, atol=1e-4)
    cache = out[1:]
    for t in range(PREFILL, PREFILL + 3):
        out = circle.run_signature("decode", ids[:, t:t + 1].int().numpy(), np.array([[t]], np.int32), *cache)
        np.testing.assert_allclose(out[0][:, 0], reference[:, t].numpy(), rtol=1e-4, atol=1e-4)
        cache = out[1:]


@pytest.mark.parametrize("prompt_len", [3, 13])
def test_greedy_generation_equals_hugging_face(exported, prompt_len):
    """The C++ generation loop (prefill chunks, a padded remainder, decode steps) gives Hugging
    Face generate's greedy tokens; 13 tokens take a full chunk and a padded one."""
    family, model, path, circle = exported
    torch.manual_seed(prompt_len)
    prompt = torch.randint(3, VOCAB, (1, prompt_len))
    with torch.no_grad():
        expected = model.generate(prompt, max_new_tokens=14, do_sample=False, eos_token_id=None,
                                  pad_token_id=0)[0, prompt_len:].tolist()
    tokens, stats = circle.generate(prompt[0].tolist(), 14, stop_at_eos=False, return_stats=True)
    assert tokens == expected
    assert stats["decode_steps"] == 13 and stats["prompt_tokens"] == prompt_len
    # tico-circle generate prints the same ids.
    result = run_tool("tico-circle", "generate", path, "--prompt-ids", " ".join(map(str, prompt[0].tolist())),
                      "-n", 14, "--ignore-eos", "--json")
    assert result.returncode == 0, result.stderr
    assert [int(t) for t in result.stdout.split()] == expected
    assert json.loads(result.stderr)["decode_steps"] == 13


def test_perplexity_equals_eager(exported, tmp_path):
    family, model, path, circle = exported
    torch.manual_seed(2)
    tokens = torch.randint(3, VOCAB, (5 * PREFILL + 3,)).tolist()
    windows = [tokens[i:i + PREFILL] for i in range(0, len(tokens) - PREFILL + 1, PREFILL)]
    nll, count = eager_nll(model, windows)
    ours = circle.perplexity(tokens)
    assert ours["windows"] == 5 and ours["predictions"] == count
    assert math.isclose(ours["perplexity"], math.exp(nll / count), rel_tol=1e-4)
    ids = tmp_path / "tokens.txt"
    ids.write_text(" ".join(map(str, tokens)))
    result = run_tool("tico-circle", "eval", path, "--perplexity", ids, "--json")
    assert result.returncode == 0, result.stderr
    assert math.isclose(json.loads(result.stdout)["perplexity"], ours["perplexity"], rel_tol=1e-9)


def test_log_likelihood_scores_continuations(exported, tmp_path):
    family, model, path, circle = exported
    context, continuation = [5, 9, 14, 3, 22, 40, 41, 8, 16, 30], [7, 11, 2]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([context + continuation])).logits[0].double(), -1)
    expected = sum(logp[len(context) - 1 + i, t].item() for i, t in enumerate(continuation))
    assert math.isclose(circle.log_likelihood(context, continuation), expected, rel_tol=1e-4, abs_tol=1e-4)
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"context": context, "choices": [continuation, [3, 4], [60, 61, 62]],
                                     "answer": 0}) + "\n")
    result = run_tool("tico-circle", "eval", path, "--choices", questions, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["questions"] == 1


def test_context_limit_is_an_error(exported):
    family, model, path, circle = exported
    with pytest.raises(InterpreterError, match=f"more than the model's max_context {MAX_CONTEXT}"):
        circle.generate(list(range(3, 3 + MAX_CONTEXT + 1)), 4)
    result = run_tool("tico-circle", "generate", path, "--prompt-ids", " ".join(["5"] * (MAX_CONTEXT + 1)))
    assert result.returncode == 2 and f"max_context {MAX_CONTEXT}" in result.stderr
    # Generation that reaches the last slot stops with the reason instead of failing.
    tokens, stats = circle.generate([5] * (MAX_CONTEXT - 3), 10, stop_at_eos=False, return_stats=True)
    assert stats["stop_reason"] == "context" and len(tokens) == 4


def test_a_prefill_window_near_the_end_of_the_cache_starts_earlier(tmp_path):
    """Each call writes its rows as one block from its first position (DYNAMIC_UPDATE_SLICE), so a
    padded prefill must end inside the cache: with max_context 30 and chunks of 8, the last 3 of
    27 prompt tokens go in a window starting at 22 that feeds tokens 22 and 23 again. The tokens
    still equal Hugging Face's."""
    model = build("gemma3")
    circle = llm.export(model, tmp_path / "m.circle", max_context=30, prefill_len=8, tokenizer=False, progress=False)
    ops = run_tool("tico-circle", "inspect", tmp_path / "m.circle").stdout
    assert "DYNAMIC_UPDATE_SLICE" in ops and "SCATTER_ND" not in ops
    torch.manual_seed(7)
    prompt = torch.randint(3, VOCAB, (1, 27))
    with torch.no_grad():
        expected = model.generate(prompt, max_new_tokens=3, do_sample=False, eos_token_id=None,
                                  pad_token_id=0)[0, 27:].tolist()
    tokens, stats = circle.generate(prompt[0].tolist(), 3, stop_at_eos=False, return_stats=True)
    assert tokens == expected
    assert stats["prefill_calls"] == 4
