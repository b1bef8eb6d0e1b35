"""End-to-end parity: PyTorch eager vs. tico-run's Circle output on onert, and vs. the evaluator.

For every case in ``modules.py`` and each saved form of its program (the plain
``torch.export`` result and its ``run_decompositions()`` form, since users save
both):

1. eager outputs under ``torch.no_grad()`` in eval mode (the reference);
2. ``torch.export.export`` (with dynamic shapes when the case has them) and
   ``torch.export.save`` into a temporary directory;
3. ``tico-run --pipeline default.yaml m.pt2 -o m.circle``;
4. the Circle file decoded with the independent ``circle_schema`` package and
   checked structurally (identifier, version, one subgraph, interface tensors);
5. the model run on onert and every output compared with eager (values, shape,
   dtype); dynamic cases also run a second, unseen size in a fresh session;
6. ``tico-run --evaluate`` before any pass and after the pipeline's ATen stages
   (``--evaluate-after frontend --evaluate-after end``, one run for both),
   compared with eager the same way;
7. the same Circle file run on tico's built-in interpreter (``tico-circle run``),
   a second runtime independent of onert, compared with eager the same way.  It
   also covers what onert cannot run (Circle extension ops), where eager is the
   only reference.

Half-precision programs follow the default pipeline's dtype policy
(``half-precision-policy``, docs/passes.md): the Circle model computes in
float32 and its interface is float32 where the program has float16 or
bfloat16 user inputs and outputs.  The Circle runtimes and the evaluator after
the pipeline are fed float32 copies of the inputs and compared with the eager
outputs widened to float32 (``InputSet.circle_*``); cases with
``float32_reference = True`` are compared with eager PyTorch on a float32 copy
of the module instead (``module.float()``, the policy's numerical model).  The
checks that run the program in its own precision (export round trip, the
evaluator before any pass) compare with the half-precision eager outputs at
``half_rtol`` / ``half_atol`` (default: the case's tolerance).  NumPy has no
bfloat16, so bfloat16 outputs are widened to float32 everywhere (``tico-run
--evaluate`` writes them as float32 too).

Known gaps are strict expected failures declared by the case (see
``case_registry.ExpectedFailure``); the interpreter test honours the
``conversion`` stage (no Circle file, nothing to run) and an ``interpreter``
stage when the registry knows one.

Negative tests check that bad input gives a clear error, a non-zero exit and no
(partial) output file.
"""

from __future__ import annotations

import copy
import re
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.utils import _pytree as pytree

import case_registry
import circle_tools
import modules
from harness import (
    ToolRun,
    assert_outputs_match,
    check_refusal,
    flat_user_inputs,
    require_success,
    run_interpreter,
    run_tico,
    to_numpy,
    with_tool_log,
)

VARIANTS = ("export", "decomposed")


def case_variants(name: str) -> list[str]:
    decompose = getattr(modules.MODULES[name], "decompose", True)
    return list(VARIANTS) if decompose else ["export"]


def interpreter_marks(name: str, variant: str) -> list:
    """Strict xfail marks for the interpreter test (the registry's TESTS predate it)."""
    reasons = [
        failure.reason
        for failure in case_registry.expected_failures(name)
        if variant in failure.variants and failure.stage in ("conversion", "interpreter")
    ]
    return case_registry.xfail_mark(name, variant, reasons)


def cases_for(test: str) -> list:
    """Every (case, saved form) pair, with the case's expected-failure marks for ``test``."""
    params = []
    for name in modules.MODULES:
        for variant in case_variants(name):
            if test == "interpreter" and test not in case_registry.TESTS:
                marks = interpreter_marks(name, variant)
            else:
                marks = case_registry.case_marks(test, name, variant)
            # One xdist group per case and saved form (--dist loadgroup, CMakeLists.txt): its
            # tests run on one worker, so the case is exported, converted and evaluated once.
            group = pytest.mark.xdist_group(f"{name}-{variant}")
            params.append(pytest.param(name, variant, id=f"{name}-{variant}", marks=[*marks, group]))
    return params


# ---------------------------------------------------------------------------
# Running tico-run.
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Preparing a case: eager reference, export, save.
# ---------------------------------------------------------------------------


@dataclass
class InputSet:
    """Flat user inputs (in ExportedProgram order) and the eager outputs they give.

    ``circle_inputs`` / ``circle_outputs`` are what the Circle model takes and
    must produce under the dtype policy (float32 for half-precision values; the
    float32 reference for ``float32_reference`` cases); for other programs they
    are the same arrays.
    """

    inputs: list[np.ndarray]
    outputs: list[np.ndarray]
    circle_inputs: list[np.ndarray]
    circle_outputs: list[np.ndarray]


