"""CircleModel: a converted model's bytes, saved, loaded, inspected and run.

Like the original converter's ``tico.utils.model.CircleModel`` (``circle_binary``, ``save``,
``load``, calling it runs the model), except that it runs on tico's built-in interpreter
(libtico-interpreter) and returns torch tensors (numpy arrays when given numpy arrays).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch

from . import _tico_native


class TensorSpec(NamedTuple):
    """One input or output of the model's main subgraph (-1 marks a dynamic dimension)."""

    name: str
    dtype: str  # torch's name without the prefix: "float32", "int64", "bool", ...
    shape: tuple[int, ...]


def _flatten(values, out: list) -> None:
    # The original's rule: nested lists/tuples are flattened in order, None is skipped.
    for value in values:
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            _flatten(value, out)
        else:
            out.append(value)


def _as_array(value: Any):
    """A C-contiguous CPU array or tensor the extension can view without a copy."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().contiguous()
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value)
    if isinstance(value, (bool, int, float)):
        return torch.tensor(value)  # the original's rule for Python scalars
    raise TypeError(f"model inputs must be torch tensors, numpy arrays or Python scalars, got {type(value).__name__}")


class Signature(NamedTuple):
    """One SignatureDef: its key, the subgraph it runs and its input/output names."""

    key: str
    subgraph: int
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


class CircleModel:
    """A Circle model: its bytes (``circle_binary``) and what can be done with them."""

    def __init__(self, circle_binary: bytes, name: str = "<circle model>"):
        if not isinstance(circle_binary, bytes):
            circle_binary = bytes(circle_binary)
        self._binary: bytes | None = circle_binary
        self._path: str | None = None
        self._name = name
        self._native = _tico_native.NativeCircleModel(circle_binary, name)

    # -- files -------------------------------------------------------------------------------

    @staticmethod
    def load(circle_path: str | os.PathLike) -> "CircleModel":
        """Reads a Circle file (checked like ``tico-circle`` does: CircleFormatError if invalid).
        The file is mapped, not read: an LLM's weights stay on disk until a run touches them;
        ``circle_binary`` reads the bytes when first asked for."""
        path = os.fspath(circle_path)
        model = CircleModel.__new__(CircleModel)
        model._binary = None
        model._path = path
        model._name = path
        model._native = _tico_native.NativeCircleModel.from_file(path)
        return model

    @property
    def circle_binary(self) -> bytes:
        """The Circle file's bytes."""
        if self._binary is None:
            with open(self._path, "rb") as f:
                self._binary = f.read()
        return self._binary

    @circle_binary.setter
    def circle_binary(self, value: bytes) -> None:
        self._binary = bytes(value)
        self._native = _tico_native.NativeCircleModel(self._binary, self._name)

    def save(self, circle_path: str | os.PathLike) -> None:
        """Writes the bytes to ``circle_path`` as tico's tools write every file: a regular file
        is replaced atomically (keeping its mode), a symbolic link is written through (the link
        stays), a FIFO or character device is written in place; a failed write raises
        OutputError and leaves no partial file and an existing file untouched."""
        _tico_native.write_file(os.fspath(circle_path), self.circle_binary)

    # -- interface ---------------------------------------------------------------------------

    @property
    def inputs(self) -> list[TensorSpec]:
        return [TensorSpec(n, d, tuple(s)) for n, d, s in self._native.inputs()]

    @property
    def outputs(self) -> list[TensorSpec]:
        return [TensorSpec(n, d, tuple(s)) for n, d, s in self._native.outputs()]

    @property
    def signatures(self) -> list[Signature]:
        """The model's SignatureDefs (an exported LLM has ``prefill`` and ``decode``)."""
        return [Signature(k, i, tuple(ins), tuple(outs)) for k, i, ins, outs in self._native.signatures()]

    def _signature(self, key: str) -> Signature:
        for signature in self.signatures:
            if signature.key == key:
                return signature
        known = [s.key for s in self.signatures]
        raise KeyError(f"the model has no signature {key!r} (signatures: {known})")

    def signature_inputs(self, key: str) -> list[TensorSpec]:
        """The declared inputs of signature ``key``, in order."""
        return [TensorSpec(n, d, tuple(s)) for n, d, s in self._native.inputs(self._signature(key).subgraph)]

    def signature_outputs(self, key: str) -> list[TensorSpec]:
        return [TensorSpec(n, d, tuple(s)) for n, d, s in self._native.outputs(self._signature(key).subgraph)]

    def run_signature(self, key: str, *args: Any):
        """Runs signature ``key`` on its inputs in order; returns its outputs as a list."""
        values: list = []
        _flatten(args, values)
        arrays = [_as_array(v) for v in values]
        as_torch = not arrays or not all(isinstance(a, np.ndarray) for a in arrays)
        return self._native.run(arrays, as_torch, self._signature(key).subgraph)

    def inspect(
        self,
        tensors: bool = False,
        operators: bool = False,
        buffers: bool = False,
        verify: bool = False,
        as_json: bool = False,
    ) -> str:
        """The summary ``tico-circle inspect`` prints (same flags), as a string."""
        return self._native.inspect(tensors, operators, buffers, verify, as_json)

    @property
    def incremental_manifest(self) -> dict | None:
        """The incremental-strategies manifest (``incremental.manifest.v1``, docs/incremental.md)
        of a model converted with ``incremental=...``, parsed; None for other models."""
        text = self._native.incremental_manifest()
        if text is None:
            return None
        import json

        return json.loads(text)

    # -- running -----------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any):
        """Runs the model on tico's built-in interpreter.

        Positional arguments fill the inputs in order (nested lists/tuples flattened, None
        skipped); keyword arguments fill the remaining inputs by name. Returns one output alone,
        several as a list: torch tensors, or numpy arrays when every array given was numpy.
        """
        values: list = []
        _flatten(args, values)
        if kwargs:
            names = [spec.name.split("::")[-1] for spec in self.inputs]
            for name in names[len(values) :]:
                if name not in kwargs:
                    raise TypeError(f"missing model input '{name}' (inputs: {names})")
                values.append(kwargs.pop(name))
            if kwargs:
                raise TypeError(f"unexpected model inputs {sorted(kwargs)} (inputs: {names})")
        arrays = [_as_array(v) for v in values]
        as_torch = not arrays or not all(isinstance(a, np.ndarray) for a in arrays)
        outputs = self._native.run(arrays, as_torch)
        return outputs[0] if len(outputs) == 1 else outputs

    # -- LLMs (tico_native.llm.export, docs/llm.md) ----------------------------------------------

    @property
    def llm_spec(self) -> dict | None:
        """The exported LLM's description (metadata ``tico.llm.v1``), or None."""
        text = self._native.llm_spec()
        if text is None:
            return None
        import json

        return json.loads(text)

    @property
    def tokenizer(self):
        """The embedded tokenizer (tico's C++ tokenizer over the tokenizer.json), or None."""
        if not hasattr(self, "_tokenizer"):
            text = self._native.tokenizer_json()
            self._tokenizer = None if text is None else _tico_native.NativeTokenizer(text)
        return self._tokenizer

    def _prompt_ids(self, prompt) -> list[int]:
        if isinstance(prompt, str):
            if self.tokenizer is None:
                from .errors import LlmError

                raise LlmError("a text prompt needs the embedded tokenizer, and the model has none; give token ids")
            ids = list(self.tokenizer.encode(prompt, True))
            spec = self.llm_spec or {}
            bos = spec.get("bos_token_id")
            if spec.get("add_bos") and bos is not None and (not ids or ids[0] != bos):
                ids.insert(0, bos)
            return ids
        if isinstance(prompt, (torch.Tensor, np.ndarray)):
            return [int(t) for t in np.asarray(prompt).reshape(-1)]
        return [int(t) for t in prompt]

    def generate(self, prompt, max_new_tokens: int = 64, *, temperature: float = 0.0, top_k: int = 0,
                 top_p: float = 1.0, seed: int = 0, stop_at_eos: bool = True, stop_ids=(), stream=None,
                 return_stats: bool = False):
        """Generates with an exported LLM on the built-in interpreter: prefill over the prompt
        (text when the tokenizer is embedded, or token ids), then decode steps. Greedy when
        ``temperature`` is 0, else seeded sampling (top-k / top-p). ``stream(token_id)`` sees each
        new token as it comes (return False to stop). Returns the new token ids (and a stats
        dict with the prefill and decode times when ``return_stats``)."""
        ids = self._prompt_ids(prompt)
        tokens, stats = self._native.generate(ids, int(max_new_tokens), float(temperature), int(top_k), float(top_p),
                                              int(seed), bool(stop_at_eos), [int(t) for t in stop_ids], stream)
        stats["prefill_tokens_per_second"] = stats["prompt_tokens"] / stats["prefill_seconds"] if stats["prefill_seconds"] else 0.0
        stats["decode_tokens_per_second"] = stats["decode_steps"] / stats["decode_seconds"] if stats["decode_seconds"] else 0.0
        return (tokens, stats) if return_stats else tokens

    def perplexity(self, tokens, window: int = 0, max_windows: int = 0, bos: bool = True) -> dict:
        """Perplexity over ``tokens`` (ids, or text with the embedded tokenizer): non-overlapping
        windows of ``window`` tokens (default: the prefill length), each from an empty cache."""
        if isinstance(tokens, str):
            if self.tokenizer is None:
                from .errors import LlmError

                raise LlmError("a text needs the embedded tokenizer, and the model has none; give token ids")
            tokens = self.tokenizer.encode(tokens, False)
        return self._native.perplexity([int(t) for t in tokens], int(window), int(max_windows), bool(bos))

    def log_likelihood(self, context, continuation) -> float:
        """log P(continuation | context) in nats (ids, or text with the embedded tokenizer)."""
        def ids(x):
            if isinstance(x, str):
                return list(self.tokenizer.encode(x, False))
            return [int(t) for t in x]

        return self._native.log_likelihood(ids(context), ids(continuation))

    def __repr__(self) -> str:
        return f"CircleModel({self._name!r}, {self._native.file_bytes()} bytes)"
