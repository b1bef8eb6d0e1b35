"""Where the package keeps tico's plugins, pipelines and tools.

The wheel (and the build tree's assembled package) has the layout of a tico installation inside
the package directory: ``lib/tico/plugins``, ``share/tico/pipelines``, ``bin``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

# Not resolved: in the build tree the sources are links into python/, the resources are not.
PACKAGE_DIR = Path(os.path.abspath(__file__)).parent
PLUGIN_DIR = PACKAGE_DIR / "lib" / "tico" / "plugins"
PIPELINE_DIR = PACKAGE_DIR / "share" / "tico" / "pipelines"
BIN_DIR = PACKAGE_DIR / "bin"
DEFAULT_PIPELINE = PIPELINE_DIR / "default.yaml"
CIRCLE_O1_PIPELINE = PIPELINE_DIR / "circle-o1.yaml"


def plugin_dirs() -> list[str]:
    """The packaged plugins, then every directory of TICO_PLUGIN_PATH (as tico-run does)."""
    dirs = [str(PLUGIN_DIR)]
    for entry in os.environ.get("TICO_PLUGIN_PATH", "").split(":"):
        if entry:
            dirs.append(entry)
    return dirs


@lru_cache(maxsize=1)
def converter():
    """The process-wide converter: plugins are loaded once, on first use."""
    from . import _tico_native

    return _tico_native.Converter(plugin_dirs())


def pipeline_path(pipeline: str | os.PathLike | None) -> str:
    """The manifest to use: the given path, or the packaged default pipeline."""
    if pipeline is None:
        return str(DEFAULT_PIPELINE)
    return os.fspath(pipeline)
