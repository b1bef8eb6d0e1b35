#!/usr/bin/env python3
"""Exports small models with torch.export and writes the .pt2 archives the pt2 frontend tests read.

Usage: make_fixtures.py OUT_DIR

Besides <name>.pt2, writes fixtures.json describing what PyTorch itself reads back from each
archive (torch.export.load): every saved tensor (dtype, sizes, strides, storage offset and its
bytes in <name>.<fqn>.bin, row-major), the graph inputs and the type of every node output.
The C++ tests compare the frontend's graph against this description.
"""
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Tied(nn.Module):
    """An embedding and an output head sharing one Parameter, and two Parameters that are
    slices of one storage (so the saved file is shared and one view has an offset)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.emb.weight
        base = torch.randn(10)
        self.scale = nn.Parameter(base[:4])
        self.shift = nn.Parameter(base[4:8])

    def forward(self, ids):
        return self.head(self.emb(ids) * self.scale + self.shift)


class Dynamic(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x.reshape(x.shape[0], -1))


class BuffersConstants(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((3,), 2.0))
        self.register_buffer("shift", torch.arange(3, dtype=torch.float32), persistent=False)
        self.offsets = torch.tensor([0.5, -1.5, 3.0])  # a plain attribute: a lifted constant

    def forward(self, x):
        return x * self.scale + self.shift + self.offsets


class MultiOutput(nn.Module):
    def forward(self, x):
        values, indices = torch.max(x, 1)
        head, tail = torch.split(x, [1, 3], 1)
        return values, indices, head, tail


class Defaults(nn.Module):
    def forward(self, x):
        return F.gelu(x).sum(1, keepdim=True), F.softmax(x, -1)


class Shapes(nn.Module):
    """A permute, a concatenation, a reshape, a broadcast and an expand: ops whose recorded
    output shapes the frontend checks against their inputs'."""

    def __init__(self):
        super().__init__()
        self.register_buffer("bias", torch.linspace(-1.0, 1.0, 24))

    def forward(self, x):
        y = x.permute(0, 2, 1)
        z = torch.cat([y, y * 2], 1)
        return z.reshape(2, 24) + self.bias, x[:, :1, :].expand(2, 5, 4)


FIXTURES = {
    "linear": (Linear, (torch.randn(2, 4),), None),
    "conv": (Conv, (torch.randn(1, 3, 8, 8),), None),
    "tied": (Tied, (torch.tensor([[1, 2, 3], [4, 5, 6]]),), None),
    "dynamic": (Dynamic, (torch.randn(2, 2, 2),), ({0: torch.export.Dim("batch", min=1, max=64)},)),
    "buffers": (BuffersConstants, (torch.randn(2, 3),), None),
    "multi_output": (MultiOutput, (torch.randn(2, 4),), None),
    "defaults": (Defaults, (torch.randn(2, 5),), None),
    "shapes": (Shapes, (torch.randn(2, 3, 4),), None),
}


def shape_of(val):
    return [int(d) if isinstance(d, int) or str(d).lstrip("-").isdigit() else str(d) for d in val.shape]


def describe(ep, name, out_dir):
    """What torch.export.load gives back, in a form the C++ test can check."""
    tensors = {}
    for fqn, t in list(ep.state_dict.items()) + list(ep.constants.items()):
        if not isinstance(t, torch.Tensor):
            continue
        path = f"{name}.{fqn}.bin"
        with open(os.path.join(out_dir, path), "wb") as f:
            f.write(t.detach().contiguous().numpy().tobytes())
        tensors[fqn] = {
            "dtype": str(t.dtype),
            "sizes": list(t.shape),
            "strides": list(t.stride()),
            "storage_offset": t.storage_offset(),
            "bin": path,
        }
    kinds = {
        "USER_INPUT": "user",
        "PARAMETER": "parameter",
        "BUFFER": "buffer",
        "CONSTANT_TENSOR": "constant",
    }
    inputs = [
        {"name": spec.arg.name, "kind": kinds[spec.kind.name], "target": spec.target or "",
         "persistent": spec.persistent}
        for spec in ep.graph_signature.input_specs
    ]
    values = {}
    for node in ep.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and node.op in ("placeholder", "call_function"):
            values[node.name] = {"dtype": str(val.dtype), "shape": shape_of(val)}
    ranges = {str(sym): [int(r.lower), None if r.upper.is_infinite else int(r.upper)]
              for sym, r in ep.range_constraints.items()}
    outputs = [spec.arg.name for spec in ep.graph_signature.output_specs]
    return {"file": f"{name}.pt2", "tensors": tensors, "inputs": inputs, "values": values,
            "ranges": ranges, "user_outputs": outputs}


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    summary = {"torch_version": torch.__version__, "fixtures": {}}
    for name, (cls, args, dynamic_shapes) in FIXTURES.items():
        model = cls().eval()
        ep = torch.export.export(model, args, dynamic_shapes=dynamic_shapes)
        path = os.path.join(out_dir, f"{name}.pt2")
        torch.export.save(ep, path)
        summary["fixtures"][name] = describe(torch.export.load(path), name, out_dir)
    with open(os.path.join(out_dir, "fixtures.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
