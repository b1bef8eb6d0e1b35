"""The decode signature of a float export on onert 0.2 (docs/llm.md, "onert"): onert's Python API
runs a model's first subgraph only, so `tico-circle extract` cuts the decode subgraph out into a
file of its own; its outputs (logits and every updated cache) must equal the built-in runtime's
on a cache state a prefill call left."""

import sys
from pathlib import Path

import numpy as np
import pytest

from tico_native import CircleModel, llm

from conftest import build, inspect_json, run_tool

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from onert_child import run_onert_child  # noqa: E402

pytest.importorskip("onert")

MAX_CONTEXT, PREFILL = 32, 8


@pytest.mark.parametrize("family", ["gemma3", "llama"])
def test_decode_signature_runs_on_onert(family, tmp_path):
    model = build(family)
    path = tmp_path / "model.circle"
    circle = llm.export(model, path, max_context=MAX_CONTEXT, prefill_len=PREFILL, tokenizer=False, progress=False)
    decode = next(s for s in circle.signatures if s.key == "decode")
    operators = inspect_json(path)["subgraphs"][decode.subgraph]["operator_count"]
    decode_path = tmp_path / "decode.circle"
    result = run_tool("tico-circle", "extract", path, "-o", decode_path, "--subgraph", decode.subgraph,
                      "--ops", f"0:{operators}")
    assert result.returncode == 0, result.stderr

    # A cache state as generation has it: a prefill of 8 tokens from position 0.
    specs = circle.signature_inputs("prefill")
    caches = [np.zeros(s.shape, np.float32) for s in specs[2:]]
    prompt = np.arange(5, 5 + PREFILL, dtype=np.int32)[None]
    caches = circle.run_signature("prefill", prompt, np.arange(PREFILL, dtype=np.int32)[None], *caches)[1:]
    feeds = {"input_ids": np.array([[11]], np.int32), "positions": np.array([[PREFILL]], np.int32)}
    feeds.update({s.name: np.asarray(c) for s, c in zip(specs[2:], caches)})
    expected = circle.run_signature("decode", *[feeds[s.name] for s in circle.signature_inputs("decode")])
    expected = dict(zip([t.name for t in circle.signature_outputs("decode")], expected))

    extracted = CircleModel.load(decode_path)
    # extract keeps the tensors' names (not the signature's), not necessarily the inputs' order.
    names = [t.name for t in extracted.inputs]
    assert sorted(names) == sorted(feeds)
    got, proc, phases = run_onert_child(decode_path, [feeds[n] for n in names], tmp_path / "onert")
    assert got is not None, f"onert stopped at {phases[-1] if phases else 'start'}: {proc.stderr[-2000:]}"
    outputs = [t.name for t in extracted.outputs]
    assert sorted(outputs) == sorted(expected)
    for name, value in zip(outputs, got):
        np.testing.assert_allclose(value, np.asarray(expected[name]), rtol=1e-5, atol=1e-5, err_msg=name)
