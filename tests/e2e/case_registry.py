"""The registry of e2e cases and the helpers every case file uses.

A case is a small ``torch.nn.Module`` registered under its class name (see the
contract in ``modules.py``).  Case files (``modules.py``, ``modules_ops_*.py``)
register with the ``@e2e_case`` decorator, or with ``define_case`` for families
of cases that differ only in an operand, a shape or a dtype; ``modules.py``
imports every case file, so ``modules.MODULES`` holds all of them.

Inputs come from per-case ``torch.Generator`` objects, so a case's inputs do not
depend on the order in which cases run.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable

import pytest
import torch
from torch import nn

from harness import ExpectedRefusal

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-5

# Registry of every case, in registration order (the test ids follow it).
MODULES: dict[str, type[nn.Module]] = {}

# The op-family files (modules_ops_*.py) define more variants than CI can afford
# (each case-variant costs an export, a conversion, an onert run and two
# evaluator processes).  By default two in every five of a family file's cases
# run, spread over the file so every op family keeps its variants; setting
# TICO_E2E_EXTENDED=1 registers all of them (their known gaps are in the second
# table of modules_expected_failures.py).
EXTENDED = os.environ.get("TICO_E2E_EXTENDED") == "1"
CORE_PATTERN = (True, False, True, False, False)
_family_counts: dict[str, int] = {}
# Every case a file defined, registered or not (so expected-failure tables can
# tell a misspelt name from a case of the extended set).
DEFINED: set[str] = set()


def _in_core_set(cls: type) -> bool:
    family = cls.__module__
    if not family.startswith("modules_ops_"):
        return True  # hand-picked cases (modules.py) and the models always run
    position = _family_counts.get(family, 0)
    _family_counts[family] = position + 1
    return CORE_PATTERN[position % len(CORE_PATTERN)]


def e2e_case(cls: type[nn.Module]) -> type[nn.Module]:
    """Class decorator adding a module to the registry under its class name."""
    if cls.__name__ in DEFINED:
        raise ValueError(f"duplicate e2e case name {cls.__name__}")
    DEFINED.add(cls.__name__)
    if EXTENDED or _in_core_set(cls):
        MODULES[cls.__name__] = cls
    return cls


def build_module(name: str) -> nn.Module:
    """Instantiates a registered case with deterministic weights, in eval mode."""
    torch.manual_seed(0)
    module = MODULES[name]()
    return module.eval()


def define_case(
    name: str,
    forward: Callable,
    inputs: Callable[[], tuple],
    *,
    doc: str = "",
    setup: Callable[[nn.Module], None] | None = None,
    kwargs: Callable[[], dict] | None = None,
    second_inputs: Callable[[], tuple] | None = None,
    dynamic_shapes: Callable[[], object] | None = None,
    **attributes,
) -> type[nn.Module]:
    """Registers a case built from functions instead of a class body.

    ``forward(self, *args)`` is the module's forward; ``inputs()`` returns the
    positional example inputs (``kwargs()`` the keyword ones); ``setup(self)``
    creates parameters and buffers.  ``second_inputs`` and ``dynamic_shapes``
    give a dynamic case its unseen-size inputs and ``dynamic_shapes`` value.
    Other keyword arguments become class attributes (``rtol``, ``decompose``,
    ``expected_failures``).
    """

    def __init__(self):
        nn.Module.__init__(self)
        if setup is not None:
            setup(self)

    namespace = {
        "__init__": __init__,
        "forward": forward,
        "__doc__": doc or None,
        "get_example_inputs": lambda self: (tuple(inputs()), kwargs() if kwargs else {}),
        **attributes,
    }
    if dynamic_shapes is not None:
        if second_inputs is None:
            raise ValueError(f"dynamic case {name} needs second_inputs")
        namespace["get_dynamic_shapes"] = lambda self: dynamic_shapes()
        namespace["get_second_inputs"] = lambda self: (tuple(second_inputs()), kwargs() if kwargs else {})
    cls = type(name, (nn.Module,), namespace)
    # Attribute the class to the file that defined the case (for messages and pickling).
    cls.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    return e2e_case(cls)


# ---------------------------------------------------------------------------
# Inputs from private generators.
# ---------------------------------------------------------------------------


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, seed: int = 0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Standard-normal tensor from a private generator (drawn in float32, then cast)."""
    # The size as one tuple, so an empty shape gives a 0-d tensor.
    return torch.randn(shape, generator=_generator(seed), dtype=torch.float32).to(dtype)


