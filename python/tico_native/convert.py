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
    serialization, on in its CompileConfigV1) is not a compile-config field in tico: when true,
    the packaged Circle O1 stages (circle-o1.yaml) follow the pipeline's."""
    fields = _config_dict(config)
    pipelines = [_resources.pipeline_path(pipeline)]
    if _CIRCLE_OPTIMIZE in fields:
        optimize = fields.pop(_CIRCLE_OPTIMIZE)
        if not isinstance(optimize, bool):
            raise ConfigError(f"config key '{_CIRCLE_OPTIMIZE}' must be True or False, got {optimize!r}")
        if optimize:
            pipelines.append(str(_resources.CIRCLE_O1_PIPELINE))
    return pipelines, fields


def convert_from_exported_program(
    exported_program: torch.export.ExportedProgram,
    pipeline: str | os.PathLike | None = None,
    config: Any = None,
) -> CircleModel:
    """Converts an ExportedProgram to Circle with the pipeline manifest ``pipeline`` (default:
    the packaged default.yaml) and its compile ``config`` fields overridden by ``config``."""
    buffer = io.BytesIO()
    torch.export.save(exported_program, buffer)
    view = buffer.getbuffer()  # the archive in place; the frontend reads these very bytes
    pipelines, fields = _pipelines_and_config(pipeline, config)
    try:
        circle = _resources.converter().convert_bytes(view, "ExportedProgram", pipelines, fields)
    finally:
        view.release()
    return CircleModel(circle, "ExportedProgram")


def convert_from_pt2(
    pt2_path: str | os.PathLike,
    pipeline: str | os.PathLike | None = None,
    config: Any = None,
) -> CircleModel:
    """Converts a .pt2 file (read as tico-run reads it: mapped, weights not copied)."""
    path = os.fspath(pt2_path)
    pipelines, fields = _pipelines_and_config(pipeline, config)
    circle = _resources.converter().convert_file(path, pipelines, fields)
    return CircleModel(circle, path)


def convert(
    module: torch.nn.Module,
    args: tuple,
    kwargs: dict | None = None,
    dynamic_shapes: Any = None,
    pipeline: str | os.PathLike | None = None,
    config: Any = None,
    strict: bool = True,
) -> CircleModel:
    """Exports ``module`` with ``torch.export.export(module, args, kwargs, dynamic_shapes=...,
    strict=strict)`` under ``torch.no_grad()`` (as the original does) and converts the program."""
    if getattr(module, "training", False):
        _log.warning("the module is in training mode; did you forget module.eval()?")
    with torch.no_grad():
        exported = torch.export.export(module, tuple(args), kwargs, dynamic_shapes=dynamic_shapes, strict=strict)
    return convert_from_exported_program(exported, pipeline=pipeline, config=config)
