#!/usr/bin/env python3
"""Runs the original converter's own op/net test modules through tico.

The original converter (Samsung/TICO) keeps its operator and network tests as small
``nn.Module`` classes under ``test/modules/{op,net}`` of its repository, each with
``get_example_inputs()`` and optionally ``get_dynamic_shapes()`` / ``get_compile_config()`` and
tags (skip, test_negative, use_onert, ...). This script imports them from a checkout of that
repository (it is not vendored here), and for every non-skipped module:

1. computes the eager reference (eval mode, no_grad, on deep copies of the inputs, as the
   original's harness does),
2. exports it with ``torch.export.export`` and saves the ``.pt2``,
3. converts it with ``tico-run`` (the module's compile config mapped onto the pipeline's
   ``config:`` section),
4. runs the Circle file on tico's built-in interpreter (``tico-circle run``) and on onert,
   and compares with eager at the module's tolerance (default rtol = atol = 1e-5, as the
   original's ``validate_result``).

Negative modules (``@test_negative``) pass when the conversion is refused (exit 1, no output).

Usage (needs a Python with torch 2.13, the original's ``tico`` package — its test modules
import it — numpy and onert):

    python tests/original/run_original_modules.py --tico-repo /path/to/TICO \
        --tico-run build/bin/tico-run --tico-circle build/bin/tico-circle [--json out.json] [-k conv]

It prints one line per module and a summary per file; ``--json`` writes every result.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch.export._tree_utils import reorder_kwargs
from torch.utils import _pytree as pytree

# CompileConfigV1 field -> the pipeline manifest's config key (the same names).
CONFIG_FIELDS = (
    "legalize_causal_mask_value",
    "remove_constant_input",
    "convert_lhs_const_mm_to_fc",
    "convert_rhs_const_mm_to_fc",
    "convert_single_batch_lhs_const_bmm_to_fc",
    "convert_expand_to_slice_cat",
    "eliminate_rank_round_trip",
)


@dataclass
class Result:
    module: str  # file.Class
    status: str  # skipped | export-failed | refused | converted
    negative: bool = False
    error: str = ""
    interpreter: str = ""  # match | mismatch: ... | failed: ...
    onert: str = ""
    seconds: float = 0.0
    details: dict = field(default_factory=dict)


def tagged(cls, tag: str) -> bool:
    return hasattr(cls, f"__tag_{tag}")


def discover(repo: Path, groups: list[str], pattern: str | None):
    """(file stem, class) for every TestModuleBase subclass defined in the group files."""
    sys.path.insert(0, str(repo))
    base = importlib.import_module("test.modules.base").TestModuleBase
    found = []
    for group in groups:
        for path in sorted((repo / "test" / "modules" / group).glob("*.py")):
            if path.name.startswith("__"):
                continue
            name = f"test.modules.{group}.{path.stem}"
            try:
                module = importlib.import_module(name)
            except Exception as error:  # a module file the installed packages cannot import
                found.append((f"{group}/{path.stem}", None, f"import failed: {error}"))
                continue
            for _, cls in inspect.getmembers(module, inspect.isclass):
                if cls.__module__ != name or not issubclass(cls, base) or cls is base:
                    continue
                label = f"{group}/{path.stem}.{cls.__name__}"
                if pattern and pattern not in label:
                    continue
                found.append((label, cls, ""))
    return found


def flat_inputs(program, args, kwargs) -> list:
    ordered = reorder_kwargs(kwargs, program.call_spec.in_spec) if kwargs else {}
    return pytree.tree_flatten((args, ordered))[0]


def to_array(value) -> np.ndarray:
    """A model input as the Circle model takes it: Python numbers that torch.export kept as
    constant inputs are float32 / int64 / bool tensors, as the serializer types them."""
    if isinstance(value, torch.Tensor):
        return value.detach().contiguous().numpy().copy()
    if isinstance(value, bool):
        return np.asarray(value, dtype=np.bool_)
    if isinstance(value, int):
        return np.asarray(value, dtype=np.int64)
    if isinstance(value, float):
        return np.asarray(value, dtype=np.float32)
    return np.asarray(value)


def expected_outputs(values: list) -> list:
    """Eager outputs as the original's harness compares them: None outputs have no Circle
    tensor, and a number returned by the model (a SymInt) is an int32 [1] tensor."""
    out = []
    for v in values:
        if v is None:
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = torch.tensor([v], dtype=torch.int32 if isinstance(v, int) else torch.float32)
        out.append(v)
    return out


def compare(actual: list[np.ndarray], expected: list, rtol: float, atol: float) -> str:
    if len(actual) != len(expected):
        return f"mismatch: {len(actual)} outputs, eager has {len(expected)}"
    for index, (got, want) in enumerate(zip(actual, expected)):
        want_t = want if isinstance(want, torch.Tensor) else torch.tensor(want)
        got_t = torch.from_numpy(np.array(got))
        if got_t.shape != want_t.shape:
            got_t = got_t.reshape(want_t.shape) if got_t.numel() == want_t.numel() else got_t
        try:
            torch.testing.assert_close(got_t, want_t, rtol=rtol, atol=atol, equal_nan=True, check_dtype=True)
        except AssertionError as error:
            first = str(error).strip().splitlines()
            return f"mismatch in output {index}: " + " ".join(first[:3])
    return "match"


def pipeline_with_config(default: Path, config, directory: Path) -> Path:
    if config is None:
        return default
    text = default.read_text()
    for name in CONFIG_FIELDS:
        if hasattr(config, name):
            value = "true" if getattr(config, name) else "false"
            lines = []
            for line in text.splitlines():
                if line.strip().startswith(f"{name}:"):
                    indent = line[: len(line) - len(line.lstrip())]
                    line = f"{indent}{name}: {value}"
                lines.append(line)
            text = "\n".join(lines) + "\n"
    path = directory / "pipeline.yaml"
    path.write_text(text)
    return path


def run_interpreter(tico_circle: Path, circle: Path, arrays: list[np.ndarray], directory: Path) -> tuple[str, list]:
    command = [str(tico_circle), "run", str(circle)]
    for i, array in enumerate(arrays):
        np.save(directory / f"in{i}.npy", array)
        command += ["--input", str(directory / f"in{i}.npy")]
    out_dir = directory / "outputs"
    command += ["--output-dir", str(out_dir)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:300], []
    outputs = []
    while (out_dir / f"out{len(outputs)}.npy").is_file():
        outputs.append(np.load(out_dir / f"out{len(outputs)}.npy"))
    return "", outputs


# onert runs in a child process: some models crash it (a segfault would end this script).
ONERT_CHILD = """
import sys, numpy as np
from onert import infer
circle, directory, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
inputs = [np.load(f"{directory}/in{i}.npy") for i in range(count)]
for i, out in enumerate(infer.session(circle).infer(inputs)):
    np.save(f"{directory}/onert{i}.npy", np.array(out))