def rand_range(*shape: int, low: float, high: float, seed: int = 0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Uniform tensor in [low, high) from a private generator."""
    values = low + (high - low) * torch.rand(shape, generator=_generator(seed), dtype=torch.float32)
    return values.to(dtype)


def randint(*shape: int, high: int, low: int = 0, seed: int = 0, dtype: torch.dtype = torch.int64) -> torch.Tensor:
    """Integer tensor in [low, high) from a private generator (int64 unless asked)."""
    return torch.randint(low, high, shape, generator=_generator(seed), dtype=torch.int64).to(dtype)


def randbool(*shape: int, seed: int = 0) -> torch.Tensor:
    """Boolean tensor with both values present (about half each)."""
    return torch.rand(shape, generator=_generator(seed)) < 0.5


# ---------------------------------------------------------------------------
# Expected failures.
# ---------------------------------------------------------------------------

# The parity tests of test_e2e.py, by the short name case_marks() takes.
TESTS = ("export_only", "circle_structure", "onert", "interpreter", "evaluator_frontend", "evaluator_pipeline")

# What each failing stage breaks: a conversion failure fails every test that
# needs the Circle file; a wrong result on one runtime only that runtime's test.
STAGE_TESTS = {
    # The saved program reloaded and run by PyTorch (ops whose eager kernel cannot run).
    "reload": ("export_only",),
    "conversion": ("circle_structure", "onert", "interpreter"),
    # The file converts and runs, but its structure is not what the check expects.
    "structure": ("circle_structure",),
    "onert": ("onert",),
    "interpreter": ("interpreter",),
    "evaluator_frontend": ("evaluator_frontend",),
    "evaluator_pipeline": ("evaluator_pipeline",),
}
VARIANTS = ("export", "decomposed")


@dataclass(frozen=True)
class ExpectedFailure:
    """A known gap: ``stage`` fails for the listed saved forms, for ``reason``.

    The reason names the missing feature (the op and why it fails), so the
    marker can be removed as soon as the feature lands: the marks are strict,
    and an unexpected pass fails the suite.
    """

    stage: str
    reason: str
    variants: tuple[str, ...] = VARIANTS
    # The runtime crashes the whole process (a segfault in onert): the test is reported as an
    # expected failure without being run, since no in-process check can survive it.
    crashes: bool = False

    def __post_init__(self) -> None:
        if self.stage not in STAGE_TESTS:
            raise ValueError(f"unknown stage {self.stage!r}; one of {sorted(STAGE_TESTS)}")
        unknown = set(self.variants) - set(VARIANTS)
        if unknown:
            raise ValueError(f"unknown variants {sorted(unknown)}")
        if not self.reason.strip():
            raise ValueError("an expected failure needs a reason naming the missing feature")


def expected_failures(name: str) -> tuple[ExpectedFailure, ...]:
    return tuple(getattr(MODULES[name], "expected_failures", ()))


def refusal_reasons(name: str, variant: str) -> list[str]:
    """The reasons of the case's expected conversion failures for ``variant``."""
    return [f.reason for f in expected_failures(name) if f.stage == "conversion" and variant in f.variants]


def xfail_mark(name: str, variant: str, reasons: list[str]) -> list:
    """The strict xfail mark for ``reasons``; refusals must raise ExpectedRefusal."""
    if not reasons:
        return []
    raises = ExpectedRefusal if refusal_reasons(name, variant) else None
    crashes = any(f.crashes and variant in f.variants and f.reason in reasons for f in expected_failures(name))
    return [pytest.mark.xfail(strict=True, reason="; ".join(reasons), raises=raises, run=not crashes)]


def case_marks(test: str, name: str, variant: str) -> list:
    """Strict xfail marks for one parity test of one case (``test`` is a TESTS entry)."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; one of {TESTS}")
    reasons = [f.reason for f in expected_failures(name) if variant in f.variants and test in STAGE_TESTS[f.stage]]
    if test in ("circle_structure", "onert", "interpreter") or not refusal_reasons(name, variant):
        return xfail_mark(name, variant, reasons)
    # Tests that do not convert (the evaluator ones) fail their own way.
    return [pytest.mark.xfail(strict=True, reason="; ".join(reasons))] if reasons else []
