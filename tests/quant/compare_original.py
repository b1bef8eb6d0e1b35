"""The original converter's Circle file against ours, for one quantized program (issue 12).

Both converters get the same ``.pt2``: the original's ``tico.convert_from_pt2(path).save(...)``
(the ``tico`` 0.3.0 package) and our ``tico-run`` with the default pipeline. Tensor names and
order differ, so tensors are matched by role (measure.roles): the model inputs and outputs, and
operand j / result j of the k-th compute operator. Compared per pair: type, shape,
quantization parameters (scales within 1e-6 relative, zero points and quantized_dimension
equal), constant bytes (bit-equal), and the operators' builtin options. Both files then run on
the built-in runtime on the same input (the original's file takes the codes our boundary
QUANTIZE computes), and the output codes are compared.

The differences by design, which ``Comparison`` classifies (every other difference is listed in
``problems``):

* ``interface``: our model inputs and outputs are float32, with one QUANTIZE per input and one
  DEQUANTIZE per output at the boundary (docs/quantization.md); the original's inputs and
  outputs are the quantized tensors themselves.
* ``relu-as-requantize``: a relu between two quantized tensors with other parameters is a RELU
  operator in the original's file and a QUANTIZE (requantize) in ours, whose clamp at the output
  zero point (the type's minimum: the range starts at real 0) is the relu.
* ``identity-requantize``: a QUANTIZE in our file whose input already has its output's type and
  parameters (it changes no code), which the original's FoldQuantOps removes. Where two wrapped
  layers follow each other directly (fc2(fc1(x))), the original's quantizer writes fc1's output
  fake-quantize and fc2's input fake-quantize with the same parameters; fold-quant-ops removes
  the second quantize too, so the tests expect none. Classified to name it if it comes back.
* ``bias-rounding`` (counted in bias values): the original's QuantizeBias computes
  ``torch.round(bias / scale)`` on float32 tensors, ours ``round(bias / scale)`` in double
  (plugins/quant-passes/quantize_bias.cpp; the scale, the float32 product s_in · s_w[c], is the
  same). With int16 activations the codes reach 10^6, where float32 keeps 1/8 of a step, so
  a quotient close to .5 can round the other way: the original's code is then 1 away from the
  nearest integer to the exact quotient, ours is that integer. A bias pair is explained only
  when the whole vector equals each converter's formula recomputed here from the float bias.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from measure import QRANGE, CircleModel, Roles, qparams_equal, quantize_codes, read_circle, roles, run_onert


def convert_with_original(pt2: Path, out: Path) -> None:
    """The original converter (``tico`` 0.3.0) on a saved program."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import tico

        tico.convert_from_pt2(str(pt2)).save(str(out))


@dataclass
class TensorPair:
    roles: list[str]
    ours: object  # measure.Tensor
    original: object
    problems: list[str]
    explained: str | None = None  # a documented difference that accounts for every problem


