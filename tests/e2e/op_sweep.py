"""The op sweep: one e2e case per operator of PyTorch's OpInfo database, classified.

PyTorch's own test suite describes its operators in ``op_db``
(``torch.testing._internal.common_methods_invocations``): each ``OpInfo`` has a name, a
variant name, the function (``op``), the dtypes it supports and a generator of sample inputs.
The sweep walks every OpInfo (and every alias an OpInfo lists, such as ``absolute`` for
``abs`` or ``adjoint`` for ``mH``), builds a small module calling the op on at most two of its
sample inputs (the tensors of the sample become the model's inputs, everything else stays a
constant), exports it as users do (``torch.export.export``, no ``run_decompositions``) and also
in its ``run_decompositions()`` form (the second saved form the e2e suite checks), converts
both with ``tico-run`` and the default pipeline, and runs each Circle file on the built-in
interpreter (``tico-circle run``) and on onert, comparing with eager PyTorch at
rtol = atol = 1e-5.

Every entry lands in one category:

- ``out_of_scope``: no sample could be exported or is meaningful as a Circle model (the
  sub-category says why: ``export_error``, ``data_dependent``, ``random_or_uninitialized``,
  ``non_tensor_output``, ``complex``, ``sparse``, ``no_sample``, ``eager_error``,
  ``backward_only``); recorded automatically;
- ``pass``: every exported case converts and matches on both runtimes;
- ``gap``: tico-run refuses a case, listing operators that have no Circle lowering;
- ``bug``: a case converts but a runtime fails or disagrees with eager, or the conversion fails
  some other way.

``op_sweep_status.json`` records the classification; ``test_op_sweep.py`` re-runs a sample
of it in CI (all of it with ``TICO_OP_SWEEP=full`` or ``TICO_E2E_EXTENDED=1``) and fails when
an entry's status changes. Regenerate the file after a change with

    TICO_RUN=build/bin/tico-run TICO_CIRCLE=build/bin/tico-circle \\
        .venv/bin/python tests/e2e/op_sweep.py --jobs 2 --write

(``--only KEY...`` re-classifies some entries and merges them into the file). docs/op-sweep.md
describes the sweep and its findings.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import types
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from torch.utils import _pytree as pytree

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
STATUS_FILE = HERE / "op_sweep_status.json"
RTOL = 1e-5
ATOL = 1e-5
MAX_SAMPLES = 2  # cases per entry
MAX_ELEMENTS = 4096  # a sample with more input elements than this is not taken
SAMPLES_SCANNED = 64  # how many of an OpInfo's samples are looked at
TOOL_TIMEOUT_S = 120
# Preferred dtypes, in order: float32 first (the converter's main dtype), then the integer
# and boolean dtypes for ops that have no floating variant (bitwise ops, gcd, ...).
DTYPES = (torch.float32, torch.int64, torch.int32, torch.bool, torch.uint8, torch.int16, torch.int8)
VARIANTS = ("export", "decomposed")
CATEGORIES = ("pass", "gap", "bug", "out_of_scope")

# The view / alias / convenience family issue 27 names: ops that a user writes as a method or a
# shorthand and that plain torch.export keeps whole (or maps onto one aten view). Matched on the
# OpInfo name (or the alias name) without the variant; docs/op-sweep.md reports them apart.
FOCUS_FAMILY = frozenset(
    """
    T H mT mH adjoint t t_copy numpy_T reshape reshape_as view view_as view_copy expand expand_as
    expand_copy broadcast_to broadcast_tensors type_as addcmul addcdiv lerp flatten unflatten ravel
    squeeze squeeze_copy unsqueeze unsqueeze_copy permute permute_copy transpose transpose_copy
    swapaxes swapdims movedim moveaxis narrow narrow_copy select slice diagonal diagonal_copy
    linalg.diagonal as_strided as_strided_copy unfold unfold_copy split split_with_sizes
    split_with_sizes_copy unsafe_split chunk unsafe_chunk unbind unbind_copy tensor_split hsplit
    vsplit dsplit atleast_1d atleast_2d atleast_3d hstack vstack row_stack dstack column_stack
    stack cat concat concatenate contiguous clone alias_copy positive conj resolve_conj resolve_neg
    real imag view_as_real view_as_complex flip fliplr flipud rot90 roll repeat tile
    repeat_interleave sum_to_size diag diag_embed diagflat block_diag kron outer ger inner dot vdot
    mv addr addmm addmv addbmm baddbmm tensordot einsum trace tril triu meshgrid cartesian_prod
    combinations take_along_dim __getitem__ to float double half bfloat16 bool byte char int long
    short zeros_like ones_like full_like new_zeros new_ones new_full clamp_min clamp_max clip
    fix negative multiply subtract divide true_divide rsub square hypot logaddexp logaddexp2 xlogy
    copysign fmod remainder float_power
    """.split()
)


# ---------------------------------------------------------------------------
# The entries: every OpInfo of op_db and every alias it lists.
# ---------------------------------------------------------------------------


def load_op_db():
    """``op_db`` of PyTorch's test suite.

    ``common_utils`` (which ``common_methods_invocations`` imports) derives its TestCase from
    ``expecttest.TestCase``; the sweep needs none of that machinery, so when the
    ``expecttest`` package is not installed a stand-in with ``unittest.TestCase`` is used.
    """
    try:
        import expecttest  # noqa: F401
    except ImportError:
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase
        sys.modules["expecttest"] = stub
    from torch.testing._internal.common_methods_invocations import op_db

    return op_db


@dataclass
class Entry:
    key: str  # "name" or "name.variant"; aliases "alias:alias_name[.variant]"; "extra:name"
    kind: str  # "opinfo", "alias" or "extra"
    opinfo: object
    fn: Callable

    @property
    def family_name(self) -> str:
        """The op name without the OpInfo variant, as FOCUS_FAMILY spells it."""
        name = self.key.removeprefix("alias:").removeprefix("extra:")
        variant = getattr(self.opinfo, "variant_test_name", "")
        return name[: -len(variant) - 1] if variant and name.endswith("." + variant) else name


class ExtraOpInfo:
    """An op of torch's operator list that op_db has no OpInfo for, with hand-written samples
    (the few ``CompositeImplicitAutograd`` ops of the view / convenience family and the
    recurrent cells that ``uncovered_composite_ops`` finds missing)."""

    variant_test_name = ""
    aliases = ()

    def __init__(self, name: str, op: Callable, samples: Callable[[], list]):
        self.name = name
        self.op = op
        self._samples = samples

    def supported_dtypes(self, device_type: str):
        return {torch.float32}

    def sample_inputs(self, device, dtype, requires_grad=False):
        from torch.testing._internal.opinfo.core import SampleInput

        for input_, args, kwargs in self._samples():
            yield SampleInput(input_, args=args, kwargs=kwargs)


def _randn(*shape: int, seed: int) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed))


def _cell_samples(gates: int) -> list:
    hidden, features = 4, 3
    weights = (_randn(gates * hidden, features, seed=3), _randn(gates * hidden, hidden, seed=4),
               _randn(gates * hidden, seed=5), _randn(gates * hidden, seed=6))
    return [(_randn(2, features, seed=1), (_randn(2, hidden, seed=2), *weights), {})]


EXTRA_OPS = (
    ExtraOpInfo("type_as", torch.Tensor.type_as, lambda: [
        (_randn(3, 4, seed=1) * 10, (torch.arange(4).reshape(2, 2),), {}),
        (_randn(3, 4, seed=1), (_randn(2, seed=2),), {}),
    ]),
    ExtraOpInfo("chain_matmul", torch.chain_matmul, lambda: [
        (_randn(2, 3, seed=1), (_randn(3, 4, seed=2), _randn(4, 5, seed=3)), {}),
    ]),
    ExtraOpInfo("lstm_cell", lambda x, h, c, *weights: torch.lstm_cell(x, (h, c), *weights), lambda: [
        (_randn(2, 3, seed=1), (_randn(2, 4, seed=2), _randn(2, 4, seed=7), *_cell_samples(4)[0][1][1:]), {}),
    ]),
    ExtraOpInfo("gru_cell", torch.gru_cell, lambda: _cell_samples(3)),
    ExtraOpInfo("rnn_tanh_cell", torch.rnn_tanh_cell, lambda: _cell_samples(1)),
    ExtraOpInfo("rnn_relu_cell", torch.rnn_relu_cell, lambda: _cell_samples(1)),
    ExtraOpInfo("fake_quantize_per_tensor_affine", torch.fake_quantize_per_tensor_affine, lambda: [
        (_randn(3, 4, seed=1), (0.05, 3, -128, 127), {}),
    ]),
    # The scales and zero points are constants of the program, as in a fake-quantized model (as
    # inputs they would be run-time quantization parameters, which Circle cannot carry).
    ExtraOpInfo("fake_quantize_per_channel_affine", lambda x: torch.fake_quantize_per_channel_affine(
        x, torch.tensor([0.05, 0.1, 0.02]), torch.tensor([0, 2, -1], dtype=torch.int32), 0, -128, 127), lambda: [
        (_randn(3, 4, seed=1), (), {}),
    ]),
)


_ENTRIES: dict[str, Entry] | None = None


def entries() -> dict[str, Entry]:
    """Every sweep entry by key, in op_db order (each OpInfo, then its aliases)."""
    global _ENTRIES
    if _ENTRIES is None:
        found: dict[str, Entry] = {}
        for opinfo in load_op_db():
            suffix = f".{opinfo.variant_test_name}" if opinfo.variant_test_name else ""
            key = f"{opinfo.name}{suffix}"
            if key in found:
                raise ValueError(f"two OpInfos named {key}")
            found[key] = Entry(key, "opinfo", opinfo, opinfo.op)
            for alias in opinfo.aliases:
                if alias.op is None:
                    continue
                alias_key = f"alias:{alias.name}{suffix}"
                if alias_key not in found:
                    found[alias_key] = Entry(alias_key, "alias", opinfo, alias.op)
        for extra in EXTRA_OPS:
            found[f"extra:{extra.name}"] = Entry(f"extra:{extra.name}", "extra", extra, extra.op)
        _ENTRIES = found
    return _ENTRIES


def in_focus(entry: Entry) -> bool:
    return entry.family_name in FOCUS_FAMILY


# OpInfos whose aten operator has another name (the Python spelling is the OpInfo's).
ATEN_SPELLINGS = {
    "T": "numpy_T",
    "H": "matrix_H",
    "nn.functional.logsigmoid": "log_sigmoid",
    "nn.functional.channel_shuffle": "native_channel_shuffle",
    "nn.functional.grid_sample": "grid_sampler",
    "nn.functional.interpolate.nearest": "upsample_nearest1d",
    "nn.functional.interpolate.linear": "upsample_linear1d",
    "nn.functional.interpolate.bilinear": "upsample_bilinear2d",
    "nn.functional.interpolate.bicubic": "upsample_bicubic2d",
    "nn.functional.interpolate.trilinear": "upsample_trilinear3d",
    "nn.functional.upsample_nearest": "upsample_nearest2d",
    "nn.functional.max_pool1d": "max_pool1d_with_indices",
    "nn.functional.cross_entropy": "cross_entropy_loss",
    "nn.functional.nll_loss": "nll_loss_nd",
}


def uncovered_composite_ops() -> list[str]:
    """aten operators with a CompositeImplicitAutograd kernel (the ones plain torch.export may keep
    whole) whose name no entry covers, leaving out in-place and private ops and the namespaced
    spellings (fft_fft is fft.fft, linalg_det is linalg.det, special_erf is special.erf)."""
    covered = set(ATEN_SPELLINGS.values()) if any(key in entries() for key in ATEN_SPELLINGS) else set()
    for entry in entries().values():
        name = entry.key.removeprefix("alias:").removeprefix("extra:").removeprefix("torch.")
        variant = getattr(entry.opinfo, "variant_test_name", "")
        if variant and name.endswith("." + variant):
            name = name[: -len(variant) - 1]
        covered.add(name.replace(".", "_"))
        covered.add(name.split(".")[-1])
    missing = set()
    for full in torch._C._dispatch_get_all_op_names():
        if not full.startswith("aten::"):
            continue
        name = full[len("aten::"):].split(".")[0]
        if name.startswith("_") or name.endswith("_") or "backward" in name or name in covered:
            continue
        if torch._C._dispatch_has_kernel_for_dispatch_key(full, "CompositeImplicitAutograd"):
            missing.add(name)
    return sorted(missing)


# ---------------------------------------------------------------------------
# Samples and the module wrapping one.
# ---------------------------------------------------------------------------


class OutOfScope(Exception):
    """The entry (or one of its cases) cannot be a Circle conversion test; ``scope`` says why."""

    def __init__(self, scope: str, reason: str):
        super().__init__(f"{scope}: {reason}")
        self.scope = scope
        self.reason = reason


def pick_dtype(opinfo) -> torch.dtype:
    supported = opinfo.supported_dtypes("cpu")
    for dtype in DTYPES:
        if dtype in supported:
            return dtype
    if any(dtype.is_complex for dtype in supported):
        raise OutOfScope("complex", f"only complex (or no real) dtypes on CPU: {sorted(str(d) for d in supported)}")
    raise OutOfScope("no_sample", f"no supported dtype among {[str(d) for d in DTYPES]}: {sorted(str(d) for d in supported)}")


@dataclass
class Sample:
    index: int  # position in the OpInfo's sample generator
    spec: object  # tree spec of (input, args, kwargs)
    leaves: list
    tensor_positions: list[int]

    def tensors(self) -> list[torch.Tensor]:
        return [self.leaves[i] for i in self.tensor_positions]

    def describe(self) -> str:
        def show(leaf):
            if isinstance(leaf, torch.Tensor):
                return f"Tensor{tuple(leaf.shape)}:{str(leaf.dtype).removeprefix('torch.')}"
            return repr(leaf)

        input_, args, kwargs = pytree.tree_unflatten([show(leaf) for leaf in self.leaves], self.spec)
        text = f"#{self.index}: input={input_}"
        if args:
            text += f" args={tuple(args)}"
        if kwargs:
            text += f" kwargs={kwargs}"
        return text.replace("'", "")


def _plain_tensor(leaf) -> bool:
    return type(leaf) is torch.Tensor or type(leaf) is torch.nn.Parameter


def pick_samples(entry: Entry, dtype: torch.dtype) -> list[Sample]:
    """At most MAX_SAMPLES small samples: the first usable one and the smallest of the rest.

    A usable sample has only dense, non-empty tensors of at most MAX_ELEMENTS elements in all.
    """
    torch.manual_seed(0)
    try:
        generator = entry.opinfo.sample_inputs("cpu", dtype, requires_grad=False)
        candidates = []
        sparse = 0
        for index, sample in enumerate(generator):
            if index >= SAMPLES_SCANNED:
                break
            leaves, spec = pytree.tree_flatten((sample.input, tuple(sample.args), dict(sample.kwargs)))
            tensors = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
            if not tensors:
                continue
            if any(not _plain_tensor(leaves[i]) or leaves[i].layout != torch.strided for i in tensors):
                sparse += 1
                continue
            total = sum(leaves[i].numel() for i in tensors)
            if any(leaves[i].numel() == 0 for i in tensors) or total > MAX_ELEMENTS:
                continue
            leaves = [leaf.detach().clone() if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves]
            candidates.append((total, Sample(index, spec, leaves, tensors)))
    except OutOfScope:
        raise
    except Exception as error:  # noqa: BLE001 - the generator of PyTorch's test suite failed
        raise OutOfScope("no_sample", f"sample_inputs failed: {type(error).__name__}: {first_line(error)}") from None
    if not candidates:
        if sparse:
            raise OutOfScope("sparse", "every sample input is sparse or a tensor subclass")
        raise OutOfScope("no_sample", f"no sample with non-empty dense tensors of at most {MAX_ELEMENTS} elements")
    chosen = [candidates[0][1]]
    rest = sorted(candidates[1:], key=lambda pair: (pair[0], pair[1].index))
    chosen += [sample for _, sample in rest[: MAX_SAMPLES - 1]]
    return chosen


class SweepModule(torch.nn.Module):
    """Calls the entry's function on a sample whose tensors are the module's inputs."""

    def __init__(self, fn: Callable, sample: Sample):
        super().__init__()
        self.fn = fn
        self.spec = sample.spec
        self.constants = [None if isinstance(leaf, torch.Tensor) else leaf for leaf in sample.leaves]
        self.positions = sample.tensor_positions

    def forward(self, *tensors):
        leaves = list(self.constants)
        for position, tensor in zip(self.positions, tensors):
            leaves[position] = tensor
        input_, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        result = self.fn(input_, *args, **kwargs)
        # Tuples of tensors as a plain tuple: torch.export.save cannot save torch.return_types
        # named tuples (sort, topk, ...), and a Circle model's outputs are a flat list anyway.
        return result if isinstance(result, torch.Tensor) else tuple(pytree.tree_leaves(result))


def first_line(error: BaseException | str, limit: int = 300) -> str:
    text = str(error).strip()
    line = next((part.strip() for part in text.splitlines() if part.strip()), "") or type(error).__name__
    return line if len(line) <= limit else line[:limit] + "..."


def _clones(tensors):
    return [tensor.clone() for tensor in tensors]


def eager(module: torch.nn.Module, tensors: list[torch.Tensor], seed: int) -> list[torch.Tensor]:
    torch.manual_seed(seed)
    with torch.no_grad():
        result = module(*_clones(tensors))
    leaves = pytree.tree_leaves(result)
    bad = [type(leaf).__name__ for leaf in leaves if not isinstance(leaf, torch.Tensor)]
    if bad or not leaves:
        raise OutOfScope("non_tensor_output", f"the op returns {', '.join(bad) or 'nothing'}, not tensors")
    for leaf in leaves:
        if not _plain_tensor(leaf) or leaf.layout != torch.strided:
            raise OutOfScope("sparse", f"the op returns a {leaf.layout} {type(leaf).__name__}")
        if leaf.is_complex():
            raise OutOfScope("complex", f"the op returns a {leaf.dtype} tensor")
    return [leaf.detach().clone() for leaf in leaves]


def same_values(first: list[torch.Tensor], second: list[torch.Tensor]) -> bool:
    return len(first) == len(second) and all(
        a.shape == b.shape and a.dtype == b.dtype and torch.equal(torch.nan_to_num(a.float(), 1.0, 2.0, 3.0), torch.nan_to_num(b.float(), 1.0, 2.0, 3.0))
        for a, b in zip(first, second)
    )


_DATA_DEPENDENT = re.compile(
    r"data.dependent|GuardOnDataDependent|DynamicOutputShape|unbacked|Could not guard on|"
    r"Could not extract specialized integer|dynamic output shape|\.item\(\)|_local_scalar_dense",
    re.I,
)


def export(module: torch.nn.Module, tensors: list[torch.Tensor]) -> torch.export.ExportedProgram:
    try:
        with torch.no_grad(), warnings_quiet():
            program = torch.export.export(module, tuple(_clones(tensors)))
    except Exception as error:  # noqa: BLE001
        text = f"{type(error).__name__}: {error}"
        scope = "data_dependent" if _DATA_DEPENDENT.search(text) else "export_error"
        raise OutOfScope(scope, f"torch.export.export failed: {type(error).__name__}: {first_line(error)}") from None
    check_program(program)
    return program


_UNINITIALIZED = {"empty", "empty_like", "empty_permuted", "empty_strided", "new_empty", "new_empty_strided"}


def check_program(program: torch.export.ExportedProgram) -> None:
    """Out of scope: random ops, and sizes that depend on the data (the example inputs are static,
    so any symbolic size is an unbacked one: nonzero, unique, masked_select, ...)."""
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        tags = getattr(node.target, "tags", ())
        if torch.Tag.nondeterministic_seeded in tags:
            raise OutOfScope("random_or_uninitialized", f"the program draws random numbers ({node.target})")
        if getattr(node.target, "__name__", "").split(".")[0] in _UNINITIALIZED:
            raise OutOfScope("random_or_uninitialized", f"the program holds uninitialized memory ({node.target})")
        values = node.meta.get("val")
        for value in values if isinstance(values, (list, tuple)) else [values]:
            if isinstance(value, torch.Tensor) and any(isinstance(size, torch.SymInt) for size in value.shape):
                raise OutOfScope("data_dependent", f"{node.target} has a data-dependent size {tuple(value.shape)}")


@contextlib.contextmanager
def warnings_quiet():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ---------------------------------------------------------------------------
# Running the tools.
# ---------------------------------------------------------------------------


@dataclass
class Tools:
    tico_run: Path
    tico_circle: Path
    pipeline: Path

    @staticmethod
    def from_env() -> "Tools":
        build = ROOT / "build" / "bin"
        tico_run = Path(os.environ.get("TICO_RUN", build / "tico-run"))
        tico_circle = Path(os.environ.get("TICO_CIRCLE", build / "tico-circle"))
        source = Path(os.environ.get("TICO_SOURCE_DIR", ROOT))
        return Tools(tico_run, tico_circle, source / "configs" / "pipelines" / "default.yaml")


def run_tool(command: list[str]) -> subprocess.CompletedProcess:
    """One run of a tool; a timeout becomes exit code -999 with the reason on stderr."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, -999, "", f"timed out after {TOOL_TIMEOUT_S} s")


