"""CircleModel: a converted model's bytes, saved, loaded, inspected and run.

Like the original converter's ``tico.utils.model.CircleModel`` (``circle_binary``, ``save``,
``load``, calling it runs the model), except that it runs on tico's built-in interpreter
(libtico-interpreter) and returns torch tensors (numpy arrays when given numpy arrays).
"""

from __future__ import annotations

import os
import tempfile
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


class CircleModel:
    """A Circle model: its bytes (``circle_binary``) and what can be done with them."""

    def __init__(self, circle_binary: bytes, name: str = "<circle model>"):
        if not isinstance(circle_binary, bytes):
            circle_binary = bytes(circle_binary)
        self.circle_binary: bytes = circle_binary
        self._name = name
        self._native = _tico_native.NativeCircleModel(circle_binary, name)

    # -- files -------------------------------------------------------------------------------

    @staticmethod
    def load(circle_path: str | os.PathLike) -> "CircleModel":
        """Reads a Circle file (checked like ``tico-circle`` does: CircleFormatError if invalid)."""
        path = os.fspath(circle_path)
        with open(path, "rb") as f:
            return CircleModel(f.read(), path)

    def save(self, circle_path: str | os.PathLike) -> None:
        """Writes the bytes to ``circle_path`` atomically, as tico's tools write every file: a
        failed write leaves no partial file and an existing file untouched."""
        path = Path(circle_path)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".tmp.", dir=path.parent or ".")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self.circle_binary)
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    # -- interface ---------------------------------------------------------------------------

    @property
    def inputs(self) -> list[TensorSpec]:
        return [TensorSpec(n, d, tuple(s)) for n, d, s in self._native.inputs()]

    @property
    def outputs(self) -> list[TensorSpec]:
        return [TensorSpec(n, d, tuple(s)) for n, d, s in self._native.outputs()]

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

    def __repr__(self) -> str:
        return f"CircleModel({self._name!r}, {len(self.circle_binary)} bytes)"