@dataclass
class PreparedCase:
    name: str
    variant: str
    directory: Path
    pt2: Path
    program: torch.export.ExportedProgram
    first: InputSet
    second: InputSet | None  # only for cases with dynamic shapes
    expected_inputs: list[circle_tools.ExpectedTensor]
    expected_outputs: list[circle_tools.ExpectedTensor]
    rtol: float
    atol: float
    half_rtol: float  # for checks computed in the program's own (half) precision
    half_atol: float
    conversion: ToolRun | None = None  # filled on first use, then shared
    # The file onert runs when the default one stores float16 weights (onert 0.2 cannot
    # dequantize FLOAT16): converted with float16_weights=false, on first use.
    onert_conversion: ToolRun | None = None
    # tico-run --evaluate runs by (input set label, points), shared by the two evaluator tests.
    evaluations: dict = field(default_factory=dict)
    circle: Path = field(init=False)

    def __post_init__(self) -> None:
        self.circle = self.directory / "model.circle"


def circle_array(array: np.ndarray) -> np.ndarray:
    """The array as the Circle interface carries it under the default dtype policy (float16 -> float32)."""
    return array.astype(np.float32) if array.dtype == np.float16 else array


def _float32_copy(value):
    """Half-precision tensors of an input tree as float32 (others unchanged)."""
    if isinstance(value, torch.Tensor) and value.dtype in (torch.float16, torch.bfloat16):
        return value.float()
    return value


def eager_input_set(module: torch.nn.Module, program, args: tuple, kwargs: dict) -> InputSet:
    # The inputs as they are before the call: a program may write its inputs in place.
    inputs = [to_numpy(t) for t in flat_user_inputs(program, args, kwargs)]
    with torch.no_grad():
        outputs = [to_numpy(t) for t in pytree.tree_leaves(module(*copy.deepcopy(args), **copy.deepcopy(kwargs)))]
    circle_outputs = [circle_array(array) for array in outputs]
    if getattr(module, "float32_reference", False):
        # The dtype policy's numerical model: the same weights and inputs, computed in float32.
        wide = copy.deepcopy(module).float()
        wide_args, wide_kwargs = pytree.tree_map(_float32_copy, copy.deepcopy((args, kwargs)))
        with torch.no_grad():
            circle_outputs = [to_numpy(t) for t in pytree.tree_leaves(wide(*wide_args, **wide_kwargs))]
    return InputSet(
        inputs=inputs,
        outputs=outputs,
        circle_inputs=[circle_array(array) for array in inputs],
        circle_outputs=circle_outputs,
    )


def _interface(values: list, examples: list[np.ndarray]) -> list[circle_tools.ExpectedTensor]:
    """Expected Circle interface tensors from the exported fake tensors and example arrays."""
    expected = []
    for fake, example in zip(values, examples):
        dynamic = [not isinstance(dim, int) for dim in fake.shape]
        expected.append(circle_tools.ExpectedTensor(list(example.shape), dynamic, example.dtype))
    return expected


def _user_io_fakes(program: torch.export.ExportedProgram) -> tuple[list, list]:
    signature = program.graph_signature
    placeholders = {node.name: node for node in program.graph.nodes if node.op == "placeholder"}
    inputs = [placeholders[name].meta["val"] for name in signature.user_inputs]
    output_node = next(node for node in program.graph.nodes if node.op == "output")
    user_outputs = [
        arg
        for arg, spec in zip(output_node.args[0], signature.output_specs)
        if spec.kind == torch.export.graph_signature.OutputKind.USER_OUTPUT
    ]
    return inputs, [arg.meta["val"] for arg in user_outputs]


def prepare_case(name: str, variant: str, directory: Path) -> PreparedCase:
    module = modules.build_module(name)
    args, kwargs = module.get_example_inputs()
    dynamic_shapes = module.get_dynamic_shapes() if hasattr(module, "get_dynamic_shapes") else None
    with torch.no_grad():
        program = torch.export.export(module, args, kwargs, dynamic_shapes=dynamic_shapes)
    if variant == "decomposed":
        program = program.run_decompositions()

    first = eager_input_set(module, program, args, kwargs)
    second = None
    if dynamic_shapes is not None:
        second_args, second_kwargs = module.get_second_inputs()
        second = eager_input_set(module, program, second_args, second_kwargs)

    rtol = getattr(module, "rtol", modules.DEFAULT_RTOL)
    atol = getattr(module, "atol", modules.DEFAULT_ATOL)
    input_fakes, output_fakes = _user_io_fakes(program)
    assert len(input_fakes) == len(first.inputs), f"{name}: {len(input_fakes)} user inputs, {len(first.inputs)} arrays"
    assert len(output_fakes) == len(first.outputs), f"{name}: {len(output_fakes)} user outputs, {len(first.outputs)} eager"

    directory.mkdir(parents=True, exist_ok=True)
    pt2 = directory / "model.pt2"
    torch.export.save(program, str(pt2))
    return PreparedCase(
        name=name,
        variant=variant,
        directory=directory,
        pt2=pt2,
        program=program,
        first=first,
        second=second,
        expected_inputs=_interface(input_fakes, first.circle_inputs),
        expected_outputs=_interface(output_fakes, first.circle_outputs),
        rtol=rtol,
        atol=atol,
        half_rtol=getattr(module, "half_rtol", rtol),
        half_atol=getattr(module, "half_atol", atol),
    )