@dataclass
class Comparison:
    ours: CircleModel
    original: CircleModel
    ours_ops: list[str]
    original_ops: list[str]
    exceptions: dict[str, int] = field(default_factory=dict)  # documented difference -> count
    problems: list[str] = field(default_factory=list)  # any other difference
    pairs: list[TensorPair] = field(default_factory=list)
    outputs_equal: int = 0
    outputs_total: int = 0
    original_run_error: str | None = None
    onert: dict = field(default_factory=dict)  # "ours" / "original": output codes, or why onert refused the file

    @property
    def tensors(self) -> int:
        return len(self.pairs)

    @property
    def identical_tensors(self) -> int:
        return sum(1 for p in self.pairs if not p.problems)

    @property
    def explained_tensors(self) -> int:
        return sum(1 for p in self.pairs if p.problems and p.explained)

    @property
    def quantized(self) -> int:
        return sum(1 for p in self.pairs if p.ours.quant is not None or p.original.quant is not None)

    @property
    def identical_qparams(self) -> int:
        return sum(1 for p in self.pairs if (p.ours.quant is not None or p.original.quant is not None)
                   and qparams_equal(p.ours.quant, p.original.quant) is None)

    @property
    def constants(self) -> int:
        return sum(1 for p in self.pairs if p.ours.is_constant or p.original.is_constant)

    @property
    def identical_constants(self) -> int:
        return sum(1 for p in self.pairs if (p.ours.is_constant or p.original.is_constant) and p.ours.data == p.original.data)

    def summary(self) -> dict:
        return {"tensors": self.tensors, "identical_tensors": self.identical_tensors,
                "explained_tensors": self.explained_tensors,
                "quantized": self.quantized, "identical_qparams": self.identical_qparams,
                "constants": self.constants, "identical_constants": self.identical_constants,
                "outputs_equal": self.outputs_equal, "outputs_total": self.outputs_total,
                "exceptions": dict(self.exceptions), "problems": list(self.problems),
                "original_ops": self.original_ops, "ours_ops": self.ours_ops,
                "original_size": self.original.size, "ours_size": self.ours.size,
                "original_run_error": self.original_run_error,
                "onert": {k: (v if isinstance(v, str) else "ran") for k, v in self.onert.items()},
                "onert_outputs_equal": self.onert_outputs_equal()}

    def onert_outputs_equal(self) -> list[int] | None:
        """[equal, total] output codes between the two files on onert, when onert runs both."""
        ours, original = self.onert.get("ours"), self.onert.get("original")
        if ours is None or original is None or isinstance(ours, str) or isinstance(original, str):
            return None
        equal = sum(int(np.sum(a == b)) for a, b in zip(ours, original))
        return [equal, sum(int(a.size) for a in ours)]


def _is_relu_requantize(ours: CircleModel, op) -> bool:
    """A QUANTIZE between two quantized tensors whose output range starts at real 0."""
    src, dst = ours.tensors[op.inputs[0]], ours.tensors[op.outputs[0]]
    return (op.op == "QUANTIZE" and src.quant is not None and dst.quant is not None and src.type == dst.type
            and dst.type in QRANGE and len(dst.quant.zero_point) == 1 and int(dst.quant.zero_point[0]) == QRANGE[dst.type][0])


def compare_files(ours: CircleModel, original: CircleModel) -> Comparison:
    ro, rg = roles(ours, identity=True), roles(original, identity=True)
    result = Comparison(ours, original, [op.op for op in ro.compute], [op.op for op in rg.compute])
    if ro.identity:
        result.exceptions["identity-requantize"] = len(ro.identity)
    if rg.identity:
        result.problems.append(f"{len(rg.identity)} requantize(s) that change nothing in the original's file")
    if ro.boundary:
        kinds = sorted(op.op for op in ro.boundary)
        if rg.boundary or len(kinds) != len(ours.inputs) + len(ours.outputs):
            result.problems.append(f"boundary: ours {kinds}, original {sorted(op.op for op in rg.boundary)}")
        else:
            result.exceptions["interface"] = len(kinds)
    if len(ro.compute) != len(rg.compute):
        result.problems.append(f"{len(ro.compute)} compute operators in ours ({result.ours_ops}), "
                               f"{len(rg.compute)} in the original's ({result.original_ops})")
        return result
    for k, (a, b) in enumerate(zip(ro.compute, rg.compute)):
        if a.op == b.op:
            if a.options != b.options:
                result.problems.append(f"op{k} {a.op}: options {a.options} vs {b.options}")
            if len(a.inputs) != len(b.inputs) or len(a.outputs) != len(b.outputs):
                result.problems.append(f"op{k} {a.op}: operand counts {len(a.inputs)}/{len(a.outputs)} vs {len(b.inputs)}/{len(b.outputs)}")
        elif b.op == "RELU" and _is_relu_requantize(ours, a):
            result.exceptions["relu-as-requantize"] = result.exceptions.get("relu-as-requantize", 0) + 1
        else:
            result.problems.append(f"op{k}: ours {a.op}, original {b.op}")
    _pair_tensors(result, ro, rg)
    return result