_UNSUPPORTED_LINE = re.compile(r"^\s*(?P<op>\S+) x\d+ \(.*?\): (?P<why>.*?)\s*$", re.M)


def unsupported_ops(stderr: str) -> dict[str, str]:
    """The "OP xN (nodes): WHY" lines of tico-run's unsupported-operator error."""
    if "no Circle lowering" not in stderr:
        return {}
    return {match["op"]: match["why"] for match in _UNSUPPORTED_LINE.finditer(stderr)}


# Documented refusals other than a missing lowering: what a Circle model cannot express (state
# written in place, side effects) or what tico converts only in inference form. A conversion
# that stops with one of these (exit code 1, no output file) is a gap, not a bug.
_REFUSAL = re.compile(
    r"is in training mode \(training=True\); tico converts inference graphs"
    r"|effect tokens are not supported"
    r"|cannot express the in-place write of node '[^']*' \([^)]*\)[^:]*: (it changes the size or the storage of a tensor|there is no out-of-place form of [\w:.]+)"
)


def tool_error(run: subprocess.CompletedProcess, directory: Path) -> str:
    """The tool's error, one line, without the case's temporary paths."""
    text = (run.stderr or "").replace(str(directory) + "/", "").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    error = next((line for line in lines if "error" in line.lower()), lines[-1] if lines else "")
    signal = f"killed by signal {-run.returncode}" if run.returncode < 0 and run.returncode != -999 else f"exit code {run.returncode}"
    return f"{signal}: {error[:400]}"


