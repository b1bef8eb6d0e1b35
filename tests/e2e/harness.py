"""Helpers shared by the suites that convert with tico-run and run the Circle files.

Used by the e2e parity suite (test_e2e.py) and the real-model suite (tests/models): running
the tools with a timeout and a readable failure, flattening a program's user inputs, running
the built-in interpreter on .npy files, and comparing outputs with eager PyTorch.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.export._tree_utils import reorder_kwargs
from torch.utils import _pytree as pytree

# A conversion of these tiny models takes well under a second; the limit only
# turns a hang into a readable failure.
TICO_RUN_TIMEOUT_S = 300


def require_working_loadgroup(session: pytest.Session) -> None:
    """Fails the run when ``--dist loadgroup`` would not keep an ``xdist_group`` on one worker.

    The suites mark every test of a case with one group so the case is exported, converted and
    evaluated once; pytest-xdist 3.8 does it by appending ``@group`` to each item's node id, which
    pytest 9 ignores (its node ids are built elsewhere), and then every test is scheduled on its
    own without a word. Called from the conftests' ``pytest_collection_finish``.
    """
    config = session.config
    if not getattr(config.option, "loadgroup", False):
        return
    grouped = [item for item in session.items if item.get_closest_marker("xdist_group")]
    if grouped and not any("@" in item.nodeid.rpartition("]")[2] for item in grouped):
        raise pytest.UsageError(
            f"--dist loadgroup has no effect with pytest {pytest.__version__} and this pytest-xdist: node ids carry "
            "no @group suffix (packaging/install-deps.sh pins pytest below 9)"
        )


@dataclass
class ToolRun:
    """One finished tico-run invocation, with everything a failure message needs."""

    command: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def tool(self) -> str:
        return Path(self.command[0]).name if self.command else "tool"

    def describe(self) -> str:
        def tail(text: str, limit: int = 12000) -> str:
            return text if len(text) <= limit else "...(truncated)...\n" + text[-limit:]

        return (
            f"command: {' '.join(self.command)}\n"
            f"exit code: {self.returncode}\n"
            f"--- {self.tool} stderr ---\n{tail(self.stderr) or '(empty)'}\n"
            f"--- {self.tool} stdout ---\n{tail(self.stdout, 4000) or '(empty)'}"
        )


def run_tico(tico_run: Path, arguments: list[str]) -> ToolRun:
    """Runs a tico executable (tico-run or tico-circle) and captures its output."""
    command = [str(tico_run), *arguments]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TICO_RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail(f"{tico_run.name} did not finish in {TICO_RUN_TIMEOUT_S} s: {' '.join(command)}\n{timeout.stderr or ''}")
    return ToolRun(command, done.returncode, done.stdout, done.stderr)


def require_success(run: ToolRun, what: str) -> None:
    if run.returncode != 0:
        pytest.fail(f"{what} failed\n{run.describe()}", pytrace=False)


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()  # NumPy has no bfloat16; float32 holds every value exactly
    # A copy: programs may write their inputs in place, and an array sharing memory with an
    # input tensor would change when eager PyTorch runs the program.
    return tensor.detach().cpu().contiguous().numpy().copy()


def flat_user_inputs(program: torch.export.ExportedProgram, args: tuple, kwargs: dict) -> list[torch.Tensor]:
    """User inputs in the order the exported program (and so the Circle model) takes them."""
    ordered_kwargs = reorder_kwargs(kwargs, program.call_spec.in_spec) if kwargs else {}
    flat, _ = pytree.tree_flatten((args, ordered_kwargs))
    return flat


def assert_outputs_match(actual: list[np.ndarray], expected: list[np.ndarray], rtol: float, atol: float, context: str) -> None:
    """Same number of outputs, and each with the eager shape, dtype and values."""
    assert len(actual) == len(expected), f"{context}: {len(actual)} outputs, eager has {len(expected)}"
    for index, (got, want) in enumerate(zip(actual, expected)):
        got = np.asarray(got)
        where = f"{context}, output {index}"
        assert got.shape == want.shape, f"{where}: shape {got.shape} != eager {want.shape}"
        assert got.dtype == want.dtype, f"{where}: dtype {got.dtype} != eager {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)


def with_tool_log(check, run: ToolRun | None, extra: str = "") -> None:
    """Runs a comparison; on failure re-raises with the tico-run log attached."""
    try:
        check()
    except AssertionError as error:
        log = run.describe() if run is not None else ""
        raise AssertionError(f"{error}\n{extra}\n{log}") from None


def run_interpreter(tico_circle: Path, circle: Path, arrays: list[np.ndarray], directory: Path) -> tuple[ToolRun, list[np.ndarray]]:
    """``tico-circle run`` on .npy copies of ``arrays``; returns the run and out0.npy, out1.npy, ...

    Outputs are read back in order until the first missing index, so a wrong
    output count shows up in the comparison rather than here.
    """
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    arguments = ["run", str(circle)]
    for position, array in enumerate(arrays):
        path = directory / f"in{position}.npy"
        np.save(path, array)
        arguments += ["--input", str(path)]
    out_dir = directory / "outputs"
    arguments += ["--output-dir", str(out_dir)]
    run = run_tico(tico_circle, arguments)
    outputs = []
    while run.returncode == 0 and (out_dir / f"out{len(outputs)}.npy").is_file():
        outputs.append(np.load(out_dir / f"out{len(outputs)}.npy"))
    return run, outputs


def _normalized(text: str) -> str:
    return " ".join(text.split())


_NO_LOWERING = re.compile(r"^(?P<op>\S+) has no Circle lowering: (?P<why>.*)$", re.S)


class ExpectedRefusal(Exception):
    """tico-run refused a conversion with exactly the errors its expected failure names.

    Tests whose expected failure is a refused conversion are marked
    ``xfail(raises=ExpectedRefusal)``: a conversion that fails any other way (a
    crash, a different message, a partial output file) is a plain failure.
    """


def check_refusal(run: ToolRun, output: Path, reasons: list[str], label: str) -> None:
    """A failed conversion: raises ExpectedRefusal if it is the refusal ``reasons`` expect.

    The refusal must be an ordinary error (exit code 1, not a signal), name every
    expected reason in its message, and leave no output file behind; failing any
    other way while reasons are expected fails the test here. With no reasons it
    returns, and the caller reports the conversion failure.
    """
    if not reasons:
        return
    missing = [reason for reason in reasons if not error_states(run.stderr, reason)]
    if not missing and run.returncode == 1 and not output.exists():
        raise ExpectedRefusal("; ".join(reasons))
    pytest.fail(
        f"conversion of {label} failed, but not as expected: exit code {run.returncode}, "
        f"output file left: {output.exists()}, reasons missing from the error: {missing}\n{run.describe()}",
        pytrace=False,
    )


def error_states(stderr: str, reason: str) -> bool:
    """Whether tico-run's error says ``reason``.

    "OP has no Circle lowering: WHY" reasons match the unsupported-op list, one
    line per op: "  OP xCOUNT (node names): WHY". Other reasons must appear verbatim.
    """
    match = _NO_LOWERING.match(reason)
    if match is None:
        return _normalized(reason) in _normalized(stderr)
    line = re.compile(rf"^\s*{re.escape(match['op'])} x\d+ \(.*?\): {re.escape(_normalized(match['why']))}\s*$", re.M)
    return line.search(stderr) is not None


# ---------------------------------------------------------------------------
# Tool fixtures (registered by each suite's conftest.py).
# ---------------------------------------------------------------------------


def _executable_from_env(variable: str, binary: str) -> Path:
    """A tool named by an environment variable; a missing setting is an error, never a skip."""
    value = os.environ.get(variable)
    if not value:
        pytest.fail(f"{variable} is not set: point it at the {binary} binary (CTest sets it)")
    path = Path(value)
    if not os.access(path, os.X_OK):
        pytest.fail(f"{variable}={path} is not an executable file")
    return path


@pytest.fixture(scope="session")
def tico_run() -> Path:
    """The converter binary."""
    return _executable_from_env("TICO_RUN", "tico-run")


@pytest.fixture(scope="session")
def tico_circle() -> Path:
    """tico-circle, whose ``run`` executes a model on the built-in interpreter."""
    return _executable_from_env("TICO_CIRCLE", "tico-circle")


@pytest.fixture(scope="session")
def source_dir() -> Path:
    value = os.environ.get("TICO_SOURCE_DIR")
    # Default: this file lives in <repo>/tests/e2e.
    return Path(value) if value else Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def pipeline(source_dir: Path) -> Path:
    path = source_dir / "configs" / "pipelines" / "default.yaml"
    if not path.is_file():
        pytest.fail(f"pipeline manifest {path} does not exist")
    return path