def _pair_tensors(result: Comparison, ro: Roles, rg: Roles) -> None:
    ours_of: dict[int, set[int]] = {}
    original_of: dict[int, set[int]] = {}
    role_names: dict[tuple[int, int], list[str]] = {}
    for role, t in ro.by_role.items():
        if role not in rg.by_role:
            result.problems.append(f"role {role} only in ours ({result.ours.tensors[t].describe()})")
            continue
        g = rg.by_role[role]
        ours_of.setdefault(t, set()).add(g)
        original_of.setdefault(g, set()).add(t)
        role_names.setdefault((t, g), []).append(role)
    for role in rg.by_role.keys() - ro.by_role.keys():
        result.problems.append(f"role {role} only in the original's ({result.original.tensors[rg.by_role[role]].describe()})")
    for t, gs in ours_of.items():
        if len(gs) > 1:
            result.problems.append(f"our tensor {result.ours.tensors[t].describe()} plays roles of {len(gs)} tensors of the original's")
    for g, ts in original_of.items():
        if len(ts) > 1:
            result.problems.append(f"the original's tensor {result.original.tensors[g].describe()} plays roles of {len(ts)} of ours")
    for (t, g), names in sorted(role_names.items()):
        a, b = result.ours.tensors[t], result.original.tensors[g]
        problems = []
        if a.type != b.type:
            problems.append(f"type {a.type} vs {b.type}")
        if a.shape != b.shape:
            problems.append(f"shape {list(a.shape)} vs {list(b.shape)}")
        if (why := qparams_equal(a.quant, b.quant)) is not None:
            problems.append(why)
        if a.is_constant != b.is_constant:
            problems.append(f"constant in {'ours' if a.is_constant else 'the original'} only")
        elif a.is_constant and a.data != b.data:
            problems.append(_data_difference(a, b))
        result.pairs.append(TensorPair(names, a, b, problems))
        for p in problems:
            result.problems.append(f"{'/'.join(names)} ({a.name} vs {b.name}): {p}")


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def explain_bias_rounding(result: Comparison, float_vectors: list[np.ndarray]) -> None:
    """Marks bias pairs whose only difference is the rounding rule (``bias-rounding``): ours
    equals round-half-away(bias / scale) in double, the original's equals torch.round(bias /
    scale) in float32, both recomputed from the float bias (one of ``float_vectors``: the
    program's float parameters, matched by length and by ours being within half a step)."""
    import torch

    for pair in result.pairs:
        a, b = pair.ours, pair.original
        if (not pair.problems or a.type not in ("INT32", "INT64") or a.type != b.type or a.shape != b.shape
                or qparams_equal(a.quant, b.quant) is not None or not (a.is_constant and b.is_constant)):
            continue
        dtype = np.int32 if a.type == "INT32" else np.int64
        ours_q, original_q = np.frombuffer(a.data, dtype).astype(np.int64), np.frombuffer(b.data, dtype).astype(np.int64)
        scale = np.broadcast_to(a.quant.scale, ours_q.shape).astype(np.float32)
        for bias in float_vectors:
            if bias.dtype != np.float32 or bias.shape != ours_q.shape:
                continue
            exact = bias.astype(np.float64) / scale.astype(np.float64)
            if np.max(np.abs(exact - ours_q)) > 0.5:
                continue
            ours_rule = _round_half_away(exact).astype(np.int64)
            original_rule = torch.round(torch.from_numpy(bias.copy()) / torch.from_numpy(scale.copy())).to(torch.int64).numpy()
            if np.array_equal(ours_q, ours_rule) and np.array_equal(original_q, original_rule):
                differing = int(np.sum(ours_q != original_q))
                pair.explained = "bias-rounding"
                result.exceptions["bias-rounding"] = result.exceptions.get("bias-rounding", 0) + differing
                names = "/".join(pair.roles)
                result.problems = [p for p in result.problems if not p.startswith(f"{names} (")]
                break