class OnertWorker:
    """onert 0.2 (``infer.session(path).infer(inputs)``) in a long-lived child process.

    Some models make onert abort or crash; the child turns that into a result (and is started
    again for the next model) instead of taking the sweep down.
    """

    _SCRIPT = r"""
import json, sys
import numpy as np
from onert import infer
for line in sys.stdin:
    request = json.loads(line)
    try:
        data = np.load(request["feeds"])
        # copy(order="C"), not np.ascontiguousarray: that one makes a 0-d array 1-d.
        feeds = [data[f"feed{i}"].copy(order="C") for i in range(len(data.files))]
        session = infer.session(request["model"])
        outputs = [np.array(out) for out in session.infer(feeds)]
        del session
        np.savez(request["out"], *outputs)
        reply = {"ok": True, "count": len(outputs)}
    except Exception as error:
        reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
    print(json.dumps(reply), flush=True)
"""

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.log = None

    def _start(self) -> None:
        self.log = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [sys.executable, "-u", "-c", self._SCRIPT],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )

    def close(self) -> None:
        if self.process is not None:
            with contextlib.suppress(Exception):
                self.process.stdin.close()
                self.process.wait(timeout=10)
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process = None

    def run(self, model: Path, feeds: list[np.ndarray], directory: Path) -> tuple[list[np.ndarray] | None, str]:
        """(outputs, "") or (None, error)."""
        if self.process is None or self.process.poll() is not None:
            self._start()
        self.log.seek(0, os.SEEK_END)
        log_start = self.log.tell()  # what onert prints for this model only
        feeds_path = directory / "onert_feeds.npz"
        out_path = directory / "onert_out.npz"
        np.savez(feeds_path, **{f"feed{i}": feed for i, feed in enumerate(feeds)})
        request = {"model": str(model), "feeds": str(feeds_path), "out": str(out_path)}
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([self.process.stdout], [], [], TOOL_TIMEOUT_S)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            if self.process.poll() is None:
                self.process.kill()
            code = self.process.wait()
            self.log.seek(log_start)
            tail = [text.strip() for text in self.log.read().splitlines() if text.strip()][-1:]
            self.process = None
            what = "timed out" if not ready else (f"crashed (signal {-code})" if code < 0 else f"exited with code {code}")
            return None, f"onert {what}{': ' + tail[0][:300] if tail else ''}"
        reply = json.loads(line)
        if not reply["ok"]:
            return None, reply["error"].replace(str(directory) + "/", "")[:400]
        data = np.load(out_path)
        return [data[f"arr_{i}"] for i in range(len(data.files))], ""