class Workspace:
    """Session-wide cache: each case is exported once and converted at most once."""

    def __init__(self, root: Path):
        self.root = root
        self._cases: dict[tuple[str, str], PreparedCase] = {}

    def case(self, name: str, variant: str) -> PreparedCase:
        key = (name, variant)
        if key not in self._cases:
            self._cases[key] = prepare_case(name, variant, self.root / f"{name}-{variant}")
        return self._cases[key]

    def converted(self, name: str, variant: str, tico_run: Path, pipeline: Path) -> PreparedCase:
        """The case with its Circle file; fails the calling test (with stderr) when conversion fails."""
        case = self.case(name, variant)
        if case.conversion is None:
            case.conversion = run_tico(tico_run, ["--pipeline", str(pipeline), str(case.pt2), "-o", str(case.circle)])
        if case.conversion.returncode != 0:
            check_refusal(case.conversion, case.circle, case_registry.refusal_reasons(name, variant),
                          f"{name} ({variant})")
        require_success(case.conversion, f"conversion of {name} ({variant})")
        assert case.circle.is_file(), f"tico-run exited 0 but wrote no {case.circle}\n{case.conversion.describe()}"
        return case


    def converted_for_onert(self, name: str, variant: str, tico_run: Path, pipeline: Path):
        """The case, the Circle file onert runs and that file's model (loaded once).

        That is the default file unless it stores float16 weights (a half-precision checkpoint:
        FLOAT16 + DEQUANTIZE, which onert 0.2 refuses at load); then it is the same conversion
        with ``--config float16_weights=false``, the documented setting for onert.
        """
        case = self.converted(name, variant, tico_run, pipeline)
        model = circle_tools.load_model(case.circle)
        if not circle_tools.has_float16_weights(model):
            return case, case.circle, model
        path = case.directory / "onert.circle"
        if case.onert_conversion is None:
            case.onert_conversion = run_tico(tico_run, ["--pipeline", str(pipeline), "--config", "float16_weights=false",
                                                        str(case.pt2), "-o", str(path)])
        require_success(case.onert_conversion, f"conversion of {name} ({variant}) with float32 weights for onert")
        model = circle_tools.load_model(path)
        assert not circle_tools.has_float16_weights(model), "float16_weights=false kept FLOAT16"
        return case, path, model


@pytest.fixture(scope="session")
def workspace(tmp_path_factory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("e2e"))


# ---------------------------------------------------------------------------
# Comparison.
# ---------------------------------------------------------------------------


def input_sets(case: PreparedCase) -> list[tuple[str, InputSet]]:
    sets = [("example inputs", case.first)]
    if case.second is not None:
        sets.append(("second (unseen) inputs", case.second))
    return sets


# ---------------------------------------------------------------------------
# Parity tests.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, variant", cases_for("export_only"))
def test_export_only(workspace: Workspace, name: str, variant: str):
    """Torch side alone: the saved .pt2 loads back and reproduces eager (needs no tico-run)."""
    case = workspace.case(name, variant)
    loaded = torch.export.load(str(case.pt2)).module()
    for label, inputs in input_sets(case):
        # Copies: the program may write its inputs, and the arrays are shared by later tests.
        flat = [torch.from_numpy(array.copy()) for array in inputs.inputs]
        in_spec = case.program.call_spec.in_spec
        args, kwargs = pytree.tree_unflatten(flat, in_spec)
        with torch.no_grad():
            outputs = [to_numpy(t) for t in pytree.tree_leaves(loaded(*args, **kwargs))]
        assert_outputs_match(outputs, inputs.outputs, case.half_rtol, case.half_atol, f"{name}-{variant} reloaded, {label}")


@pytest.mark.parametrize("name, variant", cases_for("circle_structure"))
def test_circle_structure(workspace: Workspace, tico_run: Path, pipeline: Path, name: str, variant: str):
    case = workspace.converted(name, variant, tico_run, pipeline)
    model = circle_tools.load_model(case.circle)
    with_tool_log(
        lambda: circle_tools.check_model(model, case.expected_inputs, case.expected_outputs),
        case.conversion,
        f"Circle operators: {circle_tools.operator_names(model)}",
    )


