"""Which operators make onert lose static shapes in a Circle model.

onert infers shapes when a session is prepared, from the input shapes it is given; an operator
whose result shape depends on tensor *values* (RESHAPE / BROADCAST_TO / FILL / RANGE / TILE /
SLICE with a computed operand, ...) gets a dynamic result, and so does everything computed
from it. A model output left dynamic fails at run time ("num_elements() cannot calculate when
any dimension is unspecified").

This script asks onert itself: it rewrites the model (with the independent ``circle_schema``
package) so that every operator result is also a model output, prepares an onert session with
concrete input shapes, and reads which outputs onert left with unknown dims. An *origin* is an
operator whose results are dynamic while none of its inputs is: that is where a static form
is needed.

    python tests/onert/dynamic_origins.py model.circle --shape 2,3,32,32 [--shape ...]

Input shapes default to the model's (dynamic dims as 1).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import flatbuffers
from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
from circle_schema.v0_10.circle.Model import Model, ModelT

OP_NAMES = {code: name for name, code in vars(BuiltinOperator).items() if not name.startswith("_")}


def load(path: Path) -> ModelT:
    data = path.read_bytes()
    return ModelT.InitFromPackedBuf(data, 0)


def opname(model: ModelT, op) -> str:
    code = model.operatorCodes[op.opcodeIndex]
    return OP_NAMES.get(max(code.builtinCode, code.deprecatedBuiltinCode) if code.builtinCode >= 0 else code.builtinCode, "?")


def with_every_result_as_output(model: ModelT) -> tuple[bytes, list[int]]:
    graph = model.subgraphs[0]
    produced = []
    for op in graph.operators or []:
        for t in op.outputs if op.outputs is not None else []:
            if t >= 0 and t not in produced:
                produced.append(int(t))
    original = [int(t) for t in graph.outputs]
    graph.outputs = original + [t for t in produced if t not in original]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"CIR0")
    return bytes(builder.Output()), [int(t) for t in graph.outputs]


def dynamic_tensors(circle: bytes, outputs: list[int], shapes: list[list[int]]) -> set[int]:
    from onert.native.libnnfw_api_pybind import infer, prepare_config

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.circle"
        path.write_bytes(circle)
        session = infer.nnfw_session(str(path), "cpu")
        for i, shape in enumerate(shapes):
            info = session.input_tensorinfo(i)
            info.rank = len(shape)
            info.dims = shape
            session.set_input_tensorinfo(i, info)
        session.set_prepare_config(prepare_config.ENABLE_INTERNAL_OUTPUT_ALLOC)
        session.prepare()
        dynamic = set()
        for position, tensor in enumerate(outputs):
            info = session.output_tensorinfo(position)
            if any(d < 0 for d in list(info.dims)[: info.rank]):
                dynamic.add(tensor)
        return dynamic


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", type=Path)
    parser.add_argument("--shape", action="append", default=[], help="an input shape, comma separated, in input order")
    args = parser.parse_args()
    model = load(args.model)
    graph = model.subgraphs[0]
    shapes = [[int(d) for d in s.split(",")] for s in args.shape]
    if not shapes:
        shapes = [[int(d) for d in graph.tensors[t].shape] for t in graph.inputs]
    circle, outputs = with_every_result_as_output(load(args.model))
    dynamic = dynamic_tensors(circle, outputs, shapes)
    names = {i: (t.name.decode() if isinstance(t.name, bytes) else t.name) for i, t in enumerate(graph.tensors)}
    origins = []
    for index, op in enumerate(graph.operators or []):
        ins = [int(t) for t in op.inputs if t >= 0]
        outs = [int(t) for t in op.outputs if t >= 0]
        if any(t in dynamic for t in outs) and not any(t in dynamic for t in ins):
            origins.append((index, opname(model, op), [names[t] for t in outs]))
    final = [names[int(t)] for t in graph.outputs if int(t) in dynamic]
    print(f"{len(dynamic)} dynamic tensors; dynamic model outputs: {final or 'none'}")
    for index, name, outs in origins:
        print(f"origin: operator {index} {name} -> {', '.join(outs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