def run_interpreter(tools: Tools, circle: Path, arrays: list[np.ndarray], directory: Path) -> tuple[list[np.ndarray] | None, str]:
    arguments = [str(tools.tico_circle), "run", str(circle)]
    for position, array in enumerate(arrays):
        path = directory / f"in{position}.npy"
        np.save(path, array)
        arguments += ["--input", str(path)]
    out_dir = directory / "interpreter"
    arguments += ["--output-dir", str(out_dir)]
    run = run_tool(arguments)
    if run.returncode != 0:
        return None, tool_error(run, directory)
    outputs = []
    while (out_dir / f"out{len(outputs)}.npy").is_file():
        outputs.append(np.load(out_dir / f"out{len(outputs)}.npy"))
    return outputs, ""


def compare(actual: list[np.ndarray], expected: list[np.ndarray], rtol: float = RTOL, atol: float = ATOL) -> str:
    """"" when the outputs match eager (count, shape, dtype, values at rtol/atol), else why not."""
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, eager has {len(expected)}"
    for index, (got, want) in enumerate(zip(actual, expected)):
        got = np.asarray(got)
        if got.shape != want.shape:
            return f"output {index}: shape {got.shape} != eager {want.shape}"
        if got.dtype != want.dtype:
            return f"output {index}: dtype {got.dtype} != eager {want.dtype}"
        if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
            wrong = got != want
        else:
            g, w = got.astype(np.float64), want.astype(np.float64)
            both_nan = np.isnan(g) & np.isnan(w)
            same_inf = np.isinf(w) & (g == w)
            with np.errstate(invalid="ignore"):
                wrong = ~(both_nan | same_inf | (np.abs(g - w) <= atol + rtol * np.abs(w)))
        if wrong.any():
            count = int(wrong.sum())
            at = tuple(int(i) for i in np.argwhere(wrong)[0])
            return f"output {index}: {count} of {want.size} values differ (first at {at}: {got[at]!r} vs eager {want[at]!r})"
    return ""


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    return tensor.detach().cpu().contiguous().numpy().copy()