@pytest.mark.parametrize("name, variant", cases_for("onert"))
def test_onert(workspace: Workspace, tico_run: Path, pipeline: Path, name: str, variant: str):
    from onert import infer

    case, circle, model = workspace.converted_for_onert(name, variant, tico_run, pipeline)
    operators = circle_tools.operator_names(model)
    for label, inputs in input_sets(case):
        # A fresh session per input set: the second set checks a size the model
        # was never prepared for.
        session = infer.session(str(circle))
        try:
            outputs = [np.array(out) for out in session.infer([array.copy() for array in inputs.circle_inputs])]
        except Exception as error:  # onert reports failures as OnertError/ValueError
            raise AssertionError(
                f"onert failed on {name}-{variant} ({label}): {error}\nCircle operators: {operators}\n{case.conversion.describe()}"
            ) from None
        with_tool_log(
            lambda: assert_outputs_match(outputs, inputs.circle_outputs, case.rtol, case.atol, f"onert {name}-{variant}, {label}"),
            case.conversion,
            f"Circle operators: {operators}",
        )


def _evaluate(case: PreparedCase, tico_run: Path, pipeline: Path, arrays: list[np.ndarray], label: str,
              points: tuple[str, ...]) -> tuple[ToolRun, dict[str, list[np.ndarray]]]:
    """One ``tico-run --evaluate`` run with ``--evaluate-after`` each of ``points``: its outputs by point."""
    directory = case.directory / f"evaluate-{'-'.join(points)}-{label.split()[0]}"
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir()
    arguments = ["--pipeline", str(pipeline), "--evaluate"]
    for point in points:
        arguments += ["--evaluate-after", point]
    for position, array in enumerate(arrays):
        path = directory / f"in{position}.npy"
        np.save(path, array)
        arguments += ["--input", str(path)]
    out_dir = directory / "outputs"
    arguments += ["--output-dir", str(out_dir), str(case.pt2)]
    run = run_tico(tico_run, arguments)
    outputs = {}
    if run.returncode == 0:
        for point in points:
            files = sorted(out_dir.joinpath(point).glob("out*.npy"), key=lambda f: int(f.stem[3:]))
            outputs[point] = [np.load(file) for file in files]
    return run, outputs


def evaluated(case: PreparedCase, tico_run: Path, pipeline: Path, inputs: InputSet, label: str,
              point: str) -> tuple[ToolRun, list[np.ndarray]]:
    """``tico-run --evaluate`` after ``point`` ('frontend': before any pass; 'end': after the ATen stages).

    Before any pass the graph computes in the program's own precision; after the
    pipeline it is the Circle model's float32 graph (dtype policy), fed float32
    copies of half-precision inputs.  When both points take the same arrays, one
    run evaluates both (the LibTorch evaluator's start-up is most of a small
    case's cost) and the two tests share it; when that run fails, each point is
    evaluated on its own so a test fails (or xfails) only for its own point.
    """
    arrays = inputs.inputs if point == "frontend" else inputs.circle_inputs
    shared = all(a is b for a, b in zip(inputs.inputs, inputs.circle_inputs))
    for points in ((("frontend", "end"),) if shared else ()) + ((point,),):
        key = (label, points)
        if key not in case.evaluations:
            case.evaluations[key] = _evaluate(case, tico_run, pipeline, arrays, label, points)
        run, outputs = case.evaluations[key]
        if run.returncode == 0:
            return run, outputs[point]
    return run, []


def check_evaluator(case: PreparedCase, tico_run: Path, pipeline: Path, inputs: InputSet, label: str, point: str):
    run, outputs = evaluated(case, tico_run, pipeline, inputs, label, point)
    require_success(run, f"evaluation of {case.name}-{case.variant} after {point} ({label})")
    frontend = point == "frontend"
    expected = inputs.outputs if frontend else inputs.circle_outputs
    rtol, atol = (case.half_rtol, case.half_atol) if frontend else (case.rtol, case.atol)
    assert len(outputs) == len(expected), f"evaluator wrote {len(outputs)} outputs, expected {len(expected)}\n{run.describe()}"
    with_tool_log(
        lambda: assert_outputs_match(outputs, expected, rtol, atol, f"evaluator after {point} {case.name}-{case.variant}, {label}"),
        run,
    )


@pytest.mark.parametrize("name, variant", cases_for("evaluator_frontend"))
def test_evaluator_frontend(workspace: Workspace, tico_run: Path, pipeline: Path, name: str, variant: str):
    """The imported graph before any pass: checks the frontend apart from the lowering."""
    case = workspace.case(name, variant)
    for label, inputs in input_sets(case):
        check_evaluator(case, tico_run, pipeline, inputs, label, "frontend")


@pytest.mark.parametrize("name, variant", cases_for("evaluator_pipeline"))
def test_evaluator_pipeline(workspace: Workspace, tico_run: Path, pipeline: Path, name: str, variant: str):
    """The graph after the pipeline's ATen stages: checks the passes."""
    case = workspace.case(name, variant)
    for label, inputs in input_sets(case):
        check_evaluator(case, tico_run, pipeline, inputs, label, "end")


