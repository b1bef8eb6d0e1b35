"""Circle helpers for the e2e suite, built on the independent ``circle_schema`` package.

The converter writes Circle with its own FlatBuffers schema and writer; decoding
its output with Samsung's separately generated Python reader is what makes the
structural checks independent.  This module also builds a tiny Circle model by
hand, which the suite runs on onert to prove the runtime side of the harness
works before blaming a converted model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import flatbuffers
import numpy as np
from circle_schema.v0_10.circle.ActivationFunctionType import ActivationFunctionType
from circle_schema.v0_10.circle.AddOptions import AddOptionsT
from circle_schema.v0_10.circle.Buffer import BufferT
from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
from circle_schema.v0_10.circle.BuiltinOptions import BuiltinOptions
from circle_schema.v0_10.circle.FullyConnectedOptions import FullyConnectedOptionsT
from circle_schema.v0_10.circle.Model import Model, ModelT
from circle_schema.v0_10.circle.Operator import OperatorT
from circle_schema.v0_10.circle.OperatorCode import OperatorCodeT
from circle_schema.v0_10.circle.SubGraph import SubGraphT
from circle_schema.v0_10.circle.Tensor import TensorT
from circle_schema.v0_10.circle.TensorType import TensorType

CIRCLE_IDENTIFIER = b"CIR0"

# Circle TensorType codes for the numpy dtypes the suite uses.
NUMPY_TO_CIRCLE_TYPE = {
    np.dtype(np.float32): TensorType.FLOAT32,
    np.dtype(np.float16): TensorType.FLOAT16,
    np.dtype(np.int8): TensorType.INT8,
    np.dtype(np.uint8): TensorType.UINT8,
    np.dtype(np.int16): TensorType.INT16,
    np.dtype(np.int32): TensorType.INT32,
    np.dtype(np.int64): TensorType.INT64,
    np.dtype(np.bool_): TensorType.BOOL,
}


def load_model(path: Path) -> ModelT:
    """Decodes a Circle file, checking the file identifier first."""
    data = path.read_bytes()
    if not Model.ModelBufferHasIdentifier(data, 0):
        raise AssertionError(f"{path}: file identifier is {data[4:8]!r}, expected {CIRCLE_IDENTIFIER!r}")
    return ModelT.InitFromPackedBuf(data, 0)


def _as_list(values) -> list[int]:
    """circle_schema gives numpy arrays or None for int vectors; normalise to a list."""
    return [] if values is None else [int(v) for v in values]


@dataclass
class ExpectedTensor:
    """What an interface tensor must look like: concrete dims, symbolic dims, dtype."""

    shape: list[int]  # the example size of every dim
    dynamic: list[bool]  # True where the exported dim is symbolic
    dtype: np.dtype


def check_interface_tensor(tensor: TensorT, expected: ExpectedTensor, what: str) -> None:
    """Checks one input/output tensor against the exported program's metadata.

    Circle's dynamic-shape convention: a symbolic dim is 1 in ``shape`` and -1
    in ``shape_signature``; a fully static tensor has no ``shape_signature``
    (an empty-but-present signature breaks the ONE runtime).
    """
    shape = _as_list(tensor.shape)
    signature = _as_list(tensor.shapeSignature)
    assert len(shape) == len(expected.shape), f"{what}: rank {len(shape)} != {len(expected.shape)} ({shape})"
    wanted_type = NUMPY_TO_CIRCLE_TYPE[expected.dtype]
    assert tensor.type == wanted_type, f"{what}: Circle type {tensor.type} != {wanted_type} ({expected.dtype})"
    if any(expected.dynamic):
        assert len(signature) == len(shape), f"{what}: shape_signature {signature} does not match rank of {shape}"
        for dim, (size, sig, is_dynamic, example) in enumerate(zip(shape, signature, expected.dynamic, expected.shape)):
            if is_dynamic:
                assert sig == -1, f"{what}: dim {dim} is symbolic but shape_signature is {signature}"
                assert size == 1, f"{what}: symbolic dim {dim} must be 1 in shape, got {shape}"
            else:
                assert sig == size == example, f"{what}: static dim {dim}: shape {shape}, signature {signature}, expected {example}"
    else:
        assert tensor.shapeSignature is None, f"{what}: static tensor has a shape_signature {signature}"
        assert shape == expected.shape, f"{what}: shape {shape} != {expected.shape}"


def check_model(model: ModelT, inputs: list[ExpectedTensor], outputs: list[ExpectedTensor]) -> None:
    """Structural checks every converted model must pass."""
    assert model.version == 0, f"Model.version is {model.version}, expected 0"
    assert model.subgraphs is not None and len(model.subgraphs) == 1, "expected exactly one subgraph"
    graph: SubGraphT = model.subgraphs[0]
    tensors = graph.tensors or []
    graph_inputs = _as_list(graph.inputs)
    graph_outputs = _as_list(graph.outputs)
    assert len(graph_inputs) == len(inputs), f"{len(graph_inputs)} Circle inputs, module has {len(inputs)}"
    assert len(graph_outputs) == len(outputs), f"{len(graph_outputs)} Circle outputs, module has {len(outputs)}"
    for position, (index, expected) in enumerate(zip(graph_inputs, inputs)):
        check_interface_tensor(tensors[index], expected, f"input {position} (tensor {index})")
    for position, (index, expected) in enumerate(zip(graph_outputs, outputs)):
        check_interface_tensor(tensors[index], expected, f"output {position} (tensor {index})")

    # Every tensor, interface or not: signatures are consistent with shapes, and
    # a program without symbolic dims has no -1 anywhere.
    has_dynamic = any(any(t.dynamic) for t in inputs + outputs)
    buffers = model.buffers or []
    assert buffers and (buffers[0].data is None or len(buffers[0].data) == 0), "buffer 0 must be the empty sentinel"
    for index, tensor in enumerate(tensors):
        shape = _as_list(tensor.shape)
        signature = _as_list(tensor.shapeSignature)
        assert 0 <= tensor.buffer < len(buffers), f"tensor {index} refers to buffer {tensor.buffer} of {len(buffers)}"
        if tensor.shapeSignature is not None:
            assert len(signature) == len(shape), f"tensor {index}: signature {signature} vs shape {shape}"
            for size, sig in zip(shape, signature):
                assert sig == size or (sig == -1 and size == 1), f"tensor {index}: signature {signature} vs shape {shape}"
            if not has_dynamic:
                assert -1 not in signature, f"tensor {index}: symbolic dim in a static program ({signature})"

    # Operators refer to existing opcodes and tensors (-1 marks an omitted optional input).
    opcodes = model.operatorCodes or []
    for position, op in enumerate(graph.operators or []):
        assert 0 <= op.opcodeIndex < len(opcodes), f"operator {position}: opcode index {op.opcodeIndex}"
        for index in _as_list(op.inputs) + _as_list(op.outputs):
            assert -1 <= index < len(tensors), f"operator {position}: tensor index {index}"


def has_float16_weights(model: ModelT) -> bool:
    """Whether a subgraph holds a FLOAT16 constant (store-float16-weights' stored weights)."""
    for graph in model.subgraphs:
        for tensor in graph.tensors:
            if tensor.type == TensorType.FLOAT16 and tensor.buffer and model.buffers[tensor.buffer].data is not None \
                    and len(model.buffers[tensor.buffer].data) > 0:
                return True
    return False


def operator_names(model: ModelT) -> list[str]:
    """Builtin operator names of the model's operators, in execution order (for messages)."""
    by_code = {code: name for name, code in vars(BuiltinOperator).items() if not name.startswith("_")}
    opcodes = model.operatorCodes or []
    names = []
    for op in model.subgraphs[0].operators or []:
        names.append(by_code.get(opcodes[op.opcodeIndex].builtinCode, "?"))
    return names


# ---------------------------------------------------------------------------
# A hand-made model: out = FULLY_CONNECTED(x, W, b) + x[:, :units], batch dynamic.
# ---------------------------------------------------------------------------


def _tensor(name: str, shape: list[int], buffer: int, signature: list[int] | None = None) -> TensorT:
    tensor = TensorT()
    tensor.name = name
    tensor.shape = shape
    tensor.shapeSignature = signature
    tensor.type = TensorType.FLOAT32
    tensor.buffer = buffer
    return tensor


def _buffer(array: np.ndarray | None) -> BufferT:
    buffer = BufferT()
    buffer.data = None if array is None else np.frombuffer(array.tobytes(), dtype=np.uint8)
    return buffer


def _opcode(code: int) -> OperatorCodeT:
    opcode = OperatorCodeT()
    opcode.builtinCode = code
    opcode.deprecatedBuiltinCode = min(code, 127)
    opcode.version = 1
    return opcode


def build_handmade_model(weight: np.ndarray, bias: np.ndarray) -> bytes:
    """Serialises ``y = x @ weight.T + bias; out = y + y`` with a dynamic batch dim.

    Only the circle_schema object API is used, so the file is independent of
    the converter under test.
    """
    units, features = weight.shape
    graph = SubGraphT()
    graph.name = "subgraph"
    graph.tensors = [
        _tensor("x", [1, features], 0, [-1, features]),
        _tensor("weight", [units, features], 1),
        _tensor("bias", [units], 2),
        _tensor("fc", [1, units], 0, [-1, units]),
        _tensor("out", [1, units], 0, [-1, units]),
    ]
    graph.inputs = [0]
    graph.outputs = [4]

    fully_connected = OperatorT()
    fully_connected.opcodeIndex = 0
    fully_connected.inputs = [0, 1, 2]
    fully_connected.outputs = [3]
    fully_connected.builtinOptionsType = BuiltinOptions.FullyConnectedOptions
    fully_connected.builtinOptions = FullyConnectedOptionsT()
    fully_connected.builtinOptions.fusedActivationFunction = ActivationFunctionType.NONE
    fully_connected.builtinOptions.keepNumDims = True

    add = OperatorT()
    add.opcodeIndex = 1
    add.inputs = [3, 3]
    add.outputs = [4]
    add.builtinOptionsType = BuiltinOptions.AddOptions
    add.builtinOptions = AddOptionsT()
    graph.operators = [fully_connected, add]

    model = ModelT()
    model.version = 0
    model.description = "e2e hand-made model"
    model.operatorCodes = [_opcode(BuiltinOperator.FULLY_CONNECTED), _opcode(BuiltinOperator.ADD)]
    model.subgraphs = [graph]
    model.buffers = [_buffer(None), _buffer(weight.astype(np.float32)), _buffer(bias.astype(np.float32))]

    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=CIRCLE_IDENTIFIER)
    return bytes(builder.Output())