# ---------------------------------------------------------------------------
# Classifying one entry.
# ---------------------------------------------------------------------------


# The dtype policy (docs/passes.md, "Dtype policy") computes float16 / bfloat16 values in float32
# and gives float32 interfaces: a program with half-precision values (a cast such as x.half())
# is compared with eager widened to float32, at the half type's rounding.
HALF_TOLERANCE = {torch.float16: 2.0**-10, torch.bfloat16: 2.0**-7}


def half_tolerance(program: torch.export.ExportedProgram) -> float | None:
    worst = None
    for node in program.graph.nodes:
        values = node.meta.get("val")
        for value in values if isinstance(values, (list, tuple)) else [values]:
            if isinstance(value, torch.Tensor) and value.dtype in HALF_TOLERANCE:
                worst = max(worst or 0.0, HALF_TOLERANCE[value.dtype])
    return worst


def run_case(program: torch.export.ExportedProgram, inputs: list[np.ndarray], expected: list[np.ndarray],
             directory: Path, tools: Tools, onert: OnertWorker) -> dict:
    """Converts one saved form and runs it on both runtimes: the case's status record."""
    tolerance = half_tolerance(program)
    rtol = atol = tolerance or RTOL
    if tolerance:
        expected = [array.astype(np.float32) if array.dtype == np.float16 else array for array in expected]
    directory.mkdir(parents=True, exist_ok=True)
    pt2 = directory / "model.pt2"
    circle = directory / "model.circle"
    try:
        with warnings_quiet():
            torch.export.save(program, str(pt2))
    except Exception as error:  # noqa: BLE001
        return {"status": "out_of_scope", "scope": "export_error", "reason": f"torch.export.save failed: {first_line(error)}"}
    run = run_tool([str(tools.tico_run), "--pipeline", str(tools.pipeline), str(pt2), "-o", str(circle)])
    if run.returncode != 0:
        ops = unsupported_ops(run.stderr)
        clean = run.returncode == 1 and not circle.exists()
        if ops and clean:
            return {"status": "gap", "ops": dict(sorted(ops.items()))}
        refusal = _REFUSAL.search(run.stderr or "")
        if refusal and clean:
            # Without the source location (a line of this file) the message quotes.
            return {"status": "gap", "refusal": re.sub(r' at File "[^"]*", line \d+, in \w+', "", refusal.group(0))}
        return {"status": "bug", "stage": "conversion", "error": tool_error(run, directory)}
    record: dict = {"status": "pass"}
    if tolerance:
        record["tolerance"] = f"half precision (dtype policy): rtol = atol = {tolerance:g}"
    problems = {}
    outputs, error = run_interpreter(tools, circle, inputs, directory)
    if outputs is None:
        problems["interpreter"] = f"run failed: {error}"
    elif mismatch := compare(outputs, expected, rtol, atol):
        problems["interpreter"] = f"mismatch: {mismatch}"
    outputs, error = onert.run(circle, inputs, directory)
    if outputs is None:
        problems["onert"] = f"run failed: {error}"
    elif mismatch := compare(outputs, expected, rtol, atol):
        problems["onert"] = f"mismatch: {mismatch}"
    if "onert" in problems:
        onert.close()  # a fresh onert process for the next model: a failure may leave its heap damaged
    if problems:
        record.update({"status": "bug", "stage": "+".join(sorted(problems)),
                       "error": "; ".join(f"{k}: {v}" for k, v in sorted(problems.items()))})
    return record


