"""Measures of quantized Circle files (issue 12): SQNR, a Circle reader, role matching, onert.

Shared by the quantization tests (test_quant_convert.py's SQNR and onert figures,
test_quant_vs_original.py through compare_original.py, test_quant_size.py) and read back by
the report script tests/bench/quant_report.py.

* ``sqnr_db(reference, test)``: 10·log10(Σ ref² / Σ (ref − test)²) in dB, over all outputs.
* ``read_circle(path)``: the first subgraph of a Circle file read with the independent
  ``circle_schema`` package (not tico's reader): tensors with their type, shape, quantization
  parameters and constant bytes, operators with their builtin name.
* ``roles(model)``: every tensor named by what it is to the computation (``in0``, ``out0``,
  ``op3.in1`` = operand 1 of the fourth compute operator), so two files whose tensor names and
  order differ can be compared tensor by tensor.
* ``run_onert(path, feeds, work)``: onert 0.2 in a child process (a crash is a result).
* ``export_case``: a quant_models case exported once, with its eager outputs (fake-quantized and
  float) and float parameters.
* ``conversion_measures`` / ``check_conversion_measures``: the figures of one converted model and
  their assertions (SQNR loss against the fake-quantized model, onert within one step or the known
  uint8 per-channel FULLY_CONNECTED divergence, checked to be channel 0's parameters).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# ---------------------------------------------------------------------------
# SQNR
# ---------------------------------------------------------------------------


def sqnr_db(reference: list[np.ndarray], test: list[np.ndarray]) -> float:
    """Signal-to-quantization-noise ratio of ``test`` against ``reference`` over all outputs, in dB
    (``inf`` when they are equal)."""
    assert len(reference) == len(test), f"{len(reference)} reference outputs, {len(test)} measured"
    signal = noise = 0.0
    for ref, got in zip(reference, test):
        ref64, got64 = np.asarray(ref, np.float64), np.asarray(got, np.float64)
        assert ref64.shape == got64.shape, f"shape {got64.shape} != reference {ref64.shape}"
        signal += float(np.sum(ref64 * ref64))
        noise += float(np.sum((ref64 - got64) ** 2))
    if noise == 0.0:
        return math.inf
    if signal == 0.0:
        return -math.inf
    return 10.0 * math.log10(signal / noise)


def max_steps(reference: list[np.ndarray], test: list[np.ndarray], scales: list[float]) -> float:
    """max |test − reference| in steps of each output's quantization scale."""
    worst = 0.0
    for ref, got, scale in zip(reference, test, scales):
        if ref.size:
            worst = max(worst, float(np.max(np.abs(np.asarray(got, np.float64) - np.asarray(ref, np.float64)))) / scale)
    return worst


# ---------------------------------------------------------------------------
# Reading Circle files
# ---------------------------------------------------------------------------

QRANGE = {"UINT4": (0, 15), "INT4": (-8, 7), "UINT8": (0, 255), "INT8": (-128, 127), "INT16": (-32768, 32767)}


@dataclass
class Quant:
    scale: np.ndarray  # float32
    zero_point: np.ndarray  # int64
    dimension: int
    min: np.ndarray | None = None
    max: np.ndarray | None = None


@dataclass
class Tensor:
    index: int
    name: str
    type: str
    shape: tuple[int, ...]
    quant: Quant | None
    data: bytes | None  # constant payload (None for activations)

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    def describe(self) -> str:
        q = ""
        if self.quant is not None:
            q = f" q(scale[{len(self.quant.scale)}]={self.quant.scale[:3].tolist()}, zp={self.quant.zero_point[:3].tolist()}, dim={self.quant.dimension})"
        return f"#{self.index} '{self.name}' {self.type}{list(self.shape)}{q}{' const' if self.is_constant else ''}"


@dataclass
class Operator:
    index: int
    op: str
    inputs: list[int]  # -1 = absent optional operand
    outputs: list[int]
    options: dict = field(default_factory=dict)  # the builtin options table's fields