@pytest.mark.parametrize("name, variant", cases_for("interpreter"))
def test_interpreter(workspace: Workspace, tico_run: Path, pipeline: Path, tico_circle: Path, name: str, variant: str):
    """The converted model on tico's built-in interpreter, a second runtime next to onert."""
    case = workspace.converted(name, variant, tico_run, pipeline)
    for label, inputs in input_sets(case):
        directory = case.directory / f"interpreter-{label.split()[0]}"
        run, outputs = run_interpreter(tico_circle, case.circle, inputs.circle_inputs, directory)
        if run.returncode != 0:
            operators = circle_tools.operator_names(circle_tools.load_model(case.circle))
            pytest.fail(
                f"the interpreter failed on {name}-{variant} ({label})\nCircle operators: {operators}\n{run.describe()}",
                pytrace=False,
            )
        with_tool_log(
            lambda: assert_outputs_match(outputs, inputs.circle_outputs, case.rtol, case.atol, f"interpreter {name}-{variant}, {label}"),
            run,
            case.conversion.describe(),
        )


# ---------------------------------------------------------------------------
# Portability: the onert fusion quirk the default pipeline's portability stage avoids.
# ---------------------------------------------------------------------------


def test_onert_needs_isolated_activated_outputs(workspace: Workspace, tmp_path: Path, tico_run: Path, pipeline: Path):
    """Without output isolation onert 0.2 returns relu(y) for y; with it, y.

    (The quirk needs the RELU's own result to be consumed inside the model: when it is itself
    a model output, onert does not fuse.)

    The default pipeline's portability stage runs isolate-read-outputs, which isolates every
    output another operator reads (an activation is one); isolate-activated-outputs alone, for
    pipelines that want only that, must fix it too. The default pipeline's result is checked by
    the ReturnedLinearAlsoActivated case; this test proves the isolation is what makes it right
    (if onert is ever fixed, it fails and the stage can become optional).
    """
    from onert import infer

    case = workspace.case("ReturnedLinearAlsoActivated", "export")
    text = pipeline.read_text()
    assert "isolate-read-outputs" in text
    head = text[: text.index("  - name: portability")]
    plain = tmp_path / "no-portability.yaml"
    plain.write_text(head)
    activated_only = tmp_path / "activated-only.yaml"
    activated_only.write_text(
        head + "  - name: portability\n    kind: circle\n    strategy: once\n    passes:\n      - isolate-activated-outputs\n"
    )
    outputs = {}
    for label, manifest in (("default", pipeline), ("activated only", activated_only), ("without portability", plain)):
        circle = tmp_path / f"{label.replace(' ', '-')}.circle"
        require_success(run_tico(tico_run, ["--pipeline", str(manifest), str(case.pt2), "-o", str(circle)]), label)
        session = infer.session(str(circle))
        outputs[label] = [np.array(o) for o in session.infer([a.copy() for a in case.first.inputs])]
    linear = case.first.outputs[0]
    assert (linear < 0).any(), "the example must have negative pre-activations to show the bug"
    np.testing.assert_allclose(outputs["default"][0], linear, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outputs["activated only"][0], linear, rtol=1e-5, atol=1e-5)
    # onert writes the fused activation (and what follows it) over the returned tensor.
    assert not np.allclose(outputs["without portability"][0], linear, rtol=1e-5, atol=1e-5), (
        "onert computed the returned tensor right without output isolation: its quirk is gone"
    )


# ---------------------------------------------------------------------------
# Circle extension operators: the converter emits them for these ATen ops, and
# the interpreter must agree with eager where onert is not the only witness.
# ---------------------------------------------------------------------------


class _RmsNormRank3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.RMSNorm(16, eps=1e-6)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)

    def forward(self, x):
        return self.norm(x)


class _RmsNormRank2(_RmsNormRank3):
    """A rank the Circle kernels do not take directly: the lowering reshapes around RMS_NORM."""


