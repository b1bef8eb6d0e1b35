#!/usr/bin/env python3
"""Conversion benchmark on a Llama-3.2-1B-like model exported in bfloat16, float16 or float32.

The model is Hugging Face ``LlamaForCausalLM`` with random weights and the
configuration of Llama 3.2 1B (hidden 2048, 16 layers, 32 heads, 8 KV heads,
intermediate 8192, vocabulary 128256, tied embeddings: 1.24 B parameters,
2.47 GB of bfloat16 weights, 4.9 GB in float32), exported with ``torch.export``
in the chosen dtype.  For a half dtype the default pipeline's dtype policy
(``half-precision-policy``) computes in float32, and its ``float16-weights``
stage keeps the weights 16-bit in the file (FLOAT16 + DEQUANTIZE; bfloat16
converted to float16 while the writer streams it from the mapped ``.pt2``), so
the Circle file holds as many weight bytes as the checkpoint.  With
``--float32-weights`` (``tico-run --config float16_weights=false``, the setting
for onert) the writer widens every weight to float32 instead: twice the bytes.

Measured in one run, on the same storage (the helpers of bench_convert.py):

  copy weight bytes   a read+write loop over exactly the weight payloads of
                      the .pt2 (what any converter must at least read and
                      write), --copies times; the *fastest* is the bound
  copy + widen        (half dtypes, --float32-weights) the same loop writing
                      each payload widened to float32: the floor of a
                      converter whose output holds float32 weights
  conversion          tico-run wall time and peak RSS (GNU time), median/max
                      over --runs, byte-identical outputs, and the time split
                      --time-passes reports (read = frontend, passes =
                      lowering + stages, write = serialize + stream weights)
  graph bytes         the Circle file minus its weight payloads: the size the
                      peak-RSS target (64 MiB + graph bytes) is measured against

and, unless --no-check, the Circle model run once against eager PyTorch on the
float32 copy of the same weights (``model.float()``), the policy's numerical
model: on onert when the file has float32 weights and is below 2 GiB, otherwise
on the built-in interpreter (``tico-circle run``; onert 0.2 cannot dequantize
FLOAT16 weights, and it cannot load the external-buffer
layout that Circle files of 2 GiB and more need (a 2.6 GB file fails with
"mmap failed - Cannot allocate memory", the 4.9 GB 1 B model crashes in
``infer``), whatever the model's dtype.  Prints a table and a ``BENCH_JSON``
line.

Needs ``transformers`` (not a CI dependency: this is a script, not a test).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_convert import COPY_CHUNK, MiB, REPO_ROOT, run_conversion, sha256, time_weight_copy, weight_entries  # noqa: E402

LLAMA_3_2_1B = dict(
    hidden_size=2048,
    num_hidden_layers=16,
    num_attention_heads=32,
    num_key_value_heads=8,
    intermediate_size=8192,
    vocab_size=128256,
    max_position_embeddings=2048,
    rope_theta=500000.0,
    tie_word_embeddings=True,
)
SMALL = dict(hidden_size=256, num_hidden_layers=2, num_attention_heads=8, num_key_value_heads=2,
             intermediate_size=512, vocab_size=4096, max_position_embeddings=256, tie_word_embeddings=True)


class LogitsOnly(torch.nn.Module):
    """input ids -> logits, without a KV cache (the exported program's signature)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).logits


def build_model(size: str, dtype: torch.dtype):
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(**(LLAMA_3_2_1B if size == "1b" else SMALL), attn_implementation="sdpa")
    torch.manual_seed(0)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # initialise directly in the half dtype (no float32 copy)
    try:
        model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return LogitsOnly(model.eval())


def run_on_onert(circle: Path, ids: np.ndarray) -> np.ndarray:
    from onert import infer

    (out,) = infer.session(str(circle)).infer([ids])
    return np.asarray(out)


def run_on_interpreter(tico_circle: Path, circle: Path, ids: np.ndarray, workdir: Path) -> np.ndarray:
    np.save(workdir / "ids.npy", ids)
    done = subprocess.run([str(tico_circle), "run", str(circle), "--input", str(workdir / "ids.npy"),
                           "--output-dir", str(workdir / "outputs")], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"tico-circle run failed:\n{done.stderr}")
    return np.load(workdir / "outputs" / "out0.npy")


def time_widening_copy(source: Path, entries: list[tuple[str, int, int]], dtype: str, target: Path) -> float:
    """time_weight_copy, but each chunk is written widened to float32 (the half dtypes' floor)."""
    wide = np.empty(COPY_CHUNK // 2, dtype=np.uint32)

    def widen(chunk: memoryview) -> np.ndarray:
        half = np.frombuffer(chunk, dtype=np.uint16)
        out = wide[: half.size]
        if dtype == "bfloat16":
            np.left_shift(half, 16, out=out, dtype=np.uint32)
        else:
            out.view(np.float32)[:] = half.view(np.float16)
        return out

    return time_weight_copy(source, entries, target, widen)


def time_split(stderr: str, wall: float) -> dict[str, float]:
    """read / passes / write seconds from tico-run --time-passes; 'other' is the rest of the wall time."""
    split = {"read": 0.0, "passes": 0.0, "write": 0.0}
    in_phases = False
    for line in stderr.splitlines():
        if line.startswith("phase timings:"):
            in_phases = True
            continue
        if line.startswith("pass timings:"):
            in_phases = False
        if not in_phases:
            continue
        fields = line.split()
        if len(fields) < 3 or fields[1] != "ms":
            continue
        seconds, phase = float(fields[0]) / 1e3, " ".join(fields[2:])
        key = "read" if phase == "frontend" else "write" if phase == "write" else "passes"
        split[key] += seconds
    split["other"] = max(0.0, wall - sum(split.values()))
    return split


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dtype", choices=["bfloat16", "float16", "float32"], default="bfloat16")
    parser.add_argument("--size", choices=["1b", "small"], default="1b", help="Llama-3.2-1B-like (default) or a small smoke-test size")
    parser.add_argument("--seq", type=int, default=8, help="sequence length of the example input (default 8)")
    parser.add_argument("--runs", type=int, default=3, help="conversions timed (default 3, median)")
    parser.add_argument("--copies", type=int, default=5, help="weight copies timed (default 5, fastest)")
    parser.add_argument("--tico-run", type=Path, default=REPO_ROOT / "build" / "bin" / "tico-run")
    parser.add_argument("--pipeline", type=Path, default=REPO_ROOT / "configs" / "pipelines" / "default.yaml")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()), help="where the .pt2 and the Circle file go (default: the temp dir)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--no-check", action="store_true", help="skip the run against eager float32")
    parser.add_argument("--float32-weights", action="store_true",
                        help="half dtypes: convert with --config float16_weights=false (float32 weights, for onert)")
    parser.add_argument("--tico-circle", type=Path, default=REPO_ROOT / "build" / "bin" / "tico-circle",
                        help="tico-circle, whose interpreter checks Circle files of 2 GiB and more")
    return parser.parse_args()