@dataclass
class CircleModel:
    path: Path
    size: int
    tensors: list[Tensor]
    operators: list[Operator]
    inputs: list[int]
    outputs: list[int]

    def constant_bytes(self) -> dict[str, int]:
        """Payload bytes of the constant tensors, by tensor type."""
        out: dict[str, int] = {}
        for t in self.tensors:
            if t.data is not None:
                out[t.type] = out.get(t.type, 0) + len(t.data)
        return out


def _names(enum_class) -> dict[int, str]:
    return {value: key for key, value in vars(enum_class).items() if not key.startswith("_") and isinstance(value, int)}


def read_circle(path: Path) -> CircleModel:
    """The first subgraph of a Circle file (circle_schema v0.10, object API)."""
    from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
    from circle_schema.v0_10.circle.Model import ModelT
    from circle_schema.v0_10.circle.TensorType import TensorType

    op_names, type_names = _names(BuiltinOperator), _names(TensorType)
    raw = Path(path).read_bytes()
    model = ModelT.InitFromPackedBuf(raw, 0)
    sg = model.subgraphs[0]
    tensors = []
    for index, t in enumerate(sg.tensors):
        data = None
        buffer = model.buffers[t.buffer] if t.buffer < len(model.buffers) else None
        if buffer is not None:
            if buffer.data is not None and len(buffer.data):
                data = np.asarray(buffer.data, dtype=np.uint8).tobytes()
            elif buffer.offset and buffer.offset > 1:  # large files keep payloads after the flatbuffer
                data = raw[buffer.offset:buffer.offset + buffer.size]
        quant = None
        q = t.quantization
        if q is not None and q.scale is not None and len(q.scale):
            zp = np.asarray(q.zeroPoint if q.zeroPoint is not None else [0] * len(q.scale), dtype=np.int64)
            quant = Quant(np.asarray(q.scale, dtype=np.float32), zp, int(q.quantizedDimension),
                          None if q.min is None else np.asarray(q.min, np.float32),
                          None if q.max is None else np.asarray(q.max, np.float32))
        name = t.name.decode() if isinstance(t.name, bytes) else (t.name or "")
        shape = tuple(int(d) for d in t.shape) if t.shape is not None else ()
        tensors.append(Tensor(index, name, type_names.get(t.type, str(t.type)), shape, quant, data))
    operators = []
    for index, op in enumerate(sg.operators or []):
        code = model.operatorCodes[op.opcodeIndex]
        number = max(code.builtinCode, code.deprecatedBuiltinCode)
        options = {}
        if op.builtinOptions is not None:
            options = {key: (value.tolist() if isinstance(value, np.ndarray) else value)
                       for key, value in vars(op.builtinOptions).items()}
        operators.append(Operator(index, op_names.get(number, str(number)),
                                  [int(i) for i in (op.inputs if op.inputs is not None else [])],
                                  [int(i) for i in (op.outputs if op.outputs is not None else [])], options))
    return CircleModel(Path(path), len(raw), tensors, operators,
                       [int(i) for i in sg.inputs], [int(i) for i in sg.outputs])


# ---------------------------------------------------------------------------
# Tensors by role
# ---------------------------------------------------------------------------


@dataclass
class Roles:
    """A file's computation with the float boundary taken off.

    ``compute`` are the operators between the quantized model inputs and outputs; a float32
    model input that one QUANTIZE converts is represented by that QUANTIZE's output, a float32
    model output made by a DEQUANTIZE by that DEQUANTIZE's input. ``by_role`` maps ``in<i>``,
    ``out<i>``, ``op<k>.in<j>``, ``op<k>.out<j>`` to tensor indices. With ``identity=True``, a
    QUANTIZE whose input already has its output's type and parameters (a requantize that changes
    nothing) is taken off too (``identity``), its output represented by its input."""

    compute: list[Operator]
    by_role: dict[str, int]
    boundary: list[Operator]
    identity: list[Operator] = field(default_factory=list)


def _same_qparams_exactly(a: Tensor, b: Tensor) -> bool:
    return (a.type == b.type and a.quant is not None and b.quant is not None
            and a.quant.scale.tobytes() == b.quant.scale.tobytes()
            and np.array_equal(a.quant.zero_point, b.quant.zero_point)
            and (len(a.quant.scale) == 1 or a.quant.dimension == b.quant.dimension))


