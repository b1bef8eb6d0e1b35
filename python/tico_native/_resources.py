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
RECIPE_DIR = PACKAGE_DIR / "share" / "tico" / "quant"
DEFAULT_PIPELINE = PIPELINE_DIR / "default.yaml"
CIRCLE_O1_PIPELINE = PIPELINE_DIR / "circle-o1.yaml"
MINIMAL_PIPELINE = PIPELINE_DIR / "minimal.yaml"  # default.yaml without its O1 `optimize` stage


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


def recipe_path(recipe: str | os.PathLike) -> str:
    """A quantization recipe: a packaged one by name ("llm-w4a16"), or a path to a YAML file."""
    text = os.fspath(recipe)
    if os.path.sep not in text and not text.endswith((".yaml", ".yml")):
        packaged = RECIPE_DIR / (text + ".yaml")
        if packaged.exists():
            return str(packaged)
        known = sorted(p.stem for p in RECIPE_DIR.glob("*.yaml"))
        from .errors import ConfigError

        raise ConfigError(f"no packaged quantization recipe {text!r} (recipes: {', '.join(known)}; or give a YAML path)")
    return text