def classify(entry: Entry, tools: Tools, onert: OnertWorker, workdir: Path) -> dict:
    """The entry's status record: category, sub-category or reason, and one record per case."""
    result: dict = {"kind": entry.kind}
    if entry.kind == "alias":
        result["alias_of"] = f"{entry.opinfo.name}{'.' + entry.opinfo.variant_test_name if entry.opinfo.variant_test_name else ''}"
    if "backward" in entry.key:
        return {**result, "category": "out_of_scope", "scope": "backward_only", "reason": "a backward (gradient) kernel, not a forward op"}
    try:
        dtype = pick_dtype(entry.opinfo)
        result["dtype"] = str(dtype).removeprefix("torch.")
        samples = pick_samples(entry, dtype)
    except OutOfScope as why:
        return {**result, "category": "out_of_scope", "scope": why.scope, "reason": why.reason}

    cases: dict[str, dict] = {}
    described: dict[str, str] = {}
    first_scope = None
    directory = workdir / re.sub(r"[^A-Za-z0-9_.-]", "_", entry.key)
    for sample in samples:
        label = f"s{sample.index}"
        described[label] = sample.describe()
        module = SweepModule(entry.fn, sample).eval()
        tensors = sample.tensors()
        try:
            try:
                reference = eager(module, tensors, seed=1)
            except OutOfScope:
                raise
            except Exception as error:  # noqa: BLE001
                raise OutOfScope("eager_error", f"eager call failed: {type(error).__name__}: {first_line(error)}") from None
            # Export first: its graph check decides deterministically (random tags, empty*), while two
            # eager calls returning uninitialized memory may or may not differ.
            program = export(module, tensors)
            if not same_values(reference, eager(module, tensors, seed=2)):
                raise OutOfScope("random_or_uninitialized", "two eager calls on the same inputs give different values")
        except OutOfScope as why:
            first_scope = first_scope or why
            cases[f"{label}/export"] = {"status": "out_of_scope", "scope": why.scope, "reason": why.reason}
            continue
        inputs = [to_numpy(tensor) for tensor in tensors]
        expected = [to_numpy(tensor) for tensor in reference]
        for variant in VARIANTS:
            key = f"{label}/{variant}"
            if variant == "decomposed":
                try:
                    with warnings_quiet():
                        program = program.run_decompositions()
                except Exception as error:  # noqa: BLE001
                    cases[key] = {"status": "out_of_scope", "scope": "export_error",
                                  "reason": f"run_decompositions failed: {type(error).__name__}: {first_line(error)}"}
                    continue
            cases[key] = run_case(program, inputs, expected, directory / key.replace("/", "-"), tools, onert)
    shutil.rmtree(directory, ignore_errors=True)

    statuses = {case["status"] for case in cases.values()}
    result["samples"] = described
    result["cases"] = cases
    if statuses <= {"out_of_scope"}:
        result["category"] = "out_of_scope"
        result["scope"] = first_scope.scope if first_scope else "export_error"
        result["reason"] = first_scope.reason if first_scope else next(iter(cases.values()))["reason"]
    else:
        result["category"] = next(status for status in ("bug", "gap", "pass") if status in statuses)
    return result


def signature(record: dict) -> dict:
    """What must stay the same between runs: categories, gap ops with their reasons, bug stages."""
    cases = {}
    for key, case in record.get("cases", {}).items():
        cases[key] = {k: case[k] for k in ("status", "scope", "ops", "refusal", "stage") if k in case}
    return {"category": record["category"], "scope": record.get("scope"), "cases": cases}


def describe_change(key: str, recorded: dict, current: dict) -> str:
    return (
        f"op sweep entry {key} changed:\n  recorded: {json.dumps(signature(recorded), sort_keys=True)}\n"
        f"  now:      {json.dumps(signature(current), sort_keys=True)}\n"
        f"  details now: {json.dumps(current, sort_keys=True)[:3000]}\n"
        "Re-classify it with `tests/e2e/op_sweep.py --only KEY --write` (docs/op-sweep.md) and commit the file."
    )


# ---------------------------------------------------------------------------
# The committed status file.
# ---------------------------------------------------------------------------


def load_status(path: Path = STATUS_FILE) -> dict:
    return json.loads(path.read_text())


def summarize(records: dict[str, dict]) -> dict:
    counts = {category: 0 for category in CATEGORIES}
    scopes: dict[str, int] = {}
    gap_ops: dict[str, set] = {}
    for key, record in records.items():
        counts[record["category"]] += 1
        if record["category"] == "out_of_scope":
            scopes[record["scope"]] = scopes.get(record["scope"], 0) + 1
        for case in record.get("cases", {}).values():
            for op in case.get("ops", {}):
                gap_ops.setdefault(op, set()).add(key)
            if "refusal" in case:
                gap_ops.setdefault(f"(refused) {case['refusal']}", set()).add(key)
    return {
        "entries": len(records),
        "opinfos": sum(record["kind"] == "opinfo" for record in records.values()),
        "aliases": sum(record["kind"] == "alias" for record in records.values()),
        "extras": sum(record["kind"] == "extra" for record in records.values()),
        "categories": counts,
        "out_of_scope": dict(sorted(scopes.items(), key=lambda item: (-item[1], item[0]))),
        "gap_ops": {op: len(keys) for op, keys in sorted(gap_ops.items(), key=lambda item: (-len(item[1]), item[0]))},
    }


def write_status(records: dict[str, dict], path: Path = STATUS_FILE) -> None:
    order = list(entries())
    ordered = {key: records[key] for key in order if key in records}
    document = {
        "about": "Op sweep classification (tests/e2e/op_sweep.py, docs/op-sweep.md). Generated: do not edit by hand.",
        "torch": torch.__version__.split("+")[0],
        "summary": summarize(ordered),
        "deliberate": DELIBERATE_GAPS,
        "onert_limits": ONERT_LIMITS,
        "entries": ordered,
    }
    # One line per entry: the file stays readable and a changed entry is a one-line diff.
    head = {key: value for key, value in document.items() if key != "entries"}
    text = json.dumps(head, indent=1, ensure_ascii=False)[:-2] + ',\n "entries": {\n'
    text += ",\n".join(f"  {json.dumps(key)}: {json.dumps(record, ensure_ascii=False)}" for key, record in ordered.items())
    path.write_text(text + "\n }\n}\n")


