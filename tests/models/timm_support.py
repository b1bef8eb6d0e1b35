"""Importing ``timm`` next to the CPU build of torch 2.13.0.

timm needs torchvision, and the torchvision release made for torch 2.13.0 (0.28.0) is on PyPI
only as a CUDA build: its C++ operator library (``torchvision/_C.so``) links ``libc10_cuda.so``,
which the CPU torch does not have, so the library does not load and its operators are never
registered. torchvision survives that (``torchvision.extension._has_ops()`` is False), except for
one thing: ``torchvision/_meta_registrations.py`` registers fake kernels for ``torchvision::nms``
and ``torchvision::qnms`` unconditionally, and registering a kernel for an operator that does not
exist raises "operator torchvision::nms does not exist" -- ``import torchvision`` (and so
``import timm``) fails.

:func:`import_timm` declares the two schemas first (the strings are those of torchvision's
``csrc/ops/nms.cpp`` and ``csrc/ops/quantized/cpu/qnms_kernel.cpp``), then imports torchvision
and timm. timm's classification models never call them (non-maximum suppression belongs to
detection heads); the CPU kernels registered here only raise an error that names this module,
should anything ever call them.

The packages live outside the venv's site-packages, in ``<venv>/timm-packages``
(packaging/install-deps.sh installs them there with ``pip install --target``; the environment
variable ``TICO_TIMM_PACKAGES`` names another directory): a torchvision that fails to import would
otherwise break every process that imports ``transformers``' vision models, which import
torchvision whenever it is installed. Only a process that calls :func:`import_timm` sees them.

If torchvision's own library loads (a later CPU-compatible release), nothing is declared: the
operators are torchvision's. The shim is idempotent; calling :func:`import_timm` again returns the
imported module.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

TORCHVISION_VERSION = "0.28.0"
TIMM_VERSION = "1.0.31"

# torchvision's schemas of the operators _meta_registrations.py registers fake kernels for
# without checking that its library loaded.
SCHEMAS = {
    "nms": "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms": "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
}

# The torch.library.Library holding the declarations: the schemas live as long as it does.
_library = None


def packages_dir() -> Path:
    value = os.environ.get("TICO_TIMM_PACKAGES")
    return Path(value) if value else Path(sys.prefix) / "timm-packages"


def _operator_exists(name: str) -> bool:
    import torch

    try:
        torch._C._dispatch_find_schema_or_throw(f"torchvision::{name}", "")
    except RuntimeError:
        return False
    return True


def _torchvision_library_loads() -> bool:
    """Loads torchvision/_C.so as torchvision itself would; False when it cannot be loaded."""
    import torch

    spec = importlib.util.find_spec("torchvision")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            f"torchvision is not installed in {packages_dir()}: packaging/install-deps.sh installs "
            f"torchvision=={TORCHVISION_VERSION} timm=={TIMM_VERSION} there"
        )
    candidates = sorted(Path(list(spec.submodule_search_locations)[0]).glob("_C*.so"))
    if not candidates:
        return False
    try:
        torch.ops.load_library(str(candidates[0]))
    except OSError:
        return False  # the CUDA build: libc10_cuda.so: cannot open shared object file
    return True


def _not_callable(name: str):
    def kernel(*_args, **_kwargs):
        raise RuntimeError(
            f"torchvision::{name} is a schema without kernels, declared by tests/models/timm_support.py so that "
            f"torchvision {TORCHVISION_VERSION} (a CUDA build) imports next to the CPU torch; its real kernels did not load"
        )

    return kernel


def _declare_missing_operators() -> None:
    global _library
    import torch

    missing = [name for name in SCHEMAS if not _operator_exists(name)]
    if not missing:
        return
    if _library is None:
        _library = torch.library.Library("torchvision", "FRAGMENT")
    for name in missing:
        _library.define(SCHEMAS[name])
        _library.impl(name, _not_callable(name), "CPU")


def import_timm():
    """Returns the ``timm`` module, importing torchvision first with the operator shim if needed."""
    if "timm" in sys.modules:
        return sys.modules["timm"]
    directory = packages_dir()
    if str(directory) not in sys.path:
        if not directory.is_dir():
            raise ImportError(
                f"{directory} does not exist: packaging/install-deps.sh installs torchvision=={TORCHVISION_VERSION} "
                f"timm=={TIMM_VERSION} there (pip install --target), or set TICO_TIMM_PACKAGES"
            )
        sys.path.insert(0, str(directory))
        importlib.invalidate_caches()
    if "torchvision" not in sys.modules and not _torchvision_library_loads():
        _declare_missing_operators()
    import timm
    import torchvision

    if torchvision.__version__.split("+")[0] != TORCHVISION_VERSION or timm.__version__ != TIMM_VERSION:
        raise ImportError(
            f"torchvision {torchvision.__version__} / timm {timm.__version__} found, the suite is validated with "
            f"{TORCHVISION_VERSION} / {TIMM_VERSION} (packaging/install-deps.sh)"
        )
    return timm
