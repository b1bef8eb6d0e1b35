"""Quantized kernels of the built-in runtime against a NumPy reference and against onert.

Every case is a small quantized Circle model written here with the independent
``circle_schema`` package (not with tico's writer). It runs on the built-in runtime
(``tico-circle run --runtime builtin``) and on onert 0.2 (in a child process, so a crash is a
result, not a dead test run). The reference is real arithmetic in float64 on the dequantized
inputs, mapped onto the output grid without rounding; differences are measured in output
quantization steps.

onert 0.2's Python binding cannot feed uint8 inputs, so uint8 kernels are checked in models
with float32 inputs and outputs and QUANTIZE / DEQUANTIZE at the boundary; int8 and int16
models take and return codes directly.

Asserted: the built-in runtime is within 1 step of the reference everywhere, and within 1 step
of onert wherever onert runs the model. ``TICO_QUANT_REPORT=path.json`` writes the per-case
figures (max steps vs the reference for both runtimes, bit-equal outputs) for docs/quantization.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import flatbuffers
import numpy as np
import pytest
from circle_schema.v0_10.circle.Buffer import BufferT
from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
from circle_schema.v0_10.circle.BuiltinOptions import BuiltinOptions
from circle_schema.v0_10.circle.Model import ModelT
from circle_schema.v0_10.circle.Operator import OperatorT
from circle_schema.v0_10.circle.OperatorCode import OperatorCodeT
from circle_schema.v0_10.circle.QuantizationParameters import QuantizationParametersT
from circle_schema.v0_10.circle.SubGraph import SubGraphT
from circle_schema.v0_10.circle.Tensor import TensorT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from onert_child import run_onert_child  # noqa: E402
from circle_schema.v0_10.circle.TensorType import TensorType

import importlib

TICO_CIRCLE = os.environ.get("TICO_CIRCLE", "tico-circle")
CIRCLE_TYPE = {"float32": TensorType.FLOAT32, "uint8": TensorType.UINT8, "int8": TensorType.INT8,
               "int16": TensorType.INT16, "int32": TensorType.INT32, "int64": TensorType.INT64}
RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}


@dataclass
class Tensor:
    dtype: str
    shape: tuple
    scale: list | None = None
    zp: list | None = None
    axis: int = 0
    data: np.ndarray | None = None  # constants


@dataclass
class Case:
    name: str
    tensors: dict[str, Tensor]
    ops: list[tuple[str, list[str], list[str], tuple[str, dict] | None]]
    inputs: list[str]
    outputs: list[str]
    feeds: list[np.ndarray]
    # Ideal (unrounded) output codes and the (scale, zero point) that maps a float output back to codes.
    ideal: list[np.ndarray] = field(default_factory=list)
    grid: list[tuple[float, int]] = field(default_factory=list)


def options(name: str, **fields):
    module = importlib.import_module(f"circle_schema.v0_10.circle.{name}")
    obj = getattr(module, f"{name}T")()
    for key, value in fields.items():
        assert hasattr(obj, key), f"{name} has no field {key}"
        setattr(obj, key, value)
    return getattr(BuiltinOptions, name), obj


def build(case: Case) -> bytes:
    names = list(case.tensors)
    tensors, buffers = [], [BufferT()]
    for name in names:
        spec = case.tensors[name]
        t = TensorT()
        t.name, t.shape, t.type, t.buffer = name, list(spec.shape), CIRCLE_TYPE[spec.dtype], 0
        if spec.scale is not None:
            q = QuantizationParametersT()
            q.scale = [float(s) for s in spec.scale]
            q.zeroPoint = [int(z) for z in spec.zp]
            q.quantizedDimension = spec.axis
            t.quantization = q
        if spec.data is not None:
            b = BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(spec.data.astype(spec.dtype)).tobytes(), dtype=np.uint8)
            buffers.append(b)
            t.buffer = len(buffers) - 1
        tensors.append(t)
    codes, operators = [], []
    for code_name, ins, outs, opts in case.ops:
        code = getattr(BuiltinOperator, code_name)
        if code not in [c.builtinCode for c in codes]:
            oc = OperatorCodeT()
            oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = code, min(code, 127), 1
            codes.append(oc)
        op = OperatorT()
        op.opcodeIndex = [c.builtinCode for c in codes].index(code)
        op.inputs = [names.index(n) if n else -1 for n in ins]
        op.outputs = [names.index(n) for n in outs]
        if opts:
            op.builtinOptionsType, op.builtinOptions = opts
        operators.append(op)
    graph = SubGraphT()
    graph.name, graph.tensors, graph.operators = "main", tensors, operators
    graph.inputs = [names.index(n) for n in case.inputs]
    graph.outputs = [names.index(n) for n in case.outputs]
    model = ModelT()
    model.version, model.description = 0, f"quantized kernel case {case.name}"
    model.operatorCodes, model.subgraphs, model.buffers = codes, [graph], buffers
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"CIR0")
    return bytes(builder.Output())


# ---- reference helpers ---------------------------------------------------------------------

def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def codes(dtype: str, shape, seed: int) -> np.ndarray:
    lo, hi = RANGE[dtype]
    return rng(seed).integers(lo, hi + 1, size=shape).astype(dtype)


def real(q: np.ndarray, scale, zp, axis: int | None = None) -> np.ndarray:
    s, z = np.asarray(scale, np.float64), np.asarray(zp, np.float64)
    if axis is not None and s.size > 1:
        shape = [1] * q.ndim
        shape[axis] = s.size
        s, z = s.reshape(shape), z.reshape(shape)
    return (q.astype(np.float64) - z) * s


def ideal(value: np.ndarray, scale: float, zp: int, dtype: str, lo=-np.inf, hi=np.inf) -> np.ndarray:
    tlo, thi = RANGE[dtype]
    return np.clip(value / scale + zp, max(lo, tlo), min(hi, thi))


def quantize(x: np.ndarray, scale: float, zp: int, dtype: str) -> np.ndarray:
    """float -> codes, half away from zero (what QUANTIZE does)."""
    v = x.astype(np.float64) / scale
    r = np.sign(v) * np.floor(np.abs(v) + 0.5) + zp
    lo, hi = RANGE[dtype]
    return np.clip(r, lo, hi).astype(dtype)


def conv_ref(x, w, b, stride, same, depthwise=False):
    """NHWC x, OHWI w (or [1, kh, kw, C*M] depthwise), float64."""
    n, h, wd, c = x.shape
    kh, kw = w.shape[1], w.shape[2]
    oc = w.shape[3] if depthwise else w.shape[0]
    oh = -(-h // stride) if same else (h - kh) // stride + 1
    ow = -(-wd // stride) if same else (wd - kw) // stride + 1
    ph = max((oh - 1) * stride + kh - h, 0) // 2 if same else 0
    pw = max((ow - 1) * stride + kw - wd, 0) // 2 if same else 0
    xp = np.zeros((n, h + kh + stride * 2, wd + kw + stride * 2, c))
    xp[:, ph:ph + h, pw:pw + wd, :] = x
    out = np.zeros((n, oh, ow, oc))
    for y in range(oh):
        for xx in range(ow):
            patch = xp[:, y * stride:y * stride + kh, xx * stride:xx * stride + kw, :]
            if depthwise:
                mult = oc // c
                out[:, y, xx, :] = np.einsum("nhwc,hwcm->ncm", patch, w[0].reshape(kh, kw, c, mult)).reshape(n, oc)
            else:
                out[:, y, xx, :] = np.einsum("nhwc,ohwc->no", patch, w)
    return out + b


# ---- cases ---------------------------------------------------------------------------------

def zp_of(dtype: str, offset: int) -> int:
    return 0 if dtype == "int16" else (128 + offset if dtype == "uint8" else offset)


def boundary(case: Case, first_in: str, scale: float, zp: int, dtype: str, last_out: str, out_scale: float,
             out_zp: int) -> Case:
    """Wraps a quantized case whose one input is `first_in` into float input/output with QUANTIZE and
    DEQUANTIZE (the form onert can feed when the codes are uint8)."""
    q_in = case.tensors[first_in]
    case.tensors = {"xf": Tensor("float32", q_in.shape), **case.tensors, "yf": Tensor("float32", case.tensors[last_out].shape)}
    case.ops = [("QUANTIZE", ["xf"], [first_in], None)] + case.ops + [("DEQUANTIZE", [last_out], ["yf"], None)]
    case.inputs = ["xf" if n == first_in else n for n in case.inputs]
    case.outputs = ["yf"]
    return case


def fc_case(act: str, wtype: str, per_channel: bool, float_io: bool) -> Case:
    rows, depth, units = 4, 24, 6
    unit = 1 / 256 if act == "int16" else 1.0  # int16 codes span 256x: keeps outputs unclipped
    in_s, in_z = 0.04 * unit, zp_of(act, -5)
    if per_channel:
        w_s = [0.01 + 0.004 * i for i in range(units)]
        w_z = [0] * units if wtype != "uint8" else [120 + i for i in range(units)]
    else:
        w_s, w_z = [0.012], [0 if wtype != "uint8" else 128]
    out_s, out_z = 0.06 * unit, zp_of(act, 3)
    xq = codes(act, (rows, depth), 1)
    wq = codes(wtype, (units, depth), 2)
    bias_t = "int64" if act == "int16" else "int32"
    bq = rng(3).integers(-300, 300, size=units).astype(bias_t)
    b_s = [in_s * s for s in (w_s if per_channel else w_s * 1)]
    tensors = {
        "x": Tensor(act, (rows, depth), [in_s], [in_z]),
        "w": Tensor(wtype, (units, depth), w_s, w_z, 0, wq),
        "b": Tensor(bias_t, (units,), b_s, [0] * len(b_s), 0, bq),
        "y": Tensor(act, (rows, units), [out_s], [out_z]),
    }
    value = real(xq, in_s, in_z) @ real(wq, w_s, w_z, 0).T + real(bq, b_s, [0] * len(b_s), 0 if per_channel else None)
    case = Case(f"FULLY_CONNECTED {act} x {wtype} {'per-channel' if per_channel else 'per-tensor'}", tensors,
                [("FULLY_CONNECTED", ["x", "w", "b"], ["y"], options("FullyConnectedOptions"))], ["x"], ["y"], [xq])
    case.ideal, case.grid = [ideal(value, out_s, out_z, act)], [(out_s, out_z)]
    if float_io:
        case = boundary(case, "x", in_s, in_z, act, "y", out_s, out_z)
        case.feeds = [real(xq, in_s, in_z).astype(np.float32)]
    return case


def conv_case(act: str, per_channel: bool, depthwise: bool, float_io: bool, stride=2, same=True) -> Case:
    n, h, w, c = 1, 7, 6, 3
    oc, kh, kw = (6 if depthwise else 4), 3, 3
    wtype = "uint8" if act == "uint8" else "int8"
    unit = 1 / 256 if act == "int16" else 1.0
    in_s, in_z = 0.03 * unit, zp_of(act, 10)
    if per_channel:
        w_s = [0.005 + 0.002 * i for i in range(oc)]
        w_z = [0] * oc if wtype == "int8" else [125 + i for i in range(oc)]
    else:
        w_s, w_z = [0.007], [0 if wtype == "int8" else 128]
    out_s, out_z = 0.04 * unit, zp_of(act, -4)
    xq = codes(act, (n, h, w, c), 4)
    wshape = (1, kh, kw, oc) if depthwise else (oc, kh, kw, c)
    wq = codes(wtype, wshape, 5)
    bias_t = "int64" if act == "int16" else "int32"
    bq = rng(6).integers(-200, 200, size=oc).astype(bias_t)
    b_s = [in_s * w_s[i if per_channel else 0] for i in range(oc)]
    axis = 3 if depthwise else 0
    tensors = {
        "x": Tensor(act, (n, h, w, c), [in_s], [in_z]),
        "w": Tensor(wtype, wshape, w_s, w_z, axis, wq),
        "b": Tensor(bias_t, (oc,), b_s, [0] * oc, 0, bq),
    }
    value = conv_ref(real(xq, in_s, in_z), real(wq, w_s, w_z, axis), real(bq, b_s, [0] * oc, 0), stride, same, depthwise)
    tensors["y"] = Tensor(act, value.shape, [out_s], [out_z])
    padding = 0 if same else 1
    if depthwise:
        opts = options("DepthwiseConv2DOptions", padding=padding, strideW=stride, strideH=stride, depthMultiplier=oc // c,
                       dilationWFactor=1, dilationHFactor=1)
    else:
        opts = options("Conv2DOptions", padding=padding, strideW=stride, strideH=stride, dilationWFactor=1, dilationHFactor=1)
    name = "DEPTHWISE_CONV_2D" if depthwise else "CONV_2D"
    case = Case(f"{name} {act} x {wtype} {'per-channel' if per_channel else 'per-tensor'}", tensors,
                [(name, ["x", "w", "b"], ["y"], opts)], ["x"], ["y"], [xq])
    case.ideal, case.grid = [ideal(value, out_s, out_z, act)], [(out_s, out_z)]
    if float_io:
        case = boundary(case, "x", in_s, in_z, act, "y", out_s, out_z)
        case.feeds = [real(xq, in_s, in_z).astype(np.float32)]
    return case


def binary_case(op: str, act: str, float_io: bool) -> Case:
    unit = 1 / 256 if act == "int16" else 1.0
    a_s, a_z, b_s, b_z = 0.02 * unit, zp_of(act, 3), 0.03 * unit, zp_of(act, -9)
    out_s = (0.05 if op != "MUL" else (0.1 if act != "int16" else 0.1 / 4)) * unit
    out_z = zp_of(act, 6)
    aq, bq = codes(act, (2, 3, 4), 7), codes(act, (1, 1, 4), 8)
    tensors = {"a": Tensor(act, (2, 3, 4), [a_s], [a_z]), "b": Tensor(act, (1, 1, 4), [b_s], [b_z], 0, bq),
               "y": Tensor(act, (2, 3, 4), [out_s], [out_z])}
    u, v = real(aq, a_s, a_z), real(bq, b_s, b_z)
    value = {"ADD": u + v, "SUB": u - v, "MUL": u * v}[op]
    # onert's loader reads the options table unconditionally: every case writes one.
    opts = options({"ADD": "AddOptions", "SUB": "SubOptions", "MUL": "MulOptions"}[op])
    case = Case(f"{op} {act} broadcast", tensors, [(op, ["a", "b"], ["y"], opts)], ["a"], ["y"], [aq])
    case.ideal, case.grid = [ideal(value, out_s, out_z, act)], [(out_s, out_z)]
    if float_io:
        case = boundary(case, "a", a_s, a_z, act, "y", out_s, out_z)
        case.feeds = [u.astype(np.float32)]
    return case


def unary_case(op: str, act: str, float_io: bool) -> Case:
    in_s, in_z = (8 / 32768 if act == "int16" else 0.06), zp_of(act, 0)
    shape = (3, 10)
    if op == "LOGISTIC" or op == "SOFTMAX":
        out_s, out_z = {"uint8": (1 / 256, 0), "int8": (1 / 256, -128), "int16": (1 / 32768, 0)}[act]
    else:
        out_s, out_z = {"uint8": (1 / 128, 128), "int8": (1 / 128, 0), "int16": (1 / 32768, 0)}[act]
    xq = codes(act, shape, 9)
    u = real(xq, in_s, in_z)
    opts = None
    if op == "LOGISTIC":
        value = 1 / (1 + np.exp(-u))
    elif op == "TANH":
        value = np.tanh(u)
    else:
        e = np.exp(u - u.max(axis=-1, keepdims=True))
        value = e / e.sum(axis=-1, keepdims=True)
        opts = options("SoftmaxOptions", beta=1.0)
    tensors = {"x": Tensor(act, shape, [in_s], [in_z]), "y": Tensor(act, shape, [out_s], [out_z])}
    case = Case(f"{op} {act}", tensors, [(op, ["x"], ["y"], opts)], ["x"], ["y"], [xq])
    case.ideal, case.grid = [ideal(value, out_s, out_z, act)], [(out_s, out_z)]
    if float_io:
        case = boundary(case, "x", in_s, in_z, act, "y", out_s, out_z)
        case.feeds = [u.astype(np.float32)]
    return case


def pool_mean_case(op: str, act: str, float_io: bool) -> Case:
    s, z = 0.05, zp_of(act, -2)
    xq = codes(act, (1, 4, 6, 3), 10)
    u = real(xq, s, z)
    if op == "MEAN":
        out_s, out_z = 0.02, zp_of(act, 5)
        value = u.mean(axis=(1, 2), keepdims=True)
        extra = {"axes": Tensor("int32", (2,), data=np.array([1, 2], np.int32))}
        ops = [("MEAN", ["x", "axes"], ["y"], options("ReducerOptions", keepDims=True))]
    else:
        out_s, out_z = s, z
        windows = u.reshape(1, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(1, 2, 3, 4, 3)
        value = windows.max(axis=3) if op == "MAX_POOL_2D" else windows.mean(axis=3)
        extra = {}
        ops = [(op, ["x"], ["y"], options("Pool2DOptions", padding=1, strideW=2, strideH=2, filterWidth=2, filterHeight=2))]
    tensors = {"x": Tensor(act, (1, 4, 6, 3), [s], [z]), **extra, "y": Tensor(act, value.shape, [out_s], [out_z])}
    case = Case(f"{op} {act}", tensors, ops, ["x"], ["y"], [xq])
    case.ideal, case.grid = [ideal(value, out_s, out_z, act)], [(out_s, out_z)]
    if float_io:
        case = boundary(case, "x", s, z, act, "y", out_s, out_z)
        case.feeds = [u.astype(np.float32)]
    return case


def concat_case(act: str) -> Case:
    a_s, a_z, b_s, b_z, o_s, o_z = 0.1, zp_of(act, 0), 0.03, zp_of(act, 20), 0.1, zp_of(act, 0)
    aq, bq = codes(act, (2, 3), 11), codes(act, (2, 2), 12)
    tensors = {"a": Tensor(act, (2, 3), [a_s], [a_z]), "b": Tensor(act, (2, 2), [b_s], [b_z]),
               "y": Tensor(act, (2, 5), [o_s], [o_z])}
    value = np.concatenate([real(aq, a_s, a_z), real(bq, b_s, b_z)], axis=1)
    case = Case(f"CONCATENATION {act} requantized", tensors,
                [("CONCATENATION", ["a", "b"], ["y"], options("ConcatenationOptions", axis=1))], ["a", "b"], ["y"], [aq, bq])
    case.ideal, case.grid = [ideal(value, o_s, o_z, act)], [(o_s, o_z)]
    return case


def requantize_case(src: str, dst: str) -> Case:
    i_s, i_z = (0.05 / 256 if src == "int16" else 0.05), zp_of(src, 4)
    o_s, o_z = (0.05 / 256 if dst == "int16" else 0.07), zp_of(dst, -3)
    xq = codes(src, (32,), 13)
    tensors = {"x": Tensor(src, (32,), [i_s], [i_z]), "y": Tensor(dst, (32,), [o_s], [o_z])}
    case = Case(f"QUANTIZE {src} -> {dst}", tensors, [("QUANTIZE", ["x"], ["y"], None)], ["x"], ["y"], [xq])
    case.ideal, case.grid = [ideal(real(xq, i_s, i_z), o_s, o_z, dst)], [(o_s, o_z)]
    return case


def batch_matmul_case(act: str) -> Case:
    unit = 1 / 256 if act == "int16" else 1.0
    l_s, r_s, o_s = 0.05 * unit, 0.04 * unit, 0.2 * unit
    lq, rq = codes(act, (2, 3, 8), 14), codes(act, (2, 8, 5), 15)
    tensors = {"l": Tensor(act, (2, 3, 8), [l_s], [0]), "r": Tensor(act, (2, 8, 5), [r_s], [0]),
               "y": Tensor(act, (2, 3, 5), [o_s], [0])}
    value = real(lq, l_s, 0) @ real(rq, r_s, 0)
    case = Case(f"BATCH_MATMUL {act}", tensors, [("BATCH_MATMUL", ["l", "r"], ["y"], options("BatchMatMulOptions"))], ["l", "r"], ["y"], [lq, rq])
    case.ideal, case.grid = [ideal(value, o_s, 0, act)], [(o_s, 0)]
    return case


def movement_case(act: str) -> Case:
    s, z = 0.1, zp_of(act, -7)
    xq = codes(act, (2, 3, 4), 16)
    tensors = {
        "x": Tensor(act, (2, 3, 4), [s], [z]),
        "perm": Tensor("int32", (3,), data=np.array([2, 0, 1], np.int32)),
        "t": Tensor(act, (4, 2, 3), [s], [z]),
        "pads": Tensor("int32", (3, 2), data=np.array([[0, 0], [1, 0], [0, 2]], np.int32)),
        "p": Tensor(act, (4, 3, 5), [s], [z]),
        "shape": Tensor("int32", (2,), data=np.array([12, 5], np.int32)),
        "r": Tensor(act, (12, 5), [s], [z]),
        "idx": Tensor("int32", (3,), data=np.array([11, 0, 4], np.int32)),
        "y": Tensor(act, (3, 5), [s], [z]),
    }
    t = xq.transpose(2, 0, 1)
    p = np.pad(t, [(0, 0), (1, 0), (0, 2)], constant_values=z)
    value = p.reshape(12, 5)[[11, 0, 4]]
    case = Case(f"TRANSPOSE+PAD+RESHAPE+GATHER {act}", tensors,
                [("TRANSPOSE", ["x", "perm"], ["t"], None), ("PAD", ["t", "pads"], ["p"], None),
                 ("RESHAPE", ["p", "shape"], ["r"], None), ("GATHER", ["r", "idx"], ["y"], options("GatherOptions", axis=0))],
                ["x"], ["y"], [xq])
    case.ideal, case.grid = [value.astype(np.float64)], [(s, z)]
    return case


def all_cases() -> list[Case]:
    cases = []
    for act, float_io in (("int8", False), ("int16", False), ("uint8", True)):
        weights = {"int8": ["int8"], "int16": ["int8"], "uint8": ["uint8"]}[act]
        for wtype in weights:
            for per_channel in (True, False):
                cases.append(fc_case(act, wtype, per_channel, float_io))
        for per_channel in (True, False):
            cases.append(conv_case(act, per_channel, False, float_io))
            cases.append(conv_case(act, per_channel, True, float_io))
        for op in ("ADD", "SUB", "MUL"):
            cases.append(binary_case(op, act, float_io))
        for op in ("LOGISTIC", "TANH", "SOFTMAX"):
            cases.append(unary_case(op, act, float_io))
        for op in ("MAX_POOL_2D", "AVERAGE_POOL_2D", "MEAN"):
            cases.append(pool_mean_case(op, act, float_io))
    cases.append(fc_case("int16", "uint8", True, False))
    for act in ("int8", "int16"):
        cases += [concat_case(act), batch_matmul_case(act), movement_case(act)]
    cases += [requantize_case("int8", "int16"), requantize_case("int16", "int8"), requantize_case("int8", "int8")]
    return cases


# ---- runtimes ------------------------------------------------------------------------------

def run_builtin(model: Path, feeds: list[np.ndarray], work: Path) -> list[np.ndarray]:
    args = [TICO_CIRCLE, "run", str(model), "--output-dir", str(work / "builtin")]
    for i, feed in enumerate(feeds):
        np.save(work / f"in{i}.npy", feed)
        args += ["--input", str(work / f"in{i}.npy")]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, f"tico-circle run failed: {proc.stderr}"
    outputs, i = [], 0
    while (work / "builtin" / f"out{i}.npy").exists():
        outputs.append(np.load(work / "builtin" / f"out{i}.npy"))
        i += 1
    return outputs


def run_onert(model: Path, feeds: list[np.ndarray], work: Path) -> list[np.ndarray] | str:
    outputs, proc, phases = run_onert_child(model, feeds, work)
    if outputs is None:
        lines = [line.strip() for line in (proc.stderr or "").splitlines() if line.strip()]
        how = "crashed (signal %d)" % -proc.returncode if proc.returncode < 0 else (lines[-1] if lines else "failed")
        return f"onert {how} at {phases[-1] if phases else 'start'}"
    return outputs


def as_codes(output: np.ndarray, grid: tuple[float, int]) -> np.ndarray:
    if output.dtype == np.float32:  # a DEQUANTIZE output: back onto the code grid (exact up to float rounding)
        return np.round(output.astype(np.float64) / grid[0] + grid[1])
    return output.astype(np.float64)


# Cases where onert runs the model but its own result is far from the float64 reference (so a
# difference to the built-in runtime says nothing about the built-in kernels). The test checks
# that onert still diverges, so a fixed onert shows up here.
KNOWN_ONERT_DIVERGENCE = {
    # onert 0.2 computes uint8 FULLY_CONNECTED with per-channel weights ~48 steps off: it does
    # not apply the per-channel scales / zero points (LiteRT rejects this combination outright).
    "FULLY_CONNECTED uint8 x uint8 per-channel",
}

REPORT: list[dict] = []
CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_quantized_kernel(case: Case):
    with tempfile.TemporaryDirectory(prefix="tico-quant-") as tmp:
        work = Path(tmp)
        model = work / "model.circle"
        model.write_bytes(build(case))
        builtin = run_builtin(model, case.feeds, work)
        onert = run_onert(model, case.feeds, work)
    record = {"case": case.name, "outputs": int(sum(i.size for i in case.ideal))}
    assert len(builtin) == len(case.ideal)
    builtin_codes = [as_codes(o, g) for o, g in zip(builtin, case.grid)]
    record["builtin_steps"] = max(float(np.max(np.abs(b - i))) for b, i in zip(builtin_codes, case.ideal))
    if isinstance(onert, str):
        record["onert"] = onert
    else:
        onert_codes = [as_codes(o, g) for o, g in zip(onert, case.grid)]
        record["onert_steps"] = max(float(np.max(np.abs(o - i))) for o, i in zip(onert_codes, case.ideal))
        record["bit_equal"] = int(sum(int(np.sum(b == o)) for b, o in zip(builtin_codes, onert_codes)))
        record["builtin_vs_onert_steps"] = max(float(np.max(np.abs(b - o))) for b, o in zip(builtin_codes, onert_codes))
    REPORT.append(record)
    if os.environ.get("TICO_QUANT_REPORT"):
        Path(os.environ["TICO_QUANT_REPORT"]).write_text(json.dumps(REPORT, indent=1))
    print(json.dumps(record))
    assert record["builtin_steps"] <= 1.0, record
    if case.name in KNOWN_ONERT_DIVERGENCE:
        assert record.get("onert_steps", 0.0) > 1.0, f"onert now agrees with the reference: {record}"
    elif "builtin_vs_onert_steps" in record:
        assert record["builtin_vs_onert_steps"] <= 1.0, record