# Gaps of the focus family left out on purpose, with the reason (checked by test_op_sweep.py:
# every focus-family gap has an entry, and every entry is a gap).
DELIBERATE_GAPS: dict[str, str] = {
    "as_strided": ("aten::as_strided with strides that are not a permutation/slice of the input's: it reads the "
                   "storage, which a Circle tensor does not have. Deliberate: no Circle equivalent short of a "
                   "GATHER with computed flat indices, and inference graphs do not emit it"),
    "as_strided.partial_views": "as as_strided: storage-level views have no Circle equivalent (deliberate)",
    "as_strided_copy": "as as_strided: storage-level views have no Circle equivalent (deliberate)",
    "float_power": ("aten::float_power computes and returns float64; pow producing float64 is refused (Circle "
                    "runtimes have no float64 arithmetic). Deliberate"),
    "repeat_interleave": ("repeats from a tensor input (.self_Tensor / .Tensor): the output size depends on the "
                          "data. Deliberate (a constant count, and a 0-d input, convert)"),
}

# Entries that convert and match eager on the built-in runtime but that onert 0.2 cannot run:
# onert's limits, measured (docs/onert.md), not tico's. test_op_sweep.py checks that every bug
# entry whose failing cases all fail on onert only is listed here, and nothing else.
_TRANSPOSE_CONV = ("TRANSPOSE_CONV: the CPU backend of onert 0.2 has no kernel for it (\"KernelGenerator: NYI for "
                   "operation 'TransposeConv'\"; docs/onert.md); the built-in runtime runs it and matches eager")
ONERT_LIMITS: dict[str, str] = {
    "nn.functional.conv_transpose1d": _TRANSPOSE_CONV,
    "alias:conv_transpose1d": _TRANSPOSE_CONV,
    "nn.functional.conv_transpose2d": _TRANSPOSE_CONV,
    "alias:conv_transpose2d": _TRANSPOSE_CONV,
    "char": "CAST to int8: onert 0.2 has no CAST kernel with an int8 output (docs/onert.md, the CAST rows)",
    "short": "CAST to int16: onert 0.2 crashes on it (signal 11; docs/onert.md, the CAST rows)",
    "double": "CAST to float64: onert 0.2 has no float64 tensors (Circle FLOAT64 is refused at run)",
    "to": "to(float64): a CAST to float64, which onert 0.2 cannot run (as `double`)",
    "extra:fake_quantize_per_tensor_affine": ("the QUANTIZE / DEQUANTIZE pair of a float model's fake quantization: "
                                              "onert 0.2 fails at run (int8 QUANTIZE of a float input); the built-in "
                                              "runtime runs it"),
    "extra:fake_quantize_per_channel_affine": "as extra:fake_quantize_per_tensor_affine",
    "addbmm": ("onert 0.2 sums the batch of products in another order: 1 of 50 values differs by 1.7e-5 (a "
               "value near 0.05; rtol = atol = 1e-5 allow 1.05e-5); float32 rounding, not a wrong result"),
}


# ---------------------------------------------------------------------------
# The generated part of docs/op-sweep.md.
# ---------------------------------------------------------------------------

DOC_FILE = ROOT / "docs" / "op-sweep.md"
DOC_BEGIN = "<!-- op-sweep report: generated by tests/e2e/op_sweep.py --report; do not edit below -->"
DOC_END = "<!-- op-sweep report: end -->"
SCOPE_TEXT = {
    "export_error": "torch.export.export (or saving the program) fails",
    "data_dependent": "output size depends on the data (unbacked symbolic sizes)",
    "random_or_uninitialized": "draws random numbers or returns uninitialized memory",
    "non_tensor_output": "returns a Python number, bool or nothing rather than tensors",
    "complex": "complex dtypes only, or a complex result",
    "sparse": "sparse or tensor-subclass inputs or results",
    "no_sample": "no usable sample input (all empty, too large, or the generator fails)",
    "eager_error": "eager PyTorch fails on the samples",
    "backward_only": "a backward (gradient) kernel",
}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def report(status: dict) -> str:
    records = status["entries"]
    summary = status["summary"]
    lines = [DOC_BEGIN, ""]
    lines += [f"Recorded with PyTorch {status['torch']}: {summary['entries']} entries "
              f"({summary['opinfos']} OpInfos of `op_db`, {summary['aliases']} aliases, {summary['extras']} extras).", ""]
    lines += ["| category | entries | OpInfos | aliases | extras |", "|---|---:|---:|---:|---:|"]
    for category in CATEGORIES:
        count = lambda kind: sum(r["category"] == category and r["kind"] == kind for r in records.values())  # noqa: E731
        lines.append(f"| {category} | {summary['categories'][category]} | {count('opinfo')} | {count('alias')} | {count('extra')} |")
    raw_only = [key for key, record in records.items() if record["category"] == "gap"
                and (decomposed := [c for k, c in record["cases"].items() if k.endswith("/decomposed")])
                and all(c["status"] == "pass" for c in decomposed)]
    lines += ["", f"Of the {summary['categories']['gap']} gap entries, {len(raw_only)} fail only as plain "
              "torch.export saves them: their run_decompositions() form converts and matches on both runtimes "
              "(a missing decomposition rule, not a missing lowering)."]
    lines += ["", "Out of scope, by reason:", "", "| reason | entries | meaning |", "|---|---:|---|"]
    for scope, count in summary["out_of_scope"].items():
        lines.append(f"| `{scope}` | {count} | {SCOPE_TEXT.get(scope, '')} |")

    lines += ["", "### Operators tico-run has no lowering for", "",
              "Each operator key with the number of entries that hit it (in any case, either saved form) and "
              "tico-run's reason.", "", "| operator | entries | reason | entries hitting it |", "|---|---:|---|---|"]
    by_op: dict[str, dict] = {}
    for key, record in records.items():
        for case in record.get("cases", {}).values():
            found = dict(case.get("ops", {}))
            if "refusal" in case:
                found["(refused)"] = case["refusal"]
            for op, why in found.items():
                slot = by_op.setdefault(op, {"keys": [], "why": set()})
                if key not in slot["keys"]:
                    slot["keys"].append(key)
                slot["why"].add(why)
    for op, slot in sorted(by_op.items(), key=lambda item: (-len(item[1]["keys"]), item[0])):
        lines.append(f"| `{op}` | {len(slot['keys'])} | {_cell('; '.join(sorted(slot['why'])))} | "
                     f"{_cell(', '.join(slot['keys']))} |")

    focus = {key for key in records if key in entries() and in_focus(entries()[key])}
    lines += ["", "### The view / alias / convenience family", "",
              "| entry | category | details |", "|---|---|---|"]
    for key in records:
        if key not in focus:
            continue
        record = records[key]
        lines.append(f"| `{key}` | {record['category']} | {_cell(_details(key, record))} |")

    lines += ["", "### Bugs", "", "A case converted but a runtime failed or disagreed with eager PyTorch "
              "(rtol = atol = 1e-5), or the conversion failed without listing unsupported operators. "
              "**onert 0.2's limit** marks an entry that converts and matches on the built-in runtime and that "
              "onert cannot run (`op_sweep.ONERT_LIMITS`, with the reason).", "",
              "| entry | case | stage | error | sample |", "|---|---|---|---|---|"]
    for key, record in records.items():
        if record.get("stage") == "sweep":
            lines.append(f"| `{key}` | - | sweep | {_cell(record['reason'])} | |")
        for case_key, case in record.get("cases", {}).items():
            if case["status"] == "bug":
                sample = record.get("samples", {}).get(case_key.split("/")[0], "")
                error = case["error"]
                if key in ONERT_LIMITS:
                    error = f"**onert 0.2's limit**: {ONERT_LIMITS[key]}. Recorded: {error}"
                lines.append(f"| `{key}` | {case_key} | {case['stage']} | {_cell(error)} | {_cell(sample)} |")

    lines += ["", "### Every gap", "", "| entry | cases refused: operators |", "|---|---|"]
    for key, record in records.items():
        if record["category"] == "gap":
            lines.append(f"| `{key}` | {_cell(_details(key, record, with_reason=False))} |")

    lines += ["", "### Out of scope", "", "| entry | reason | details |", "|---|---|---|"]
    for key, record in records.items():
        if record["category"] == "out_of_scope":
            lines.append(f"| `{key}` | `{record['scope']}` | {_cell(record['reason'])} |")
    lines += ["", DOC_END]
    return "\n".join(lines) + "\n"


