"""tico_native: tico's C++ converter from Python.

The API mirrors the original converter (Samsung TICO, ``import tico``) so that code moves over
by changing the import; both can be installed side by side (docs/python.md lists the
differences)::

    import tico_native
    circle = tico_native.convert(model.eval(), (x,))
    circle.save("model.circle")
    y = circle(x)            # runs on tico's built-in Circle interpreter
    print(circle.inspect())
"""

from __future__ import annotations

import torch  # noqa: F401  (the API takes and returns torch objects)

from . import errors
from .convert import convert, convert_from_exported_program, convert_from_pt2
from .errors import (
    CircleFormatError,
    ConfigError,
    ConversionError,
    InterpreterError,
    ManifestError,
    OutputError,
    PluginError,
    TicoError,
    UnsupportedOp,
    UnsupportedOpsError,
)
from .model import CircleModel, TensorSpec
from ._resources import DEFAULT_PIPELINE

__version__ = "0.1.0"

__all__ = [
    "convert",
    "convert_from_exported_program",
    "convert_from_pt2",
    "CircleModel",
    "TensorSpec",
    "DEFAULT_PIPELINE",
    "errors",
    "TicoError",
    "PluginError",
    "ManifestError",
    "ConfigError",
    "ConversionError",
    "UnsupportedOp",
    "UnsupportedOpsError",
    "CircleFormatError",
    "OutputError",
    "InterpreterError",
]
