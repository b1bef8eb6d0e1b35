"""Conversion entry points, shaped after the original converter's ``tico.convert`` family.

The exported program reaches tico in memory: ``torch.export.save`` writes the .pt2 archive
into a BytesIO whose buffer the C++ frontend reads in place (weights stay views of it), and the
Circle file comes back as a bytes object filled by the writer. No temporary file is created.
"""

from __future__ import annotations

import io
import logging
import os
from typing import Any, Mapping

import torch

from . import _resources
from .errors import ConfigError
from .model import CircleModel

_log = logging.getLogger(__name__)

# The original 0.3.0's switch for its Circle O1 optimization (see _pipelines_and_config).
_CIRCLE_OPTIMIZE = "circle_optimize"

# convert(..., incremental={...}): option -> (accepted types, what it is), as tico-run's
# --incremental-* flags (docs/incremental.md).
_INCREMENTAL_OPTIONS = {
    "groups": ((list, tuple), "inputs that change together, e.g. ['input_ids+attention_mask']"),
    "max_strategies": ((int,), "strategies besides the monolith (default 8)"),
    "budget": ((int, str), "bytes all retained tensors may take: a count or '64KiB' (default unlimited)"),
    "fused": ((bool,), "also package each strategy as one subgraph (default False)"),
}
_INT64_MAX = 2**63 - 1
_BYTE_UNITS = {"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "KB": 1000, "MB": 1000**2, "GB": 1000**3}


def _incremental_options(incremental: Any) -> dict | None:
    """None, or the checked options of ``incremental`` (True for the defaults, or a dict)."""
    if incremental is None or incremental is False:
        return None
    if incremental is True:
        return {}
    if not isinstance(incremental, Mapping):
        raise ConfigError(f"incremental must be True, False, None or a dict of options, got {type(incremental).__name__}")
    options = {}
    for key, value in incremental.items():
        if key not in _INCREMENTAL_OPTIONS:
            import difflib

            close = difflib.get_close_matches(str(key), list(_INCREMENTAL_OPTIONS), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"unknown incremental option '{key}'{hint}; valid options: {', '.join(_INCREMENTAL_OPTIONS)}")
        types, what = _INCREMENTAL_OPTIONS[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise ConfigError(f"incremental option '{key}' ({what}) got {value!r}")
        if key == "groups":
            if not all(isinstance(g, str) and g for g in value):
                raise ConfigError(f"incremental option 'groups' takes input names joined by '+', got {value!r}")
            value = list(value)
        elif key == "budget" and isinstance(value, str):
            number = value.rstrip("KMGiB")
            unit = value[len(number):]
            if not number.isdigit() or unit not in _BYTE_UNITS:
                raise ConfigError(f"incremental option 'budget' must be a byte count or like '64KiB', got {value!r}")
            value = int(number) * _BYTE_UNITS[unit]
        if key in ("max_strategies", "budget") and not 0 <= value <= _INT64_MAX:
            # Python ints are unbounded; the extension takes a signed 64-bit count.
            raise ConfigError(f"incremental option '{key}' must be in 0 .. 2**63-1, got {value!r}")
        options[key] = value
    return options


def _config_dict(config: Any) -> dict:
    """A dict of CompileConfigV1 fields from a dict, or from an object with ``to_dict()`` (the
    original's CompileConfigV1). Keys and values are checked by the extension."""
    if config is None:
        return {}
    if isinstance(config, Mapping):
        return dict(config)
    to_dict = getattr(config, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    raise ConfigError(f"config must be a dict of compile options, got {type(config).__name__}")


def _pipelines_and_config(pipeline: str | os.PathLike | None, config: Any) -> tuple[list[str], dict]:
    """The manifests to run and the compile config for the extension.

    ``circle_optimize`` (the original 0.3.0's switch for its Circle O1 optimization after
    serialization, on in its CompileConfigV1) is not a compile-config field in tico. The
    packaged default pipeline already runs the O1 optimizations (its ``optimize`` stage):
    False selects the packaged minimal.yaml (the same pipeline without them) when no pipeline
    is given; True with a pipeline of the caller's appends the packaged Circle O1 stages
    (circle-o1.yaml)."""
    fields = _config_dict(config)
    pipelines = [_resources.pipeline_path(pipeline)]
    if _CIRCLE_OPTIMIZE in fields:
        optimize = fields.pop(_CIRCLE_OPTIMIZE)
        if not isinstance(optimize, bool):
            raise ConfigError(f"config key '{_CIRCLE_OPTIMIZE}' must be True or False, got {optimize!r}")
        if pipeline is None and not optimize:
            pipelines = [str(_resources.MINIMAL_PIPELINE)]
        elif pipeline is not None and optimize:
            pipelines.append(str(_resources.CIRCLE_O1_PIPELINE))
    return pipelines, fields


def convert_from_exported_program(
    exported_program: torch.export.ExportedProgram,
    pipeline: str | os.PathLike | None = None,
    config: Any = None,
    *,
    incremental: Any = None,
) -> CircleModel:
    """Converts an ExportedProgram to Circle with the pipeline manifest ``pipeline`` (default:
    the packaged default.yaml) and its compile ``config`` fields overridden by ``config``.

    ``incremental=True`` (or a dict with ``groups``, ``max_strategies``, ``budget``, ``fused``)
    adds incremental strategies as ``tico-run --incremental`` does: a region subgraph and a
    signature per input group, validated against the monolith, the manifest in the file's
    metadata (``CircleModel.incremental_manifest``)."""
    buffer = io.BytesIO()
    torch.export.save(exported_program, buffer)
    view = buffer.getbuffer()  # the archive in place; the frontend reads these very bytes
    pipelines, fields = _pipelines_and_config(pipeline, config)
    strategies = _incremental_options(incremental)
    try:
        circle = _resources.converter().convert_bytes(view, "ExportedProgram", pipelines, fields, strategies)
    finally:
        view.release()
    return CircleModel(circle, "ExportedProgram")


def convert_from_pt2(
    pt2_path: str | os.PathLike,
    pipeline: str | os.PathLike | None = None,
    config: Any = None,
    *,
    incremental: Any = None,
) -> CircleModel:
    """Converts a .pt2 file (read as tico-run reads it: mapped, weights not copied);
    ``incremental`` as for convert_from_exported_program (the archive's example inputs then also
    validate every strategy)."""
    path = os.fspath(pt2_path)
    pipelines, fields = _pipelines_and_config(pipeline, config)
    circle = _resources.converter().convert_file(path, pipelines, fields, _incremental_options(incremental))
    return CircleModel(circle, path)


def convert(
    module: torch.nn.Module,
    args: tuple,
    kwargs: dict | None = None,
    dynamic_shapes: Any = None,
    pipeline: str | os.PathLike | None = None,
    config: Any = None,
    strict: bool = True,
    *,
    incremental: Any = None,
) -> CircleModel:
    """Exports ``module`` with ``torch.export.export(module, args, kwargs, dynamic_shapes=...,
    strict=strict)`` under ``torch.no_grad()`` (as the original does) and converts the program."""
    if getattr(module, "training", False):
        _log.warning("the module is in training mode; did you forget module.eval()?")
    with torch.no_grad():
        exported = torch.export.export(module, tuple(args), kwargs, dynamic_shapes=dynamic_shapes, strict=strict)
    return convert_from_exported_program(exported, pipeline=pipeline, config=config, incremental=incremental)
