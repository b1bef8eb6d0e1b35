"""``tico_native.llm.export``: a decoder LLM to one Circle file with ``prefill`` and ``decode``
signatures over an explicit KV cache (docs/llm.md).

The model is exported once with torch.export, its sequence length dynamic (1 .. prefill_len);
tico converts that one program, quantizes it once when a recipe is given (calibrated on
prefill windows of text kept apart from any evaluation text), and lowers it twice: with
``input_ids.1 = prefill_len`` as the ``prefill`` signature and with ``input_ids.1 = 1`` as
``decode``. Both subgraphs read the same weight buffers, stored once. The file's metadata holds
the description runtimes need (``tico.llm.v1``: signatures, cache layout, special tokens, chat
template) and the tokenizer (``tico.tokenizer.json``), so ``tico-circle generate`` goes from
text to text.
"""

from __future__ import annotations

import gc
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Sequence

import torch

from .. import _resources
from ..convert import _pipelines_and_config
from ..errors import LlmError
from ..model import CircleModel
from .cache_module import CachedCausalLM, exportable
from .checkpoints import load_causal_lm

SPEC_METADATA = "tico.llm.v1"
TOKENIZER_METADATA = "tico.tokenizer.json"


def tokenizer_json(tokenizer) -> str:
    """The tokenizer.json text of a Hugging Face tokenizer backed by the ``tokenizers`` library;
    LlmError when it has none (a slow Python tokenizer cannot be embedded)."""
    backend = getattr(tokenizer, "backend_tokenizer", None) or getattr(tokenizer, "_tokenizer", None)
    to_str = getattr(backend, "to_str", None)
    if not callable(to_str):
        raise LlmError(f"the tokenizer {type(tokenizer).__name__} has no tokenizer.json form (it is not backed by the "
                       "tokenizers library), so it cannot be embedded; pass tokenizer=False to export without it")
    return to_str()


def check_embeddable(text: str, tokenizer, samples: Sequence[str] = ()) -> None:
    """Loads the tokenizer.json with tico's C++ tokenizer (what tico-circle generate reads) and
    checks that it encodes a few texts exactly as the Hugging Face tokenizer does."""
    from .. import _tico_native

    native = _tico_native.NativeTokenizer(text)  # LlmError naming what it cannot reproduce
    texts = list(samples) or ["Hello world!", "  two  spaces, tabs\tand\nnewlines", "Ünïcödé ✓ 😀 中文 123456",
                              "def f(x):\n    return x ** 2"]
    for sample in texts:
        ours = list(native.encode(sample, True))
        theirs = list(tokenizer(sample)["input_ids"])
        if ours != theirs:
            raise LlmError(f"tico's tokenizer encodes {sample!r} as {ours[:16]}..., the model's tokenizer as "
                           f"{theirs[:16]}...: this tokenizer cannot be embedded faithfully; pass tokenizer=False")


def _special_tokens(model, tokenizer) -> dict:
    config = model.config
    generation = getattr(model, "generation_config", None)
    eos = getattr(generation, "eos_token_id", None)
    if eos is None:
        eos = getattr(config, "eos_token_id", None)
    if eos is None and tokenizer is not None:
        eos = tokenizer.eos_token_id
    eos_ids = sorted({int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos]) if e is not None})
    bos = getattr(config, "bos_token_id", None)
    if tokenizer is not None and tokenizer.bos_token_id is not None:
        bos = tokenizer.bos_token_id
    pad = getattr(config, "pad_token_id", None)
    if pad is None and tokenizer is not None:
        pad = tokenizer.pad_token_id
    add_bos = False
    if tokenizer is not None and bos is not None:
        ids = tokenizer("a")["input_ids"]
        add_bos = bool(ids) and ids[0] == bos
    return {"bos_token_id": None if bos is None else int(bos), "eos_token_ids": eos_ids,
            "pad_token_id": int(pad) if pad is not None else 0, "add_bos": add_bos}


