"""Models from transformers (random weights from a small config: nothing is downloaded),
converted through tico_native.convert and compared with eager PyTorch (rtol = atol = 1e-5)."""

import torch
import transformers

import tico_native


def assert_close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-5)


def test_llama_from_transformers_matches_eager():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    model = transformers.LlamaForCausalLM(config).eval()
    ids = torch.randint(0, 128, (1, 12))
    circle = tico_native.convert(model, (ids,), kwargs={"use_cache": False}, strict=False)
    with torch.no_grad():
        expected = model(ids, use_cache=False).logits
    # torch.export keeps the specialised use_cache as an input (as in the original, unless
    # remove_constant_input is set); it is passed by name, as the original's CircleModel takes it.
    assert [spec.name for spec in circle.inputs] == ["input_ids", "use_cache"]
    assert_close(circle(ids, use_cache=False), expected)


def bert():
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=64)
    return transformers.BertModel(config).eval()


def test_bert_from_transformers_matches_eager():
    model = bert()
    ids = torch.randint(0, 128, (2, 10))
    circle = tico_native.convert(model, (ids,), strict=False)
    with torch.no_grad():
        expected = model(ids)
    hidden, pooled = circle(ids)
    assert_close(hidden, expected.last_hidden_state)
    assert_close(pooled, expected.pooler_output)


def test_bert_with_a_padding_mask_matches_eager():
    model = bert()
    ids = torch.randint(0, 128, (2, 10))
    mask = torch.ones(2, 10, dtype=torch.int64)
    mask[1, 7:] = 0
    circle = tico_native.convert(model, (ids,), kwargs={"attention_mask": mask}, strict=False)
    with torch.no_grad():
        expected = model(ids, attention_mask=mask)
    hidden, pooled = circle(ids, mask)
    assert_close(hidden, expected.last_hidden_state)
    assert_close(pooled, expected.pooler_output)