class _InstanceNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.InstanceNorm2d(4, affine=True, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return torch.relu(self.norm(x))


EXTENSION_CASES = {
    # name: (module class, example input shape, extension op the model must contain, onert runs it)
    "rms_norm-rank3": (_RmsNormRank3, (2, 5, 16), "RMS_NORM", True),
    "rms_norm-rank2": (_RmsNormRank2, (7, 16), "RMS_NORM", True),
    # onert's CPU backend has no INSTANCE_NORM kernel ("KernelGenerator: NYI for operation
    # 'InstanceNorm'"): the default pipeline's forms and portability stages write it out
    # (onert-op-forms), so the operator itself is checked on the file converted without them,
    # where the interpreter is the only runtime.
    "instance_norm": (_InstanceNorm, (2, 4, 6, 5), "INSTANCE_NORM", False),
}

# Extension operators the default pipeline's portability stage replaces by operators onert runs.
PORTABLE_FORMS = {"INSTANCE_NORM": {"MEAN", "RSQRT"}}


def _without_stages(pipeline: Path, stages: set[str], directory: Path) -> Path:
    import yaml

    doc = yaml.safe_load(pipeline.read_text())
    doc["stages"] = [s for s in doc["stages"] if s.get("name") not in stages]
    out = directory / "without-onert-forms.yaml"
    out.write_text(yaml.safe_dump(doc, sort_keys=False))
    return out


@pytest.mark.parametrize("case", list(EXTENSION_CASES))
def test_interpreter_extension_ops(tmp_path: Path, tico_run: Path, pipeline: Path, tico_circle: Path, case: str):
    from onert import infer

    module_class, shape, op, onert_runs = EXTENSION_CASES[case]
    torch.manual_seed(0)
    module = module_class().eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        expected = [to_numpy(module(x))]
        program = torch.export.export(module, (x,))
    pt2, circle = tmp_path / "model.pt2", tmp_path / "model.circle"
    torch.export.save(program, str(pt2))
    with_op = pipeline if op not in PORTABLE_FORMS else _without_stages(pipeline, {"forms", "portability"}, tmp_path)
    conversion = run_tico(tico_run, ["--pipeline", str(with_op), str(pt2), "-o", str(circle)])
    require_success(conversion, f"conversion of {case}")
    operators = circle_tools.operator_names(circle_tools.load_model(circle))
    assert op in operators, f"{case}: expected a {op} operator, the model has {operators}"

    run, outputs = run_interpreter(tico_circle, circle, [to_numpy(x)], tmp_path / "interpreter")
    require_success(run, f"interpreter on {case}")
    assert_outputs_match(outputs, expected, 1e-5, 1e-5, f"interpreter {case} ({operators})")
    if onert_runs:  # a third opinion on the same file
        onert_outputs = [np.array(o) for o in infer.session(str(circle)).infer([to_numpy(x)])]
        assert_outputs_match(onert_outputs, expected, 1e-5, 1e-5, f"onert {case} ({operators})")
    if op in PORTABLE_FORMS:
        # The default file: the operator written out, run by the interpreter and by onert.
        portable = tmp_path / "portable.circle"
        require_success(run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(portable)]),
                        f"conversion of {case} (default pipeline)")
        operators = circle_tools.operator_names(circle_tools.load_model(portable))
        assert op not in operators and PORTABLE_FORMS[op] <= set(operators), f"{case}: {operators}"
        run, outputs = run_interpreter(tico_circle, portable, [to_numpy(x)], tmp_path / "interpreter-portable")
        require_success(run, f"interpreter on {case} (default pipeline)")
        assert_outputs_match(outputs, expected, 1e-5, 1e-5, f"interpreter {case} ({operators})")
        onert_outputs = [np.array(o) for o in infer.session(str(portable)).infer([to_numpy(x)])]
        assert_outputs_match(onert_outputs, expected, 1e-5, 1e-5, f"onert {case} ({operators})")


# ---------------------------------------------------------------------------
# Harness self-check: onert and circle_schema on a model the converter did not write.
# ---------------------------------------------------------------------------


