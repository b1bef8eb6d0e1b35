#!/usr/bin/env python3
"""Writes the checked-in seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

Usage: make_seeds.py PT2_ARCHIVE... [--out DIR]

The .pt2 archives are small torch.export programs (the e2e suite exports them: Abs, a Linear
layer, a dynamic-shape module, BatchNorm with buffers). Each becomes two pt2-reader seeds:
the whole archive behind a 0 byte and its program JSON behind a 1 byte (the fuzzer's two
modes, see pt2_reader_fuzzer.cpp). Manifest seeds are the packaged pipelines and small
manifests using every syntax form; textual IR seeds are the lit tests' graphs; .npy seeds are
written with NumPy in each supported format version and several dtypes; .npz seeds with
numpy.savez and savez_compressed; torch-pickle seeds are the data.pkl of torch.save'd example
inputs (needs torch). Rerunning the script with the same inputs writes the same files (but for
the timestamps numpy.savez puts into its zip headers).
"""
import argparse
import io
import os
import re
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

MANIFESTS = {
    "minimal.yaml": "schema: tico.pipeline/v1\nstages: []\n",
    "forms.yaml": (
        "schema: tico.pipeline/v1\n"
        "config:\n  convert_rhs_const_mm_to_fc: true\n"
        "verify_each: false\n"
        "stages:\n"
        "  - name: cleanup\n    strategy: until_no_change\n"
        "    passes:\n      - remove-nop\n      - name: fold-constants\n        options: {max_elements: 64, ops: [a, b]}\n"
        "  - name: compact\n    strategy: once\n    when: has-op(aten::add.Tensor)\n"
        "    passes: ['remove-dead-code{keep_outputs=true}', \"x{n=1,s=abc}\"]\n"
        "  - name: quant\n    kind: quantize\n    when: has-quant-ops\n    passes: [q]\n"
        "  - name: circle\n    kind: circle\n    passes: [fuse-activation]\n"
    ),
    "quotes.yaml": "schema: 'tico.pipeline/v1'\nstages:\n  - name: \"it's\"\n    passes: ['a''b']\n",
    "calibration.yaml": (
        "schema: tico.pipeline/v1\n"
        "calibration:\n  source: npy\n  path: calib\n  batches: 4\n  seed: 7\n  dims: {s0: 128}\n"
        "  memory_budget: 1.5GiB\n  offload_dir: /tmp\n"
        "stages:\n  - name: q\n    kind: quantize\n    passes: [{name: gptq, options: {bits: 4}}, ptq]\n"
    ),
}


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def pt2_seeds(archives, out):
    for path in archives:
        name = os.path.splitext(os.path.basename(path))[0]
        data = open(path, "rb").read()
        write(os.path.join(out, "pt2-reader", f"archive-{name}"), b"\0" + data)
        with zipfile.ZipFile(path) as z:
            program = next(n for n in z.namelist() if "/models/" in n and n.endswith(".json"))
            write(os.path.join(out, "pt2-reader", f"json-{name}"), b"\1" + z.read(program))


def manifest_seeds(out):
    for name in ("circle-o1.yaml", "default.yaml"):
        write(os.path.join(out, "manifest", name), open(os.path.join(REPO, "configs/pipelines", name), "rb").read())
    for name in sorted(os.listdir(os.path.join(REPO, "configs/quant"))):
        write(os.path.join(out, "manifest", "quant-" + name), open(os.path.join(REPO, "configs/quant", name), "rb").read())
    for name, text in MANIFESTS.items():
        write(os.path.join(out, "manifest", name), text.encode())


def text_ir_seeds(out, limit=24):
    """The graphs of the lit tests, without RUN/CHECK lines, smallest first."""
    graphs = []
    lit = os.path.join(REPO, "tests/lit")
    for root, _, files in sorted(os.walk(lit)):
        for f in sorted(files):
            if not f.endswith(".tir"):
                continue
            text = open(os.path.join(root, f)).read()
            for i, chunk in enumerate(re.split(r"^// -----$", text, flags=re.M)):
                body = "".join(l for l in chunk.splitlines(True) if not l.lstrip().startswith("//"))
                if "graph" in body:
                    graphs.append((len(body), f"{f[:-4]}-{i}", body.strip() + "\n"))
    graphs.sort()
    for _, name, body in graphs[:limit]:
        write(os.path.join(out, "text-ir", name + ".tir"), body.encode())


def npy_seeds(out):
    arrays = {
        "f32-2x3": np.arange(6, dtype=np.float32).reshape(2, 3),
        "i64-scalar": np.array(7, dtype=np.int64),
        "bool-4": np.array([True, False, True, True]),
        "f16-3": np.array([1.5, -2.0, 0.25], dtype=np.float16),
        "u8-empty": np.zeros((0, 3), dtype=np.uint8),
        "i32-2x1x2": np.arange(4, dtype=np.int32).reshape(2, 1, 2),
        "f64-fortran-1d": np.asfortranarray(np.array([1.0, 2.0])),
        "c64-2": np.array([1 + 2j, 3 - 4j], dtype=np.complex64),
    }
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, array, version=(1, 0))
        write(os.path.join(out, "npy-reader", name + ".npy"), buffer.getvalue())
    for version in ((2, 0), (3, 0)):
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, arrays["f32-2x3"], version=version)
        write(os.path.join(out, "npy-reader", f"f32-2x3-v{version[0]}.npy"), buffer.getvalue())


def npz_seeds(out):
    """numpy.savez (stored) and savez_compressed (deflated) files of one and several arrays."""
    arrays = {"x": np.arange(6, dtype=np.float32).reshape(2, 3), "ids": np.array([[1, 2, 3]], dtype=np.int64)}
    for name, save in (("stored", np.savez), ("deflated", np.savez_compressed)):
        for subset in (("x",), ("x", "ids")):
            buffer = io.BytesIO()
            save(buffer, **{k: arrays[k] for k in subset})
            write(os.path.join(out, "npz-reader", f"{name}-{'-'.join(subset)}.npz"), buffer.getvalue())


def torch_pickle_seeds(out):
    """data.pkl of torch.save'd example inputs (tensors in tuples, lists and dicts, a shared
    tensor, a scalar), as the fuzzer's input: it supplies storages 0 and 1 of 256 bytes."""
    import torch

    x = torch.arange(4, dtype=torch.float32)
    ids = torch.tensor([[1, 2]], dtype=torch.int64)
    objects = {
        "args-one": ((x,), {}),
        "args-kwargs": ((x,), {"ids": ids, "flag": True}),
        "nested": (([x, (ids, None)], {"k": [x]}), {}),
        "shared": ((x, x, x[1:]), {"scale": 0.5, "name": "n"}),
    }
    for name, obj in objects.items():
        buffer = io.BytesIO()
        torch.save(obj, buffer)
        with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as z:
            pickle = next(n for n in z.namelist() if n.endswith("/data.pkl"))
            write(os.path.join(out, "torch-pickle", name + ".pkl"), z.read(pickle))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("archives", nargs="+")
    parser.add_argument("--out", default=os.path.join(HERE, "corpus"))
    args = parser.parse_args()
    pt2_seeds(args.archives, args.out)
    manifest_seeds(args.out)
    text_ir_seeds(args.out)
    npy_seeds(args.out)
    npz_seeds(args.out)
    torch_pickle_seeds(args.out)


if __name__ == "__main__":
    main()