def roles(model: CircleModel, identity: bool = False) -> Roles:
    tensors = model.tensors
    in_alias = {i: i for i in model.inputs}
    out_alias = {o: o for o in model.outputs}
    boundary, identities = [], []
    alias: dict[int, int] = {}
    for op in model.operators:
        if (op.op == "QUANTIZE" and op.inputs[0] in in_alias and tensors[op.inputs[0]].type == "FLOAT32"
                and tensors[op.outputs[0]].quant is not None):
            in_alias[op.inputs[0]] = op.outputs[0]
            boundary.append(op)
        elif (op.op == "DEQUANTIZE" and op.outputs[0] in out_alias and tensors[op.outputs[0]].type == "FLOAT32"
              and tensors[op.inputs[0]].quant is not None):
            out_alias[op.outputs[0]] = op.inputs[0]
            boundary.append(op)
        elif identity and op.op == "QUANTIZE" and _same_qparams_exactly(tensors[op.inputs[0]], tensors[op.outputs[0]]):
            alias[op.outputs[0]] = op.inputs[0]
            identities.append(op)

    def resolve(t: int) -> int:
        while t in alias:
            t = alias[t]
        return t

    skipped = {id(op) for op in boundary + identities}
    compute = [op for op in model.operators if id(op) not in skipped]
    by_role = {}
    for i, t in enumerate(model.inputs):
        by_role[f"in{i}"] = resolve(in_alias[t])
    for i, t in enumerate(model.outputs):
        by_role[f"out{i}"] = resolve(out_alias[t])
    for k, op in enumerate(compute):
        for j, t in enumerate(op.inputs):
            if t >= 0:
                by_role[f"op{k}.in{j}"] = resolve(t)
        for j, t in enumerate(op.outputs):
            by_role[f"op{k}.out{j}"] = resolve(t)
    return Roles(compute, by_role, boundary, identities)


def qparams_equal(a: Quant | None, b: Quant | None, rtol: float = 1e-6) -> str | None:
    """None when equal (scales within ``rtol``, zero points and quantized dimension equal), else why."""
    if a is None or b is None:
        return None if a is None and b is None else f"qparams on one side only ({a is not None} / {b is not None})"
    if a.scale.shape != b.scale.shape:
        return f"{len(a.scale)} scales vs {len(b.scale)}"
    rel = np.abs(a.scale.astype(np.float64) - b.scale.astype(np.float64)) / np.abs(b.scale.astype(np.float64))
    if np.any(rel > rtol):
        return f"scale differs (max relative {float(np.max(rel)):.3g})"
    if not np.array_equal(a.zero_point, b.zero_point):
        return f"zero points differ ({a.zero_point[:4].tolist()} vs {b.zero_point[:4].tolist()})"
    if len(a.scale) > 1 and a.dimension != b.dimension:
        return f"quantized_dimension {a.dimension} vs {b.dimension}"
    return None


# ---------------------------------------------------------------------------
# Runtimes
# ---------------------------------------------------------------------------


def quantize_codes(x: np.ndarray, quant: Quant, dtype: str) -> np.ndarray:
    """Float -> codes the way QUANTIZE does (per tensor, round half away from zero, clamp)."""
    lo, hi = QRANGE[dtype]
    scaled = np.asarray(x, np.float64) / float(quant.scale[0])
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    return np.clip(rounded + int(quant.zero_point[0]), lo, hi).astype({"UINT8": np.uint8, "INT8": np.int8,
                                                                      "INT16": np.int16}[dtype])