def _details(key: str, record: dict, with_reason: bool = True) -> str:
    if record["category"] == "out_of_scope":
        return f"{record['scope']}: {record['reason']}"
    parts = []
    for case_key, case in record.get("cases", {}).items():
        if case["status"] == "gap" and "refusal" in case:
            parts.append(f"{case_key}: refused: {case['refusal']}")
        elif case["status"] == "gap":
            parts.append(f"{case_key}: " + ", ".join(f"`{op}` ({why})" for op, why in case["ops"].items()))
        elif case["status"] == "bug":
            parts.append(f"{case_key}: {case['stage']}: {case['error']}")
    if with_reason and key in DELIBERATE_GAPS:
        parts.insert(0, f"**why**: {DELIBERATE_GAPS[key]}")
    return "; ".join(parts) if parts else "every case passes on both runtimes"


def write_report(path: Path = DOC_FILE) -> None:
    text = path.read_text()
    begin, end = text.index(DOC_BEGIN), text.index(DOC_END) + len(DOC_END) + 1
    path.write_text(text[:begin] + report(load_status()) + text[end:])


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------


def _worker(keys: list[str], workdir: str, queue) -> None:
    tools = Tools.from_env()
    onert = OnertWorker()
    torch.set_num_threads(1)
    try:
        for key in keys:
            started = time.monotonic()
            try:
                record = classify(entries()[key], tools, onert, Path(workdir))
            except Exception as error:  # noqa: BLE001 - a sweep bug; keep going
                record = {"kind": entries()[key].kind, "category": "bug", "stage": "sweep",
                          "reason": f"the sweep itself failed: {type(error).__name__}: {first_line(error)}",
                          "traceback": traceback.format_exc()[-2000:]}
            queue.put((key, record, time.monotonic() - started))
    finally:
        onert.close()
        queue.put(None)


def sweep(keys: list[str], jobs: int, workdir: Path, verbose: bool = True) -> dict[str, dict]:
    import multiprocessing

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    shards = [keys[i::jobs] for i in range(jobs)]
    processes = [context.Process(target=_worker, args=(shard, str(workdir), queue)) for shard in shards if shard]
    for process in processes:
        process.start()
    records: dict[str, dict] = {}
    running = len(processes)
    while running:
        item = queue.get()
        if item is None:
            running -= 1
            continue
        key, record, seconds = item
        records[key] = record
        if verbose:
            print(f"[{len(records)}/{len(keys)}] {key}: {record['category']}"
                  f"{' (' + record['scope'] + ')' if record.get('scope') else ''} {seconds:.1f} s", flush=True)
    for process in processes:
        process.join()
    missing = [key for key in keys if key not in records]
    if missing:
        raise RuntimeError(f"sweep workers died before classifying {missing}")
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="entry keys to classify (default: all)")
    parser.add_argument("--write", action="store_true", help=f"write (or with --only, merge into) {STATUS_FILE.name}")
    parser.add_argument("--json", type=Path, help="also write the records classified by this run here")
    parser.add_argument("--workdir", type=Path, help="keep the cases' files under this directory")
    parser.add_argument("--from-json", type=Path, help="take the records from a --json file instead of classifying")
    parser.add_argument("--report", action="store_true", help=f"rewrite the generated part of {DOC_FILE.name} from the status file")
    options = parser.parse_args(argv)
    if options.from_json:
        records = json.loads(options.from_json.read_text())
        if options.write:
            merged = load_status()["entries"] if STATUS_FILE.exists() else {}
            merged.update(records)
            write_status(merged)
        if options.report:
            write_report()
        print(json.dumps(summarize(records), indent=1))
        return 0
    if options.report and not options.write:
        write_report()
        return 0

    keys = list(entries())
    if options.only:
        unknown = [key for key in options.only if key not in entries()]
        if unknown:
            parser.error(f"unknown entries: {unknown}")
        keys = options.only
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="op-sweep-") as scratch:
        records = sweep(keys, options.jobs, options.workdir or Path(scratch))
    elapsed = time.monotonic() - started
    if options.json:
        options.json.write_text(json.dumps(records, indent=1) + "\n")
    if options.write:
        merged = load_status()["entries"] if options.only and STATUS_FILE.exists() else {}
        merged.update(records)
        write_status(merged)
        if options.report:
            write_report()
    print(json.dumps(summarize(records), indent=1))
    print(f"{len(keys)} entries in {elapsed:.0f} s with {options.jobs} jobs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
