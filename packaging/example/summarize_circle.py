#!/usr/bin/env python3
"""Prints a summary of a Circle file read with the independent circle-schema package, and,
when given an input and the expected output, runs the model with onert and compares."""
import argparse
import collections
import sys

import numpy as np
from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
from circle_schema.v0_10.circle.Model import Model
from circle_schema.v0_10.circle.TensorType import TensorType

OP_NAMES = {v: k for k, v in vars(BuiltinOperator).items() if not k.startswith("_")}
TYPE_NAMES = {v: k for k, v in vars(TensorType).items() if not k.startswith("_")}


def tensor_text(sg, index):
    t = sg.Tensors(index)
    shape = [int(d) for d in t.ShapeAsNumpy()] if t.ShapeLength() else []
    if t.ShapeSignatureLength():
        shape = [("?" if s == -1 else d) for d, s in zip(shape, t.ShapeSignatureAsNumpy())]
    return f"{t.Name().decode()}: {TYPE_NAMES.get(t.Type(), t.Type())}{shape}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("circle")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--expected", action="append", default=[])
    args = parser.parse_args()
    buf = open(args.circle, "rb").read()
    if buf[4:8] != b"CIR0":
        sys.exit(f"{args.circle}: not a Circle file (identifier {buf[4:8]!r})")
    model = Model.GetRootAs(buf, 0)
    sg = model.Subgraphs(0)
    ops = collections.Counter()
    for i in range(sg.OperatorsLength()):
        code = model.OperatorCodes(sg.Operators(i).OpcodeIndex()).BuiltinCode()
        ops[OP_NAMES.get(code, str(code))] += 1
    weight_bytes = sum(model.Buffers(i).DataLength() for i in range(model.BuffersLength()))
    print(f"{args.circle}: {len(buf)} bytes, schema version {model.Version()}, "
          f"{model.SubgraphsLength()} subgraph(s)")
    print(f"  inputs:  " + ", ".join(tensor_text(sg, sg.Inputs(i)) for i in range(sg.InputsLength())))
    print(f"  outputs: " + ", ".join(tensor_text(sg, sg.Outputs(i)) for i in range(sg.OutputsLength())))
    print(f"  {sg.TensorsLength()} tensors, {model.BuffersLength()} buffers ({weight_bytes} bytes of constants)")
    print(f"  {sg.OperatorsLength()} operators: " + ", ".join(f"{n} x{c}" for n, c in sorted(ops.items())))
    if args.input:
        from onert import infer
        session = infer.session(args.circle)
        outputs = session.infer([np.load(p) for p in args.input])
        for i, (got, path) in enumerate(zip(outputs, args.expected)):
            want = np.load(path)
            diff = float(np.max(np.abs(got - want))) if want.size else 0.0
            ok = np.allclose(got, want, rtol=1e-5, atol=1e-5)
            print(f"  onert output {i}: shape {list(got.shape)}, max |diff| vs PyTorch = {diff:.3g} "
                  f"({'match' if ok else 'MISMATCH'} at rtol=atol=1e-5)")
            if not ok:
                sys.exit(1)


if __name__ == "__main__":
    main()