def run_onert(model: Path, feeds: list[np.ndarray], work: Path) -> list[np.ndarray] | str:
    """onert's outputs, or why onert refused the model ("onert <error> at <phase>")."""
    from onert_child import run_onert_child  # tests/e2e, on the path through conftest.py

    outputs, proc, phases = run_onert_child(model, feeds, work)
    if outputs is None:
        lines = [line.strip() for line in (proc.stdout + "\n" + proc.stderr).splitlines() if line.strip()]
        # onert's own message ("Error during model prepare : Quantize: Unsupported data type")
        # says more than the exception (NNFW_STATUS_ERROR).
        messages = [line for line in lines if line.startswith("Error")] or [
            line for line in lines if not line.startswith(("phase: ", "Traceback", "File ", "^"))][-1:]
        how = f"crashed (signal {-proc.returncode})" if proc.returncode < 0 else (" ".join(messages[0].split()) if messages else "failed")
        how = how.replace("onert.native.libnnfw_api_pybind.exception.", "")
        return f"onert at {phases[-1] if phases else 'start'}: {how}"
    return outputs


# ---------------------------------------------------------------------------
# Test models: export once, with the eager outputs of the quantized and the float model
# ---------------------------------------------------------------------------


@dataclass
class Exported:
    name: str
    pt2: Path
    inputs: list[np.ndarray]
    fake_quant: list[np.ndarray]  # eager outputs of the fake-quantized model
    float: list[np.ndarray] | None  # eager outputs of the float model it was made from
    parameters: list[np.ndarray] = field(default_factory=list)  # the program's float parameters and buffers


def export_case(case, directory: Path) -> Exported:
    """Exports a quant_models.QuantCase to ``directory/model.pt2`` with its eager outputs."""
    import torch

    from quant_models import float_reference

    directory.mkdir(parents=True, exist_ok=True)
    program, module, inputs = case.export()
    pt2 = directory / "model.pt2"
    torch.export.save(program, str(pt2))

    def as_list(out):
        out = out if isinstance(out, (tuple, list)) else (out,)
        return [t.detach().cpu().contiguous().numpy().copy() for t in out]

    arrays = [t.detach().cpu().contiguous().numpy().copy() for t in inputs]
    with torch.no_grad():
        fake_quant = as_list(module(*inputs))
    reference = float_reference(module)
    parameters = [t.detach().cpu().contiguous().numpy().copy() for t in program.state_dict.values()
                  if isinstance(t, torch.Tensor) and t.dtype == torch.float32]
    return Exported(case.name, pt2, arrays, fake_quant, as_list(reference(*inputs)) if reference else None, parameters)


def output_scales(model: CircleModel) -> list[float]:
    """The scale of the quantized tensor each model output is (or is dequantized from)."""
    r = roles(model)
    return [float(model.tensors[r.by_role[f"out{i}"]].quant.scale[0]) for i in range(len(model.outputs))]


# ---------------------------------------------------------------------------
# The measures of one converted model (test_quant_convert.py's report)
# ---------------------------------------------------------------------------


def conversion_measures(fake_quant: list[np.ndarray], float_outputs: list[np.ndarray] | None,
                        ours: list[np.ndarray], scales: list[float], circle: Path, inputs: list[np.ndarray],
                        work: Path) -> dict:
    """SQNR of our Circle output (built-in runtime) against the float model and the fake-quantized
    eager model, the fake-quantized model's own SQNR against the float model, and onert on the
    same file: its step difference to eager and its SQNR, or why it refused the file."""
    record: dict = {"sqnr_vs_fake_quant": sqnr_db(fake_quant, ours)}
    if float_outputs is not None:
        record["sqnr_vs_float"] = sqnr_db(float_outputs, ours)
        record["sqnr_fake_quant_vs_float"] = sqnr_db(float_outputs, fake_quant)
    onert = run_onert(circle, inputs, work / "onert")
    if isinstance(onert, str):
        record["onert"] = onert
    else:
        record["onert_max_steps"] = max_steps(fake_quant, onert, scales)
        record["onert_vs_ours_max_steps"] = max_steps(ours, onert, scales)
        if float_outputs is not None:
            record["onert_sqnr_vs_float"] = sqnr_db(float_outputs, onert)
        model = read_circle(circle)
        if uint8_per_channel_fc(model):
            record["onert_known_divergence"] = "uint8 FULLY_CONNECTED with per-channel weights"
            if (sim := fc_with_channel0_params(model, inputs)) is not None:
                q = model.tensors[roles(model).by_role["out0"]].quant
                codes = np.round(onert[0].astype(np.float64) / float(q.scale[0]) + int(q.zero_point[0]))
                record["onert_vs_channel0_fc_codes"] = float(np.max(np.abs(codes - sim)))
    return record


