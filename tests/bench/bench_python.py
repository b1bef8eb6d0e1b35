#!/usr/bin/env python3
"""Python API vs command line: the same program converted by tico_native and by tico-run.

For each model the program is exported once and saved to a .pt2; then, each in a fresh
process so that peak memory is its own:

  cli        tico-run --pipeline default.yaml model.pt2 -o out.circle   (wall time, peak RSS)
  py-memory  tico_native.convert_from_exported_program(ep): torch.export.save into a BytesIO,
             conversion reading that buffer in place, Circle bytes returned
  py-file    tico_native.convert_from_pt2("model.pt2")

The Python runs time the first conversion of the process (plugins loaded on the way, as a CLI
run does) and the median of the following ones; their peak RSS is reported as measured and as
the growth over the process's RSS just before converting (torch itself is large). Every output
is checked byte-identical with the CLI's.

    PYTHONPATH=build/python .venv/bin/python tests/bench/bench_python.py [--runs 5]

Prints a table and one JSON line (prefixed "BENCH_JSON ").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MiB = 1024 * 1024

CHILD = r"""
import itertools, json, resource, sys, time
sys.path.insert(0, sys.argv[5])
import torch, tico_native
from bench_python import models
mode, pt2, runs, index = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[6])
# The same program as the parent's (the models are seeded): exported here, outside the timing,
# because torch.export.load cannot rebuild transformers' output types.
ep = next(itertools.islice(models(), index, None))[1] if mode == "py-memory" else None
def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmRSS:"))
base = rss()
times, out = [], None
for _ in range(runs):
    out = None  # one result alive at a time, as in a CLI run
    t = time.perf_counter()
    model = tico_native.convert_from_exported_program(ep) if ep is not None else tico_native.convert_from_pt2(pt2)
    times.append(time.perf_counter() - t)
    out = model.circle_binary
    del model
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
sys.stdout.buffer.write(json.dumps({"times": times, "base_rss": base, "peak_rss": peak, "bytes": len(out)}).encode() + b"\n")
sys.stdout.buffer.flush()
open(sys.argv[4], "wb").write(out)
"""


def models():
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    from conftest import small_cnn  # the CNN of the package tests

    torch.manual_seed(0)
    cnn = small_cnn()
    batch = torch.export.Dim("batch", min=1, max=64)
    yield "cnn (dynamic batch)", torch.export.export(cnn, (torch.randn(2, 3, 16, 16),), dynamic_shapes=({0: batch},))

    import transformers

    torch.manual_seed(1)
    config = transformers.LlamaConfig(vocab_size=1024, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                                      num_attention_heads=8, num_key_value_heads=4, max_position_embeddings=256)
    llama = transformers.LlamaForCausalLM(config).eval()
    with torch.no_grad():
        yield "llama 4 layers (transformers)", torch.export.export(
            llama, (torch.randint(0, 1024, (1, 32)),), kwargs={"use_cache": False}, strict=False)

    torch.manual_seed(2)
    stack = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(12)]).eval()
    yield "linear stack 50M params", torch.export.export(stack, (torch.randn(4, 2048),))


def cli_run(tool: Path, pipeline: Path, pt2: Path, out: Path) -> tuple[float, int]:
    start = time.perf_counter()
    result = subprocess.run(["/usr/bin/time", "-f", "%M", str(tool), "--pipeline", str(pipeline), str(pt2), "-o", str(out)],
                            capture_output=True, text=True, check=True)
    return time.perf_counter() - start, int(result.stderr.strip().splitlines()[-1]) * 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    import torch
    import tico_native
    from tico_native import _resources

    tool = _resources.BIN_DIR / "tico-run"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for index, (name, program) in enumerate(models()):
            pt2 = tmp / "model.pt2"
            torch.export.save(program, pt2)
            cli_times, cli_rss = [], 0
            for _ in range(args.runs):
                t, rss = cli_run(tool, tico_native.DEFAULT_PIPELINE, pt2, tmp / "cli.circle")
                cli_times.append(t)
                cli_rss = max(cli_rss, rss)
            reference = (tmp / "cli.circle").read_bytes()
            row = {"model": name, "pt2_bytes": pt2.stat().st_size, "circle_bytes": len(reference),
                   "cli_median_s": statistics.median(cli_times), "cli_peak_rss": cli_rss}
            for mode in ("py-memory", "py-file"):
                out = tmp / f"{mode}.circle"
                child = subprocess.run([sys.executable, "-c", CHILD, mode, str(pt2), str(args.runs), str(out),
                                        str(Path(__file__).resolve().parent), str(index)],
                                       capture_output=True)
                if child.returncode != 0:
                    sys.exit(f"{mode} failed on {name}:\n{child.stderr.decode(errors='replace')}")
                data = json.loads(child.stdout.splitlines()[-1])
                assert out.read_bytes() == reference, f"{mode} output differs from tico-run's for {name}"
                row[f"{mode}_first_s"] = data["times"][0]
                row[f"{mode}_median_s"] = statistics.median(data["times"][1:] or data["times"])
                row[f"{mode}_peak_rss"] = data["peak_rss"]
                row[f"{mode}_rss_growth"] = data["peak_rss"] - data["base_rss"]
            rows.append(row)

    print(f"{'model':32} {'pt2 MiB':>8} {'cli s':>7} {'py-mem 1st':>10} {'py-mem s':>9} {'ratio':>6} "
          f"{'py-file s':>9} {'cli RSS':>8} {'py-mem +RSS':>11} {'py-file +RSS':>12}")
    for r in rows:
        print(f"{r['model']:32} {r['pt2_bytes'] / MiB:8.1f} {r['cli_median_s']:7.3f} {r['py-memory_first_s']:10.3f} "
              f"{r['py-memory_median_s']:9.3f} {r['py-memory_median_s'] / r['cli_median_s']:6.2f} "
              f"{r['py-file_median_s']:9.3f} {r['cli_peak_rss'] / MiB:7.0f}M {r['py-memory_rss_growth'] / MiB:10.0f}M "
              f"{r['py-file_rss_growth'] / MiB:11.0f}M")
    print("BENCH_JSON " + json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