def test_onert_runs_handmade_circle(tmp_path: Path):
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((4, 6)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    path = tmp_path / "handmade.circle"
    path.write_bytes(circle_tools.build_handmade_model(weight, bias))

    float32 = np.dtype(np.float32)
    circle_tools.check_model(
        circle_tools.load_model(path),
        [circle_tools.ExpectedTensor([2, 6], [True, False], float32)],
        [circle_tools.ExpectedTensor([2, 4], [True, False], float32)],
    )
    from onert import infer

    for batch in (2, 5):  # the second size checks dynamic-batch execution
        x = rng.standard_normal((batch, 6)).astype(np.float32)
        (out,) = infer.session(str(path)).infer([x])
        assert_outputs_match([out], [2.0 * (x @ weight.T + bias)], 1e-5, 1e-5, f"hand-made model, batch {batch}")


def test_interpreter_runs_handmade_circle(tmp_path: Path, tico_circle: Path):
    """The interpreter on a file written by circle_schema, not by tico's own writer."""
    rng = np.random.default_rng(1)
    weight = rng.standard_normal((4, 6)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    path = tmp_path / "handmade.circle"
    path.write_bytes(circle_tools.build_handmade_model(weight, bias))
    for batch in (2, 5):  # the dynamic batch bound from the input
        x = rng.standard_normal((batch, 6)).astype(np.float32)
        run, outputs = run_interpreter(tico_circle, path, [x], tmp_path / f"batch{batch}")
        require_success(run, f"interpreter on the hand-made model, batch {batch}")
        assert_outputs_match(outputs, [2.0 * (x @ weight.T + bias)], 1e-5, 1e-5, f"interpreter hand-made model, batch {batch}")


@pytest.mark.parametrize(
    "mutation, message",
    [
        (lambda x: [x, x], "takes 1 input"),
        (lambda x: [x.astype(np.int32)], "dtype int32 given, the model expects float32"),
        (lambda x: [x.reshape(-1)], "rank 1 given"),
        (lambda x: [x[:, :5]], "dimension 1 is 5, the model expects 6"),
    ],
    ids=["count", "dtype", "rank", "static-dim"],
)
def test_interpreter_rejects_bad_inputs(tmp_path: Path, tico_circle: Path, mutation, message: str):
    """Wrong inputs: a clear message naming the problem, a non-zero exit, no output files."""
    rng = np.random.default_rng(2)
    path = tmp_path / "handmade.circle"
    path.write_bytes(circle_tools.build_handmade_model(np.ones((4, 6), np.float32), np.zeros(4, np.float32)))
    run, outputs = run_interpreter(tico_circle, path, mutation(rng.standard_normal((2, 6)).astype(np.float32)), tmp_path / "run")
    assert run.returncode > 0, f"expected a non-zero exit (not a signal)\n{run.describe()}"
    assert message in run.stderr, f"stderr lacks {message!r}\n{run.describe()}"
    for marker in CRASH_MARKERS:
        assert marker not in run.stderr, f"stderr shows a crash ({marker!r})\n{run.describe()}"
    written = sorted((tmp_path / "run" / "outputs").glob("*")) if (tmp_path / "run" / "outputs").exists() else []
    assert not written and not outputs, f"outputs written despite the error: {written}\n{run.describe()}"


# ---------------------------------------------------------------------------
# Error handling: clear message, non-zero exit, no output file, existing output untouched.
# ---------------------------------------------------------------------------

CRASH_MARKERS = ("terminate called", "Segmentation fault", "core dumped", "AddressSanitizer")


def assert_clean_failure(run: ToolRun) -> None:
    """A rejected input: ordinary non-zero exit with the CLI's error line, no crash."""
    assert run.returncode > 0, f"expected a non-zero exit (not a signal)\n{run.describe()}"
    assert "tico-run: error:" in run.stderr, f"stderr lacks 'tico-run: error:'\n{run.describe()}"
    for marker in CRASH_MARKERS:
        assert marker not in run.stderr, f"stderr shows a crash ({marker!r})\n{run.describe()}"


def assert_no_stray_files(directory: Path, allowed: set[str], run: ToolRun) -> None:
    """Atomic writing leaves neither the output nor a temporary file behind on failure."""
    present = {p.name for p in directory.iterdir()}
    assert present <= allowed, f"unexpected files after a failed run: {sorted(present - allowed)}\n{run.describe()}"


def lists_op_with_count(text: str, op: str, count: int) -> bool:
    """True when ``op`` is named together with ``count`` in one item of the message.

    An item is a line, or a comma/semicolon separated part of a line, so both
    one-op-per-line listings and "a x2, b x1" one-liners are understood, and a
    count next to a different op does not match.
    """
    for line in text.splitlines():
        for item in re.split(r"[,;]", line):
            if op in item and count in [int(n) for n in re.findall(r"\d+", item.replace(op, " "))]:
                return True
    return False


@pytest.fixture(scope="module")
def unsupported_pt2(tmp_path_factory) -> Path:
    """A saved program with two linalg_inv and one linalg_det (no lowering exists for either)."""
    module = modules.UnsupportedOps().eval()
    args, kwargs = module.get_example_inputs()
    with torch.no_grad():
        program = torch.export.export(module, args, kwargs)
    # Self-check: the exported graph really has the op counts the test expects.
    seen: dict[str, int] = {}
    for node in program.graph.nodes:
        if node.op == "call_function":
            op = str(node.target).split(".")[1]  # aten.<op>.<overload>
            seen[op] = seen.get(op, 0) + 1
    for op, count in modules.UnsupportedOps.EXPECTED_UNSUPPORTED.items():
        assert seen.get(op) == count, f"export gave {seen}, expected {op} x{count}"
    path = tmp_path_factory.mktemp("unsupported") / "unsupported.pt2"
    torch.export.save(program, str(path))
    return path


def _copy_into(source: Path, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / source.name
    shutil.copyfile(source, target)
    return target


def test_unsupported_ops_listed_with_counts(tmp_path: Path, unsupported_pt2: Path, tico_run: Path, pipeline: Path):
    pt2 = _copy_into(unsupported_pt2, tmp_path)
    output = tmp_path / "out.circle"
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(output)])
    assert_clean_failure(run)
    for op, count in modules.UnsupportedOps.EXPECTED_UNSUPPORTED.items():
        assert lists_op_with_count(run.stderr, op, count), f"stderr does not list {op} with count {count}\n{run.describe()}"
    assert not output.exists(), f"{output} was created by a failed conversion\n{run.describe()}"
    assert_no_stray_files(tmp_path, {pt2.name}, run)


def test_failed_conversion_leaves_existing_output_untouched(tmp_path: Path, unsupported_pt2: Path, tico_run: Path, pipeline: Path):
    pt2 = _copy_into(unsupported_pt2, tmp_path)
    output = tmp_path / "out.circle"
    previous = b"previous output, must survive a failed conversion\n"
    output.write_bytes(previous)
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(pt2), "-o", str(output)])
    assert_clean_failure(run)
    assert output.read_bytes() == previous, f"existing {output} was modified by a failed conversion\n{run.describe()}"
    assert_no_stray_files(tmp_path, {pt2.name, output.name}, run)