def spec_json(wrapper: CachedCausalLM, prefill_len: int, tokenizer, embed_tokenizer: bool, quant: str | None) -> dict:
    model = wrapper.model
    config = model.config
    spec = {
        "format": "tico.llm",
        "version": 1,
        "architecture": type(model).__name__,
        "model_type": getattr(config, "model_type", None),
        "vocab_size": int(config.vocab_size),
        "max_context": wrapper.max_context,
        "prefill_len": int(prefill_len),
        "prefill_signature": "prefill",
        "decode_signature": "decode",
        "inputs": ["input_ids", "positions", *wrapper.cache_names()],
        "outputs": ["logits", *wrapper.cache_names()],
        "cache": [{"layer": i, "kv_heads": s.kv_heads, "head_dim": s.head_dim, "window": s.window,
                   "layer_type": s.layer_type} for i, s in enumerate(wrapper.specs)],
        "tokenizer": TOKENIZER_METADATA if embed_tokenizer else None,
        "chat_template": getattr(tokenizer, "chat_template", None) if tokenizer is not None else None,
        "quantization": quant,
    }
    spec.update(_special_tokens(model, tokenizer))
    return spec


# -- calibration --------------------------------------------------------------------------------

def _token_stream(calibration, tokenizer) -> list[int]:
    """Token ids from text, a list of texts, a text file path or token-id lists."""
    if isinstance(calibration, os.PathLike) or (
            isinstance(calibration, str) and "\n" not in calibration and len(calibration) < 4096
            and Path(calibration).is_file()):
        calibration = Path(calibration).read_text(encoding="utf-8")
    if isinstance(calibration, str):
        calibration = [calibration]
    ids: list[int] = []
    for item in calibration:
        if isinstance(item, str):
            if tokenizer is None:
                raise LlmError("calibration text needs the model's tokenizer; give token ids instead")
            ids += list(tokenizer(item, add_special_tokens=False)["input_ids"])
        else:
            ids += [int(t) for t in item]
    return ids


def calibration_windows(calibration, tokenizer, prefill_len: int, batches: int, bos_id: int | None) -> list[list[int]]:
    """Consecutive windows of prefill_len tokens (bos first when the model adds one), at most
    ``batches`` of them."""
    ids = _token_stream(calibration, tokenizer)
    per_window = prefill_len - (1 if bos_id is not None else 0)
    windows = []
    for start in range(0, len(ids) - per_window + 1, per_window):
        if len(windows) >= batches:
            break
        window = ids[start:start + per_window]
        windows.append(([bos_id] if bos_id is not None else []) + window)
    if not windows:
        raise LlmError(f"the calibration text holds {len(ids)} tokens, fewer than one window of {per_window}")
    return windows


def _calibration_batches(wrapper: CachedCausalLM, windows: list[list[int]]) -> list[list]:
    import numpy as np

    # One zero cache shared by every batch (the converter copies each distinct array once).
    cache = [c.numpy() for c in wrapper.empty_cache()]
    positions = np.arange(len(windows[0]), dtype=np.int32)[None]
    return [[np.asarray(w, dtype=np.int32)[None], positions, *cache] for w in windows]


# -- export -------------------------------------------------------------------------------------

def export_program(wrapper: CachedCausalLM, prefill_len: int) -> torch.export.ExportedProgram:
    """torch.export of the wrapper with the sequence length dynamic in [1, prefill_len]."""
    named = exportable(wrapper)
    ids = torch.zeros(1, prefill_len, dtype=torch.int32)
    positions = torch.arange(prefill_len, dtype=torch.int32)[None]
    seq = torch.export.Dim("seq", min=1, max=prefill_len)
    shapes = {"input_ids": {1: seq}, "positions": {1: seq}, **{n: None for n in wrapper.cache_names()}}
    with torch.no_grad():
        return torch.export.export(named, (ids, positions, *wrapper.empty_cache()), dynamic_shapes=shapes, strict=False)