"""


def run_onert(circle: Path, arrays: list[np.ndarray], directory: Path) -> tuple[str, list]:
    for i, array in enumerate(arrays):
        np.save(directory / f"in{i}.npy", array)
    done = subprocess.run([sys.executable, "-c", ONERT_CHILD, str(circle), str(directory), str(len(arrays))],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        lines = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])
        return f"failed: {lines[-1][:300]}" if done.returncode > 0 else f"crashed (signal {-done.returncode})", []
    outputs = []
    while (directory / f"onert{len(outputs)}.npy").is_file():
        outputs.append(np.load(directory / f"onert{len(outputs)}.npy"))
    return "", outputs


def run_module(label: str, cls, args, work: Path) -> Result:
    result = Result(label, "converted", negative=tagged(cls, "test_negative"))
    start = time.time()
    directory = work / label.replace("/", "_")
    directory.mkdir(parents=True, exist_ok=True)
    try:
        torch.manual_seed(0)
        module = cls().eval()
        forward_args, forward_kwargs = module.get_example_inputs()
        dynamic = module.get_dynamic_shapes() if hasattr(module, "get_dynamic_shapes") else None
        config = module.get_compile_config() if hasattr(module, "get_compile_config") else None
        with torch.no_grad():
            expected = pytree.tree_flatten(module(*copy.deepcopy(forward_args), **copy.deepcopy(forward_kwargs)))[0]
        # A module whose compile config changes numerics (legalize_causal_mask_value) gives
        # its golden outputs, as the original's harness compares them.
        if hasattr(module, "get_golden_outputs"):
            expected = list(module.get_golden_outputs())
        expected = expected_outputs(expected)
        with torch.no_grad():
            program = torch.export.export(
                module, copy.deepcopy(forward_args), copy.deepcopy(forward_kwargs), dynamic_shapes=dynamic
            )
        pt2 = directory / "model.pt2"
        torch.export.save(program, str(pt2))
        inputs = [to_array(x) for x in flat_inputs(program, copy.deepcopy(forward_args), copy.deepcopy(forward_kwargs))
                  if x is not None]
    except Exception as error:
        result.status = "export-failed"
        result.error = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:300] if str(error).strip() else ''}"
        result.seconds = time.time() - start
        return result

    circle = directory / "model.circle"
    pipeline = pipeline_with_config(args.pipeline, config, directory)
    done = subprocess.run(
        [str(args.tico_run), "--pipeline", str(pipeline), str(pt2), "-o", str(circle)],
        capture_output=True, text=True, timeout=600,
    )
    if done.returncode != 0:
        result.status = "refused"
        result.error = " | ".join(done.stderr.strip().splitlines()[:4])[:600]
        result.details["exit_code"] = done.returncode
        result.details["output_left"] = circle.exists()
        result.seconds = time.time() - start
        return result

    rtol = getattr(module, "rtol", 1e-5)
    atol = getattr(module, "atol", 1e-5)
    failure, outputs = run_interpreter(args.tico_circle, circle, inputs, directory)
    result.interpreter = failure or compare(outputs, expected, rtol, atol)
    if not args.no_onert:
        failure, outputs = run_onert(circle, inputs, directory)
        result.onert = failure or compare(outputs, expected, rtol, atol)
    result.seconds = time.time() - start
    return result


def summarize(results: list[Result]) -> None:
    counted = [r for r in results if r.status != "skipped"]
    positive = [r for r in counted if not r.negative]
    negative = [r for r in counted if r.negative]
    converted = [r for r in positive if r.status == "converted"]
    print()
    print(f"modules: {len(results)} ({len(results) - len(counted)} skipped by their tags)")
    print(f"positive modules: {len(positive)}; converted {len(converted)}; "
          f"export failed {sum(r.status == 'export-failed' for r in positive)}; "
          f"refused {sum(r.status == 'refused' for r in positive)}")
    print(f"  interpreter: {sum(r.interpreter == 'match' for r in converted)}/{len(converted)} match")
    if any(r.onert for r in converted):
        print(f"  onert:       {sum(r.onert == 'match' for r in converted)}/{len(converted)} match")
    # The original's negative modules are its own known failures (it expects its pipeline to
    # raise): tico may refuse them too, or convert them correctly.
    print(f"negative modules (the original expects an error): {len(negative)}; refused "
          f"{sum(r.status == 'refused' for r in negative)}; converted and matching on the interpreter "
          f"{sum(r.status == 'converted' and r.interpreter == 'match' for r in negative)}")
    problems = [r for r in positive if r.status != "converted" or r.interpreter != "match"]
    if problems:
        print("\nnot converted or not matching on the interpreter:")
        for r in problems:
            print(f"  {r.module}: {r.status} {r.error or r.interpreter}")
    onert_only = [r for r in converted if r.interpreter == "match" and r.onert and r.onert != "match"]
    if onert_only:
        print("\nmatching on the interpreter but not on onert:")
        for r in onert_only:
            print(f"  {r.module}: {r.onert}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tico-repo", type=Path, required=True, help="checkout of github.com/Samsung/TICO")
    parser.add_argument("--tico-run", type=Path, required=True)
    parser.add_argument("--tico-circle", type=Path, required=True)
    parser.add_argument("--pipeline", type=Path, default=Path(__file__).resolve().parents[2] / "configs/pipelines/default.yaml")
    parser.add_argument("--groups", default="op,net", help="comma-separated test/modules sub-folders")
    parser.add_argument("-k", dest="pattern", help="only modules whose 'group/file.Class' contains this text")
    parser.add_argument("--no-onert", action="store_true")
    parser.add_argument("--json", type=Path, help="write every result here")
    args = parser.parse_args()

    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="tico-original-") as tmp:
        for label, cls, import_error in discover(args.tico_repo, args.groups.split(","), args.pattern):
            if cls is None:
                results.append(Result(label, "export-failed", error=import_error))
            elif tagged(cls, "skip"):
                results.append(Result(label, "skipped", error=getattr(cls, "__tag_skip_reason", "")))
            else:
                try:
                    results.append(run_module(label, cls, args, Path(tmp)))
                except subprocess.TimeoutExpired as error:
                    results.append(Result(label, "refused", error=f"timeout: {error}"))
                except Exception as error:
                    results.append(Result(label, "export-failed", error=traceback.format_exception_only(error)[-1].strip()))
            r = results[-1]
            if r.status != "skipped":
                print(f"{r.status:14s} {r.module:70s} interp={r.interpreter or '-':8.8s} onert={r.onert or '-':8.8s} {r.error[:120]}",
                      flush=True)
    summarize(results)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