def _rewrite_archive(source: Path, target: Path, mangle) -> None:
    """Copies a .pt2 zip entry by entry (stored), letting ``mangle`` alter an entry's bytes."""
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as copy:
        for info in original.infolist():
            copy.writestr(info.filename, mangle(info.filename, original.read(info.filename)))


def _corrupt_truncate_half(source: Path, target: Path) -> None:
    data = source.read_bytes()
    target.write_bytes(data[: len(data) // 2])  # loses the zip central directory


def _corrupt_truncate_tail(source: Path, target: Path) -> None:
    data = source.read_bytes()
    target.write_bytes(data[:-10])  # damages only the end-of-central-directory record


def _corrupt_not_a_zip(source: Path, target: Path) -> None:
    target.write_bytes(b"this is not a pt2 archive\n" * 100)


def _corrupt_program_json(source: Path, target: Path) -> None:
    # A valid zip whose ExportedProgram JSON is cut in half.
    _rewrite_archive(source, target, lambda name, data: data[: len(data) // 2] if name.endswith("models/model.json") else data)


def _corrupt_weight_entry(source: Path, target: Path) -> None:
    # A valid zip and JSON whose first weight file is shorter than its tensor needs
    # (by whole float32 elements, so only a size check against the tensor catches it).
    _rewrite_archive(source, target, lambda name, data: data[: len(data) // 8 * 4] if re.search(r"data/weights/weight_0$", name) else data)


CORRUPTIONS = {
    "truncated-half": _corrupt_truncate_half,
    "truncated-tail": _corrupt_truncate_tail,
    "not-a-zip": _corrupt_not_a_zip,
    "bad-program-json": _corrupt_program_json,
    "short-weight-entry": _corrupt_weight_entry,
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_corrupted_pt2_is_rejected(workspace: Workspace, tmp_path: Path, tico_run: Path, pipeline: Path, corruption: str):
    # A real saved program with weights (so there is a weight entry to damage).
    # Precondition: the intact file converts, so the failure below is caused by
    # the corruption and not by, say, a broken pipeline manifest.
    real = workspace.converted("Linear2D", "export", tico_run, pipeline).pt2
    with zipfile.ZipFile(real) as archive:
        assert any(re.search(r"data/weights/weight_0$", n) for n in archive.namelist()), archive.namelist()
    broken = tmp_path / "broken.pt2"
    CORRUPTIONS[corruption](real, broken)
    output = tmp_path / "out.circle"
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(broken), "-o", str(output)])
    assert_clean_failure(run)
    assert not output.exists(), f"{output} was created from a corrupted input\n{run.describe()}"
    assert_no_stray_files(tmp_path, {broken.name}, run)


def test_missing_input_file_is_rejected(tmp_path: Path, tico_run: Path, pipeline: Path):
    output = tmp_path / "out.circle"
    missing = tmp_path / "does-not-exist.pt2"
    run = run_tico(tico_run, ["--pipeline", str(pipeline), str(missing), "-o", str(output)])
    assert_clean_failure(run)
    assert missing.name in run.stderr, f"the error does not name the missing file\n{run.describe()}"
    assert not output.exists(), run.describe()


def test_evaluate_rejects_wrong_input_count(workspace: Workspace, tmp_path: Path, tico_run: Path, pipeline: Path):
    case = workspace.case("AddTensor", "export")  # takes two inputs
    paths = []
    for position, array in enumerate(case.first.inputs):
        paths.append(tmp_path / f"in{position}.npy")
        np.save(paths[-1], array)

    def evaluate(inputs: list[Path], out_dir: Path) -> ToolRun:
        arguments = ["--pipeline", str(pipeline), "--evaluate", "--output-dir", str(out_dir), str(case.pt2)]
        for path in inputs:
            arguments += ["--input", str(path)]
        return run_tico(tico_run, arguments)

    # Precondition: with both inputs the same command works.
    require_success(evaluate(paths, tmp_path / "reference"), "evaluation with the right inputs")
    out_dir = tmp_path / "outputs"
    run = evaluate(paths[:1], out_dir)
    assert_clean_failure(run)
    written = sorted(out_dir.glob("out*.npy")) if out_dir.exists() else []
    assert not written, f"outputs written despite the error: {written}\n{run.describe()}"
