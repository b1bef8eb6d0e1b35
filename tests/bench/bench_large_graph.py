#!/usr/bin/env python3
"""Graph-size benchmark: tico-run on a textual-IR program of about 100 k nodes.

Conversion must scale linearly with the graph: a pass that rescans the graph for every node it
rewrites, or a name generator that probes every earlier name, turns a large model into minutes.
This script writes a program of repeated transformer-style blocks (layer_norm, linear, gelu,
residual add, a view round trip, a clone, and a pooling window larger than its input) as
textual IR, converts it with the default pipeline, and reports:

  * wall time and time per input node, at the requested size and at a quarter of it (the
    ratio of the two per-node times shows whether cost grows faster than the graph);
  * the phase timings tico-run prints with --time-passes;
  * the node count after conversion (Circle operators).

It is a script, not a CTest test (timings on a shared machine are too noisy to gate a build).

    python3 tests/bench/bench_large_graph.py --tico-run build/bin/tico-run [--nodes 100000]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
NODES_PER_BLOCK = 9
HIDDEN = 8


def dense(values: list[float]) -> str:
    """A constant in the textual IR: every element listed."""
    return "dense<[" + ", ".join(repr(v) for v in values) + "]>"


def program(blocks: int) -> str:
    """A chain of `blocks` blocks over x: f32[1, 4, HIDDEN], weights shared by every block."""
    lines = [
        "graph @main {",
        f"  input %x: f32[1, 4, {HIDDEN}]",
        f"  param %w: f32[{HIDDEN}, {HIDDEN}] \"w\" = {dense([0.01] * HIDDEN * HIDDEN)}",
        f"  param %b: f32[{HIDDEN}] \"b\" = {dense([0.0] * HIDDEN)}",
        f"  param %g: f32[{HIDDEN}] \"g\" = {dense([1.0] * HIDDEN)}",
    ]
    h = "%x"
    for i in range(blocks):
        lines += [
            f"  %ln{i}: f32[1, 4, {HIDDEN}] = aten::layer_norm.default(%{h[1:]}, [{HIDDEN}], %g, %b)",
            f"  %fc{i}: f32[1, 4, {HIDDEN}] = aten::linear.default(%ln{i}, %w, %b)",
            f"  %act{i}: f32[1, 4, {HIDDEN}] = aten::gelu.default(%fc{i})",
            f"  %res{i}: f32[1, 4, {HIDDEN}] = aten::add.Tensor(%act{i}, %{h[1:]})",
            f"  %flat{i}: f32[4, {HIDDEN}] = aten::view.default(%res{i}, [4, {HIDDEN}])",
            f"  %back{i}: f32[1, 4, {HIDDEN}] = aten::view.default(%flat{i}, [1, 4, {HIDDEN}])",
            f"  %copy{i}: f32[1, 4, {HIDDEN}] = aten::clone.default(%back{i})",
            # A window larger than the 4 x HIDDEN plane: a global average after clipping.
            f"  %pool{i}: f32[1, 1, {HIDDEN}] = aten::avg_pool2d.default(%copy{i}, [64, 1], [64, 1], [0, 0], true)",
            f"  %h{i}: f32[1, 4, {HIDDEN}] = aten::add.Tensor(%copy{i}, %pool{i})",
        ]
        h = f"%h{i}"
    lines += [f"  return {h}", "}"]
    return "\n".join(lines) + "\n"


def convert(tico_run: Path, source: Path, output: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [str(tico_run), "--pipeline", str(REPO_ROOT / "configs/pipelines/default.yaml"), "--time-passes", str(source),
         "-o", str(output)],
        capture_output=True, text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"tico-run failed on {source.name}:\n{done.stderr[-4000:]}")
    return elapsed, done.stderr


def circle_operators(path: Path) -> int:
    try:
        from circle_schema.v0_10.circle.Model import Model
    except ImportError:
        return -1
    model = Model.GetRootAs(path.read_bytes(), 0)
    return model.Subgraphs(0).OperatorsLength()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tico-run", type=Path, default=REPO_ROOT / "build/bin/tico-run")
    parser.add_argument("--nodes", type=int, default=100_000, help="approximate number of input nodes")
    args = parser.parse_args()

    results = {}
    with tempfile.TemporaryDirectory(prefix="tico-bench-graph-") as tmp:
        for label, nodes in (("quarter", args.nodes // 4), ("full", args.nodes)):
            blocks = max(1, nodes // NODES_PER_BLOCK)
            source = Path(tmp) / f"{label}.tir"
            source.write_text(program(blocks))
            output = Path(tmp) / f"{label}.circle"
            elapsed, log = convert(args.tico_run, source, output)
            n = blocks * NODES_PER_BLOCK
            results[label] = {"input_nodes": n, "seconds": elapsed, "us_per_node": elapsed / n * 1e6,
                              "circle_operators": circle_operators(output)}
            print(f"{label:8s} {n:7d} nodes  {elapsed:7.2f} s  {elapsed / n * 1e6:8.1f} us/node  "
                  f"{results[label]['circle_operators']} Circle operators")
            if label == "full":
                phases = [line for line in log.splitlines() if re.search(r"\d+(\.\d+)? ?(ms|s)\b", line)]
                print("\n".join(phases[:40]))
    growth = results["full"]["us_per_node"] / results["quarter"]["us_per_node"]
    print(f"per-node time at 4x the size: {growth:.2f}x (1.0 = linear)")
    print("BENCH_JSON " + json.dumps({**results, "per_node_growth_4x": growth}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