def uint8_per_channel_fc(model: CircleModel) -> bool:
    """A FULLY_CONNECTED with a uint8 input and per-channel weights (onert 0.2 computes it with
    channel 0's weight scale and zero point for every channel)."""
    for op in model.operators:
        if op.op == "FULLY_CONNECTED":
            x, w = model.tensors[op.inputs[0]], model.tensors[op.inputs[1]]
            if x.type == "UINT8" and w.quant is not None and len(w.quant.scale) > 1:
                return True
    return False


def fc_with_channel0_params(model: CircleModel, inputs: list[np.ndarray]) -> np.ndarray | None:
    """For a file that is QUANTIZE -> one uint8 FULLY_CONNECTED -> DEQUANTIZE: the output codes
    of that FULLY_CONNECTED computed in float64 with channel 0's weight scale and zero point for
    every output channel (what onert 0.2 does); None for other files."""
    r = roles(model)
    if [op.op for op in r.compute] != ["FULLY_CONNECTED"] or len(inputs) != 1:
        return None
    fc = r.compute[0]
    x_t, w_t, y_t = model.tensors[fc.inputs[0]], model.tensors[fc.inputs[1]], model.tensors[fc.outputs[0]]
    if w_t.type != "UINT8" or w_t.data is None:
        return None
    x = quantize_codes(inputs[0], x_t.quant, x_t.type).astype(np.int64) - int(x_t.quant.zero_point[0])
    w = np.frombuffer(w_t.data, np.uint8).reshape(w_t.shape).astype(np.int64) - int(w_t.quant.zero_point[0])
    acc = x.reshape(-1, w.shape[1]) @ w.T
    if len(fc.inputs) > 2 and fc.inputs[2] >= 0:
        acc = acc + np.frombuffer(model.tensors[fc.inputs[2]].data, np.int32).astype(np.int64)
    real = acc * (float(x_t.quant.scale[0]) * float(w_t.quant.scale[0]) / float(y_t.quant.scale[0]))
    lo, hi = QRANGE[y_t.type]
    return np.clip(np.round(real) + int(y_t.quant.zero_point[0]), lo, hi).reshape(y_t.shape)


# Our Circle file against the float model: the conversion may cost this much SQNR over what the
# fake-quantized program itself has (its one-step differences where the integer kernels round
# the other way; measured on 2026-12-02: at most 1.1 dB, pt2e_cnn_pc, 10 outputs). A wrong
# scale, zero point or bias moves outputs by many steps, which no 2 dB absorb.
MAX_SQNR_LOSS_DB = 2.0
# onert, where it runs a file: within this many output steps of eager, as the built-in runtime.
ONERT_MAX_STEPS = 1.0 + 1e-3


def check_conversion_measures(name: str, record: dict) -> None:
    """The assertions on conversion_measures' record (test_quant_convert.py)."""
    if "sqnr_vs_float" in record:
        loss = record["sqnr_fake_quant_vs_float"] - record["sqnr_vs_float"]
        assert loss <= MAX_SQNR_LOSS_DB, (f"{name}: SQNR against the float model {record['sqnr_vs_float']:.2f} dB, "
                                          f"{loss:.2f} dB below the fake-quantized model's {record['sqnr_fake_quant_vs_float']:.2f} dB")
    if "onert_max_steps" not in record:
        return
    if "onert_known_divergence" in record:
        # Still diverging (a fixed onert shows up here), and where the file is one FULLY_CONNECTED,
        # exactly as channel 0's parameters for every channel predict (within one rounding).
        assert record["onert_max_steps"] > ONERT_MAX_STEPS, f"{name}: onert now agrees with eager: {record}"
        if "onert_vs_channel0_fc_codes" in record:
            assert record["onert_vs_channel0_fc_codes"] <= 1.0, f"{name}: onert's divergence is not the channel-0 one: {record}"
    else:
        assert record["onert_max_steps"] <= ONERT_MAX_STEPS, f"{name}: onert is {record['onert_max_steps']:.3f} steps off eager"