def export(
    model_or_path: Any,
    out: str | os.PathLike | None = None,
    *,
    max_context: int = 512,
    prefill_len: int = 128,
    quant: str | os.PathLike | None = None,
    calibration: Any = None,
    calibration_batches: int = 32,
    tokenizer: Any = None,
    pipeline: str | os.PathLike | None = None,
    config: Any = None,
    progress: bool = True,
    report: dict | None = None,
) -> CircleModel:
    """Exports a causal LM to one Circle file with ``prefill`` (``prefill_len`` tokens) and
    ``decode`` (1 token) signatures over a KV cache of ``max_context`` positions.

    ``model_or_path``: an ``nn.Module`` (a transformers causal LM), a Hugging Face checkpoint
    directory or a ``.gguf`` file. ``quant``: None (float32), a packaged recipe name
    (``llm-w4a16``, ``llm-w8a16``, ``llm-w8a8``, ``llm-rtn-w4a16``) or a recipe YAML path;
    recipes that calibrate need ``calibration``: text, a list of texts, a text file, or token-id
    lists, cut into ``calibration_batches`` windows of ``prefill_len`` tokens (never the text
    you evaluate on). ``tokenizer``: the model's (default: loaded with it), or False to embed
    none. Writes ``out`` when given (atomically; the returned CircleModel maps it) and returns the
    CircleModel. The exported program passes through a private temporary file (``TMPDIR``) that
    the converter maps, so weights are not held twice. ``report``, when a dict, receives the
    export and conversion times and what the quantizers reported per layer
    (``quantizer_metrics``: GPTQ's ``gptq_layer_error``, ``rtn_layer_error``, ``error_ratio``).
    """
    started = time.perf_counter()
    model, loaded_tokenizer = load_causal_lm(model_or_path)
    embed = tokenizer is not False
    tokenizer = loaded_tokenizer if tokenizer is None or tokenizer is False else tokenizer
    if prefill_len < 1 or prefill_len > max_context:
        raise LlmError(f"prefill_len must be in [1, max_context = {max_context}], got {prefill_len}")
    wrapper = CachedCausalLM(model, max_context)
    metadata = []
    text = None
    if embed:
        if tokenizer is None:
            raise LlmError("no tokenizer to embed: pass tokenizer=... or tokenizer=False")
        text = tokenizer_json(tokenizer)
        check_embeddable(text, tokenizer)
    recipe = None if quant is None else _resources.recipe_path(quant)
    spec = spec_json(wrapper, prefill_len, tokenizer, embed, None if quant is None else os.fspath(quant))
    metadata.append((SPEC_METADATA, json.dumps(spec, indent=1, sort_keys=True).encode()))
    if text is not None:
        metadata.append((TOKENIZER_METADATA, text.encode()))

    extra: dict = {
        "signatures": [("prefill", [f"input_ids.1={prefill_len}"]), ("decode", ["input_ids.1=1"])],
        "signature_output_names": spec["outputs"],
        "metadata": metadata,
        "progress": bool(progress),
    }
    if recipe is not None:
        extra["quant"] = recipe
        if calibration is not None:
            bos = spec["bos_token_id"] if spec["add_bos"] else None
            windows = calibration_windows(calibration, tokenizer, prefill_len, calibration_batches, bos)
            extra["calibration"] = {"batches": _calibration_batches(wrapper, windows)}
    t_export = time.perf_counter()
    pipelines, fields = _pipelines_and_config(pipeline, config)
    with tempfile.TemporaryDirectory(prefix="tico-llm-") as work:
        # The program goes to a private file the converter maps (weights are paged in and out as
        # calibration reads them), not to memory; the model we loaded ourselves is released
        # before the conversion starts, so the two never hold the weights at the same time.
        archive = os.path.join(work, "program.pt2")
        program = export_program(wrapper, prefill_len)
        torch.export.save(program, archive)
        del program
        if not isinstance(model_or_path, torch.nn.Module):
            del model, wrapper
            loaded_tokenizer = tokenizer = None
            gc.collect()
        t_convert = time.perf_counter()
        if out is not None:
            extra["output"] = os.fspath(out)
        metrics: list = []
        if recipe is not None:
            extra["metrics"] = metrics
        circle = _resources.converter().convert_file(archive, pipelines, fields, None, extra)
    result = CircleModel.load(out) if out is not None else CircleModel(circle, "<llm>")
    if report is not None:
        report.update({"load_seconds": t_export - started, "export_seconds": t_convert - t_export,
                       "convert_seconds": time.perf_counter() - t_convert,
                       "bytes": os.path.getsize(out) if out is not None else len(circle),
                       # what the quantizers reported per layer (GPTQ: gptq_layer_error, rtn_layer_error,
                       # error_ratio), as (node, metric, value)
                       "quantizer_metrics": metrics})
    return result