def _data_difference(a, b) -> str:
    if len(a.data) != len(b.data):
        return f"constant bytes differ in size ({len(a.data)} vs {len(b.data)})"
    dtype = {"INT32": np.int32, "INT64": np.int64, "INT16": np.int16, "INT8": np.int8, "FLOAT32": np.float32}.get(a.type, np.uint8)
    x, y = np.frombuffer(a.data, dtype), np.frombuffer(b.data, dtype)
    where = np.flatnonzero(x != y)
    diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
    return (f"constant values differ at {len(where)} of {len(x)} elements (max |difference| {float(diff.max()):g}, "
            f"first at {where[:5].tolist()}: {x[where[:5]].tolist()} vs {y[where[:5]].tolist()})")


def _codes(output: np.ndarray, quant) -> np.ndarray:
    """Output codes: a float32 (dequantized) output back on the code grid, codes as they are."""
    if output.dtype == np.float32:
        return np.round(output.astype(np.float64) / float(quant.scale[0]) + int(quant.zero_point[0]))
    return output.astype(np.float64)


def compare_outputs(result: Comparison, inputs: list[np.ndarray], tico_circle: Path, directory: Path) -> None:
    """Runs both files on the built-in runtime: ours on the float inputs, the original's on the
    codes our boundary QUANTIZE makes of them; counts equal output codes. Runs both on onert too
    (``result.onert``: the output codes, or why onert refused the file)."""
    from harness import run_interpreter

    ours, original = result.ours, result.original
    ro, rg = roles(ours), roles(original)
    # With quantized-model-io our file takes codes too: the same codes as the original's.
    ours_feeds = []
    for i, x in enumerate(inputs):
        t = ours.tensors[ours.inputs[i]]
        ours_feeds.append(quantize_codes(x, t.quant, t.type) if t.type != "FLOAT32" else x)
    run, ours_out = run_interpreter(tico_circle, ours.path, ours_feeds, directory / "ours")
    if run.returncode != 0:
        result.problems.append(f"the built-in runtime refused our file: {run.stderr.strip()}")
        return
    feeds = []
    for i, x in enumerate(inputs):
        q = ours.tensors[ro.by_role[f"in{i}"]]
        g = original.tensors[original.inputs[i]]
        feeds.append(quantize_codes(x, q.quant, g.type) if g.type != "FLOAT32" else x)
    # onert on both files, on the same feeds (our file's outputs are turned back into codes).
    onert_ours = run_onert(ours.path, ours_feeds, directory / "onert-ours")
    if not isinstance(onert_ours, str):
        onert_ours = [_codes(y, ours.tensors[ro.by_role[f"out{i}"]].quant) for i, y in enumerate(onert_ours)]
    onert_original = run_onert(original.path, feeds, directory / "onert-original")
    if not isinstance(onert_original, str):
        onert_original = [_codes(y, ours.tensors[ro.by_role[f"out{i}"]].quant) for i, y in enumerate(onert_original)]
    result.onert = {"ours": onert_ours, "original": onert_original}
    run, original_out = run_interpreter(tico_circle, original.path, feeds, directory / "original")
    if run.returncode != 0:
        result.original_run_error = run.stderr.strip()
        return
    for i, (mine, theirs) in enumerate(zip(ours_out, original_out)):
        q = ours.tensors[ro.by_role[f"out{i}"]].quant
        mine_codes, theirs_codes = _codes(mine, q), _codes(theirs, q)
        result.outputs_total += int(mine_codes.size)
        result.outputs_equal += int(np.sum(mine_codes == theirs_codes))