def main() -> int:
    args = parse_args()
    if not os.access(args.tico_run, os.X_OK):
        raise SystemExit(f"tico-run not found at {args.tico_run} (use --tico-run PATH)")
    workdir = Path(tempfile.mkdtemp(prefix="tico-bench-half-", dir=args.workdir))
    try:
        return benchmark(args, workdir)
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def benchmark(args: argparse.Namespace, workdir: Path) -> int:
    dtype = getattr(torch, args.dtype)
    pt2, circle = workdir / "model.pt2", workdir / "model.circle"
    start = time.perf_counter()
    module = build_model(args.size, dtype)
    params = sum(p.numel() for p in module.parameters())
    ids = torch.randint(0, module.model.config.vocab_size, (1, args.seq), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        program = torch.export.export(module, (ids,))
    torch.export.save(program, str(pt2))
    del program
    gc.collect()
    print(f"model: Llama {args.size} in {args.dtype}, {params / 1e9:.3f} B params; built, exported and saved in "
          f"{time.perf_counter() - start:.1f} s; workdir {workdir}", flush=True)

    expected = None
    if not args.no_check:
        with torch.no_grad():
            expected = module.float()(ids).numpy()  # the policy's numerical model, same weights
    del module
    gc.collect()

    entries = weight_entries(pt2)
    weight_bytes = sum(size for _, _, size in entries)
    with open(pt2, "rb") as file:  # warm the page cache, as for the float32 benchmark
        while file.read(8 * MiB):
            pass
    copies = [time_weight_copy(pt2, entries, workdir / "weights.bin") for _ in range(args.copies)]
    widening = []
    wide_weights = args.dtype == "float32" or args.float32_weights
    if args.dtype != "float32" and args.float32_weights:
        widening = [time_widening_copy(pt2, entries, args.dtype, workdir / "weights.bin") for _ in range(args.copies)]

    command = [str(args.tico_run), "--time-passes", "--pipeline", str(args.pipeline), str(pt2), "-o", str(circle)]
    if args.float32_weights:
        command[1:1] = ["--config", "float16_weights=false"]
    conversions, rss, digests, splits = [], [], [], []
    for run in range(args.runs):
        if circle.exists():
            circle.unlink()
        seconds, peak, stderr = run_conversion(command)
        conversions.append(seconds)
        rss.append(peak)
        digests.append(sha256(circle))
        splits.append(time_split(stderr, seconds))
        print(f"conversion run {run + 1}: {seconds:.2f} s, peak RSS {peak / MiB:.0f} MiB, split "
              + ", ".join(f"{k} {v:.2f} s" for k, v in splits[-1].items()), flush=True)
    circle_bytes = circle.stat().st_size
    payload_bytes = weight_bytes * (4 // torch.empty((), dtype=dtype).element_size() if wide_weights else 1)
    graph_bytes = circle_bytes - payload_bytes

    check = {}
    if expected is not None:
        runtime = "onert" if circle_bytes < 2**31 and wide_weights else "interpreter"
        start = time.perf_counter()
        out = run_on_onert(circle, ids.numpy()) if runtime == "onert" else run_on_interpreter(args.tico_circle, circle, ids.numpy(), workdir)
        diff = np.abs(out - expected)
        check = {
            "check_runtime": runtime,
            "check_s": round(time.perf_counter() - start, 2),
            "max_abs_diff": float(diff.max()),
            "logits_max_abs": float(np.abs(expected).max()),
            "allclose_1e-4": bool(np.allclose(out, expected, rtol=1e-4, atol=1e-4)),
        }

    t_weights, t_convert, peak_rss = min(copies), statistics.median(conversions), max(rss)
    t_floor = min(widening) if widening else t_weights  # what the output's bytes cost at least
    median_split = {k: round(statistics.median(s[k] for s in splits), 3) for k in splits[0]}
    rss_target = 64 * MiB + graph_bytes
    result = {
        "model": f"llama-{args.size}-{args.dtype}" + ("-float32-weights" if args.float32_weights else ""),
        "params": params,
        "weight_bytes": weight_bytes,
        "pt2_bytes": pt2.stat().st_size,
        "circle_bytes": circle_bytes,
        "graph_bytes": graph_bytes,
        "copy_weights_s": round(t_weights, 3),
        "copy_weights_runs_s": [round(s, 3) for s in copies],
        "copy_widen_s": round(t_floor, 3) if widening else None,
        "convert_s": round(t_convert, 3),
        "convert_runs_s": [round(s, 3) for s in conversions],
        "convert_split_s": median_split,
        "convert_over_copy_weights": round(t_convert / t_weights, 3),
        "convert_over_floor": round(t_convert / t_floor, 3),
        "peak_rss_bytes": peak_rss,
        "peak_rss_over_weights": round(peak_rss / weight_bytes, 3),
        "peak_rss_target_bytes": rss_target,
        "deterministic": len(set(digests)) == 1,
        **check,
    }
    rows = [
        (f"{args.dtype} weight bytes (W)", f"{weight_bytes / MiB:.0f} MiB", ""),
        (f"copy weight bytes, fastest of {len(copies)}", f"{t_weights:.2f} s",
         f"{weight_bytes / t_weights / 1e9:.2f} GB/s; all " + " ".join(f"{s:.2f}" for s in copies)),
    ]
    if widening:
        rows.append((f"copy + widen to f32, fastest of {len(widening)}", f"{t_floor:.2f} s",
                     "all " + " ".join(f"{s:.2f}" for s in widening)))
    rows += [
        ("tico-run conversion (median)", f"{t_convert:.2f} s", f"reads W, writes {circle_bytes / MiB:.0f} MiB"),
        ("  split (median)", "", ", ".join(f"{k} {v:.2f} s" for k, v in median_split.items())),
        ("conversion / fastest weight copy", f"{t_convert / t_weights:.2f}", "target <= 1.25"),
    ]
    if widening:
        rows.append(("conversion / fastest copy + widen", f"{t_convert / t_floor:.2f}", ""))
    rows += [
        ("graph bytes (Circle minus payloads)", f"{graph_bytes / MiB:.2f} MiB", ""),
        ("peak RSS (max of runs)", f"{peak_rss / MiB:.0f} MiB",
         f"target 64 MiB + graph = {rss_target / MiB:.0f} MiB; {peak_rss / weight_bytes:.3f} x W"),
        ("byte-identical runs", "yes" if result["deterministic"] else "NO", ""),
    ]
    if check:
        rows.append((f"{check['check_runtime']} vs eager float32 max |diff|", f"{check['max_abs_diff']:.2e}",
                     f"logits up to {check['logits_max_abs']:.2f}"))
    print()
    for label, value, note in rows:
        print(f"  {label:<34} {value:>12}  {note}")
    print("BENCH_JSON " + json.dumps(result, sort_keys=True), flush=True)
    return 0 if result["deterministic"] else 1


if __name__ == "__main__":
    sys.exit(main())
