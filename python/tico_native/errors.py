"""Exceptions raised by tico_native.

Every message is exactly the text tico's command-line tools print after ``error:`` for the
same problem, so a failure reads the same from Python and from ``tico-run``.

    TicoError                      base of everything below
    ├── PluginError                the packaged plugins could not be found or loaded
    ├── ManifestError (ValueError) the pipeline manifest is invalid (file:line:col: error: ...)
    ├── ConfigError (ValueError)   an unknown ``config`` key, or a value that is not a bool
    ├── ConversionError            the program could not be converted (frontend or a pass refused it)
    │   └── UnsupportedOpsError    operators without a Circle lowering; ``ops`` lists them
    ├── CircleFormatError          bytes that are not a valid Circle model
    ├── InterpreterError           running a Circle model failed (wrong inputs, unsupported kernel)
    └── OutputError (OSError)      a file could not be written (``CircleModel.save``); the target is untouched
"""

from __future__ import annotations

from dataclasses import dataclass, field


class TicoError(Exception):
    """Base class of every error tico_native raises for a model, a manifest or the package."""


class PluginError(TicoError):
    """The plugins shipped in the package could not be found or loaded."""


class ManifestError(TicoError, ValueError):
    """The pipeline manifest could not be read or is invalid."""


class ConfigError(TicoError, ValueError):
    """A ``config`` key is unknown or its value is not a bool."""


class ConversionError(TicoError):
    """The program could not be converted to Circle."""


@dataclass(frozen=True)
class UnsupportedOp:
    """One operator without a usable Circle lowering."""

    op: str  # "aten::cholesky.default"
    count: int  # how many nodes apply it
    nodes: list[str] = field(default_factory=list)  # the first few node names
    reason: str = ""  # "no lowering registered" or the lowering's own reason


class UnsupportedOpsError(ConversionError):
    """Operators without a Circle lowering; the message lists every one with its count."""

    def __init__(self, message: str, ops: list[UnsupportedOp] | None = None):
        super().__init__(message)
        self.ops: list[UnsupportedOp] = list(ops or [])


class CircleFormatError(TicoError):
    """The bytes are not a valid Circle model."""


class InterpreterError(TicoError):
    """Running a Circle model on the built-in interpreter failed."""


class OutputError(TicoError, OSError):
    """A file could not be written (a directory, a socket, a dangling symbolic link, no
    permission); nothing replaced the target."""


class LlmError(TicoError, ValueError):
    """An LLM, cache layout, prompt or tokenizer the LLM export or generation cannot handle
    (tico_native.llm); the message names it."""


__all__ = [
    "TicoError",
    "PluginError",
    "ManifestError",
    "ConfigError",
    "ConversionError",
    "UnsupportedOp",
    "UnsupportedOpsError",
    "CircleFormatError",
    "InterpreterError",
    "LlmError",
]
