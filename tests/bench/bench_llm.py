#!/usr/bin/env python3
"""LLM export on a trained model (docs/llm.md): Gemma 3 270M through tico_native.llm.export, float
and quantized, measured on the built-in runtime.

For each variant (float32 and the recipes ``llm-w8a16``, ``llm-w4a16`` (GPTQ), ``llm-rtn-w4a16``,
``llm-w8a8``), each phase in its own child process so its peak RSS is its own:

- ``export``: conversion (+ calibration) wall time, peak RSS, file size. Calibration text: the
  tutorial of Python's documentation (python3.11-doc); evaluation text: its language reference.
  The two never overlap.
- ``eval``: perplexity over ``--eval-windows`` windows of ``--prefill`` tokens of the evaluation
  text on the built-in runtime, and greedy generation of 64 tokens on 8 prompts (tokens compared
  with the float file's).
- speed, through ``tico-circle generate`` (the C++ loop) in its own process: prefill tokens/s
  (one prefill call of P tokens, median of 3) and decode tokens/s (16 decode steps at the end of
  a ``--max-context`` cache) at each ``--threads`` count, and the runtime's peak RSS.
- ``parity`` (float only): prefill logits against eager PyTorch (rtol = atol = 1e-4), the
  perplexity of the file against eager's on the same windows (within 0.1 %), and greedy
  generation through the decode signature against Hugging Face ``generate`` (64 tokens, 8 prompts).

With ``--litert-json`` (the output of tests/bench/litert_anchor.py, run in its own venv) the
report puts LiteRT's figures beside ours and checks the targets: conversion >= 10x faster at
<= 0.2x the memory, decode tokens/s >= LiteRT's on its own file.

    .venv/bin/python tests/bench/bench_llm.py --work /tmp/bench-llm --json /tmp/bench-llm/llm.json \\
        [--variants float,llm-w8a16,llm-w4a16,llm-rtn-w4a16] [--litert-json litert_anchor.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

PROMPTS = [
    "The capital of France is",
    "In Python, a list comprehension",
    "Once upon a time, in a small village,",
    "The three primary colors are",
    "To make a cup of tea, first",
    "The theory of relativity states that",
    "def fibonacci(n):",
    "The most important thing about learning a new language is",
]


def child(args, phase: str, variant: str, extra: list[str] | None = None) -> dict:
    """Runs one phase in a child process; returns its JSON and its peak RSS (os.wait4)."""
    cmd = [sys.executable, __file__, "--phase", phase, "--variant", variant, "--work", str(args.work),
           "--max-context", str(args.max_context), "--prefill", str(args.prefill),
           "--eval-windows", str(args.eval_windows), "--calibration-batches", str(args.calibration_batches),
           "--threads", args.threads] + (["--pipeline", str(args.pipeline)] if args.pipeline else []) + (extra or [])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=None, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"phase {phase} of {variant} failed (status {status})")
    result = json.loads(out.strip().splitlines()[-1])
    result["peak_rss_mib"] = usage.ru_maxrss / 1024
    return result


def circle_path(work: Path, variant: str) -> Path:
    # A variant is a packaged recipe name or a recipe YAML path (named after its file).
    return work / f"gemma3-270m-{Path(variant).stem}.circle"


# -- phases (in the child) ------------------------------------------------------------------

def phase_export(args) -> dict:
    from tico_native import llm
    from tico_native.llm import data

    checkpoint = llm.gemma3_270m(install=True)
    report: dict = {}
    start = time.perf_counter()
    quant = None if args.variant == "float" else args.variant
    llm.export(checkpoint, circle_path(args.work, args.variant), max_context=args.max_context,
               prefill_len=args.prefill, quant=quant, pipeline=args.pipeline,
               calibration=data.calibration_text() if quant else None,
               calibration_batches=args.calibration_batches, progress=False, report=report)
    report["total_seconds"] = time.perf_counter() - start
    report["layers"] = layer_breakdown(report.pop("quantizer_metrics", []))
    report["file_bytes"] = circle_path(args.work, args.variant).stat().st_size
    return report


def evaluation_ids(model) -> list[int]:
    from tico_native.llm import data

    return list(model.tokenizer.encode(data.evaluation_text(), False))


def phase_eval(args) -> dict:
    from tico_native import CircleModel

    model = CircleModel.load(circle_path(args.work, args.variant))
    ids = evaluation_ids(model)
    start = time.perf_counter()
    ppl = model.perplexity(ids, max_windows=args.eval_windows)
    ppl["seconds"] = time.perf_counter() - start
    greedy = [model.generate(p, 64, stop_at_eos=False) for p in PROMPTS]
    return {"perplexity": ppl, "greedy": greedy}


def tico_circle() -> str:
    from tico_native import _resources

    return str(_resources.BIN_DIR / "tico-circle")


def generate_cli(path: Path, prompt: list[int], new_tokens: int, threads: int) -> tuple[dict, float]:
    """tico-circle generate in its own process: its JSON figures and its peak RSS (MiB)."""
    cmd = [tico_circle(), "generate", str(path), "--prompt-ids", " ".join(map(str, prompt)), "-n", str(new_tokens),
           "--ignore-eos", "--json", "--threads", str(threads)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} failed: {err}")
    return json.loads(err.strip().splitlines()[-1]), usage.ru_maxrss / 1024


def measure_speed(args, variant: str, threads: int) -> dict:
    """Prefill: one call of P prompt tokens (median of 3 processes). Decode: 32 steps at the end of
    a max_context cache (positions max_context-33 .. max_context-2), the C++ loop passing the
    cache from outputs to inputs without copies; the rate is the median step's (as LiteRT's
    figure is), the mean over all steps beside it (the first step derives kernel state once)."""
    P, C = args.prefill, args.max_context
    path = circle_path(args.work, variant)
    prefill = sorted(generate_cli(path, [2] + [1000 + i for i in range(P - 1)], 1, threads)[0]["prefill_seconds"]
                     for _ in range(3))[1]
    stats, rss = generate_cli(path, [2] + [1000 + (i % 5000) for i in range(C - 34)], 33, threads)
    return {"threads": threads, "prefill_seconds": prefill, "prefill_tokens_per_second": P / prefill,
            "decode_steps": stats["decode_steps"], "decode_seconds": stats["decode_seconds"],
            "decode_mean_tokens_per_second": stats["decode_tokens_per_second"],
            "decode_step_seconds": stats["decode_step_seconds"],
            "decode_tokens_per_second": stats["decode_median_tokens_per_second"], "context": C, "peak_rss_mib": rss}


def phase_parity(args) -> dict:
    import math

    import numpy as np
    import torch
    from tico_native import CircleModel, llm
    from transformers import AutoModelForCausalLM, AutoTokenizer

    checkpoint = llm.gemma3_270m()
    eager = AutoModelForCausalLM.from_pretrained(str(checkpoint), dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
    model = CircleModel.load(circle_path(args.work, "float"))
    spec = model.llm_spec
    P = spec["prefill_len"]
    ids = evaluation_ids(model)
    bos = spec["bos_token_id"] if spec["add_bos"] else None
    per = P - (bos is not None)
    windows = [([bos] if bos is not None else []) + ids[i:i + per] for i in range(0, per * args.eval_windows, per)]
    # Prefill logits against eager on the first window.
    cache = [np.zeros(t.shape, np.float32) for t in model.signature_inputs("prefill")[2:]]
    ours = model.run_signature("prefill", np.asarray([windows[0]], np.int32), np.arange(P, dtype=np.int32)[None], *cache)[0]
    nll, count = 0.0, 0
    with torch.no_grad():
        reference = eager(torch.tensor([windows[0]])).logits
        logits_max_abs = float((torch.as_tensor(ours) - reference).abs().max())
        logits_close = bool(torch.allclose(torch.as_tensor(ours), reference, rtol=1e-4, atol=1e-4))
        for w in windows:
            logp = torch.log_softmax(eager(torch.tensor([w])).logits[0].double(), -1)
            nll -= sum(logp[i, w[i + 1]].item() for i in range(len(w) - 1))
            count += len(w) - 1
    eager_ppl = math.exp(nll / count)
    file_ppl = model.perplexity(ids, max_windows=args.eval_windows)["perplexity"]
    agree = []
    for prompt in PROMPTS:
        prompt_ids = tokenizer(prompt)["input_ids"]
        with torch.no_grad():
            hf = eager.generate(torch.tensor([prompt_ids]), max_new_tokens=64, do_sample=False, eos_token_id=None,
                                pad_token_id=spec["pad_token_id"])[0, len(prompt_ids):].tolist()
        ours_tokens = model.generate(prompt_ids, 64, stop_at_eos=False)
        agree.append(next((i for i, (a, b) in enumerate(zip(hf, ours_tokens)) if a != b), 64))
    return {"prefill_logits_max_abs": logits_max_abs, "prefill_logits_allclose_1e-4": logits_close,
            "eager_perplexity": eager_ppl, "file_perplexity": file_ppl,
            "perplexity_relative_difference": abs(file_ppl - eager_ppl) / eager_ppl,
            "greedy_tokens_equal_to_hf": agree}


PHASES = {"export": phase_export, "eval": phase_eval, "parity": phase_parity}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-llm"))
    parser.add_argument("--variants", default="float,llm-w8a16,llm-w4a16,llm-rtn-w4a16",
                        help="comma-separated: float, packaged recipe names, or recipe YAML paths")
    parser.add_argument("--no-speed", action="store_true", help="perplexity only (recipe experiments)")
    parser.add_argument("--pipeline", type=Path, help="a pipeline manifest instead of the default one")
    parser.add_argument("--max-context", type=int, default=512)
    parser.add_argument("--prefill", type=int, default=128)
    parser.add_argument("--eval-windows", type=int, default=64, help="perplexity windows (64 x 128 = 8,192 tokens)")
    parser.add_argument("--calibration-batches", type=int, default=32)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--skip-export", action="store_true", help="reuse the files in --work")
    parser.add_argument("--speed-only", type=Path, metavar="REPORT",
                        help="re-measure only the speed, taking everything else from this earlier --json report")
    parser.add_argument("--litert-json", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--phase", choices=sorted(PHASES))
    parser.add_argument("--variant")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.phase:
        print(json.dumps(PHASES[args.phase](args)))
        return 0

    report: dict = {"variants": {}}
    variants = args.variants.split(",")
    if args.speed_only:
        report = json.loads(args.speed_only.read_text())
        report.pop("litert", None)
        for variant in variants:
            entry = report["variants"][variant]
            entry["speed"] = [measure_speed(args, variant, int(t)) for t in args.threads.split(",")]
            for s in entry["speed"]:
                print(f"[{variant}] {s['threads']} threads: prefill {s['prefill_tokens_per_second']:.1f} tok/s, decode "
                      f"{s['decode_tokens_per_second']:.2f} tok/s (median step), RSS {s['peak_rss_mib']:.0f} MiB",
                      file=sys.stderr)
        variants = []
    for variant in variants:
        entry = report["variants"].setdefault(variant, {})
        if not args.skip_export:
            entry["export"] = child(args, "export", variant)
            print(f"[{variant}] export {entry['export']['total_seconds']:.1f} s, peak RSS "
                  f"{entry['export']['peak_rss_mib']:.0f} MiB, {entry['export']['file_bytes'] / 2**20:.1f} MiB",
                  file=sys.stderr)
        entry["eval"] = child(args, "eval", variant)
        print(f"[{variant}] perplexity {entry['eval']['perplexity']['perplexity']:.4f}", file=sys.stderr)
        entry["speed"] = []
        for threads in ([] if args.no_speed else args.threads.split(",")):
            entry["speed"].append(measure_speed(args, variant, int(threads)))
            s = entry["speed"][-1]
            print(f"[{variant}] {threads} threads: prefill {s['prefill_tokens_per_second']:.1f} tok/s, decode "
                  f"{s['decode_tokens_per_second']:.2f} tok/s, RSS {s['peak_rss_mib']:.0f} MiB", file=sys.stderr)
    if "float" in report["variants"] and not args.speed_only:
        report["parity"] = child(args, "parity", "float")
        float_eval = report["variants"]["float"]["eval"]
        for variant, entry in report["variants"].items():
            ppl = entry["eval"]["perplexity"]["perplexity"]
            entry["perplexity_over_float"] = ppl / float_eval["perplexity"]["perplexity"]
            entry["greedy_agreement_with_float"] = [
                next((i for i, (a, b) in enumerate(zip(x, y)) if a != b), min(len(x), len(y)))
                for x, y in zip(entry["eval"]["greedy"], float_eval["greedy"])]
    if args.litert_json and args.litert_json.exists():
        report["litert"] = json.loads(args.litert_json.read_text())
    print(json.dumps(report, indent=1), file=sys.stderr if args.json else sys.stdout)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    summary(report)
    return 0


PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def layer_breakdown(metrics: list) -> dict | None:
    """GPTQ's per-layer reports (node, metric, value) by decoder layer and projection: the linears
    are quantized in graph order, seven per Gemma 3 layer (q, k, v, o, gate, up, down)."""
    by_node: dict = {}
    for node, metric, value in metrics:
        by_node.setdefault(node, {})[metric] = value
    nodes = [n for n in by_node if "error_ratio" in by_node[n]]
    if not nodes or len(nodes) % len(PROJECTIONS):
        return None
    nodes.sort(key=lambda n: int(n.rsplit("_", 1)[1]) if n.rsplit("_", 1)[-1].isdigit() else 0)
    rows = [dict(by_node[n], node=n, layer=i // len(PROJECTIONS), projection=PROJECTIONS[i % len(PROJECTIONS)])
            for i, n in enumerate(nodes)]
    out = {"by_projection": {}, "by_layer": {}, "worst": sorted(rows, key=lambda r: -r["error_ratio"])[:5]}
    for key, name in (("projection", "by_projection"), ("layer", "by_layer")):
        for r in rows:
            out[name].setdefault(str(r[key]), []).append(r)
        out[name] = {k: {"mean_error_ratio": sum(r["error_ratio"] for r in v) / len(v),
                         "gptq_layer_error": sum(r.get("gptq_layer_error", 0.0) for r in v),
                         "rtn_layer_error": sum(r.get("rtn_layer_error", 0.0) for r in v)} for k, v in out[name].items()}
    return out


def summary(report: dict) -> None:
    """The report as the table docs/llm.md shows."""
    rows = []
    for variant, e in report["variants"].items():
        ex = e.get("export", {})
        speed = {s["threads"]: s for s in e["speed"]}
        rows.append(f"| {variant} | {e['eval']['perplexity']['perplexity']:.3f} | {e.get('perplexity_over_float', 0):.4f} | "
                    f"{ex.get('file_bytes', 0) / 2**20:.1f} | {ex.get('convert_seconds', 0):.1f} | "
                    f"{ex.get('total_seconds', 0):.1f} | {ex.get('peak_rss_mib', 0):.0f} | "
                    + " | ".join(f"{speed[t]['prefill_tokens_per_second']:.0f} / {speed[t]['decode_tokens_per_second']:.1f}"
                                 for t in sorted(speed))
                    + f" | {sum(e.get('greedy_agreement_with_float', [0])) / max(1, len(e.get('greedy_agreement_with_float', [1]))):.1f} |")
    print("| variant | perplexity | x float | MiB | convert s | total s | peak RSS MiB | prefill / decode tok/s per thread count | greedy prefix |",
          file=sys.stderr)
    print("\n".join(rows), file=sys.stderr)
    for variant, e in report["variants"].items():
        layers = e.get("export", {}).get("layers")
        if not layers:
            continue
        print(f"\n{variant}: GPTQ error / round-to-nearest error (Hessian-weighted), per projection and per layer",
              file=sys.stderr)
        print("| projection | " + " | ".join(layers["by_projection"]) + " |", file=sys.stderr)
        print("| mean ratio | " + " | ".join(f"{v['mean_error_ratio']:.3f}" for v in layers["by_projection"].values())
              + " |", file=sys.stderr)
        print("| layer | " + " | ".join(layers["by_layer"]) + " |", file=sys.stderr)
        print("| mean ratio | " + " | ".join(f"{v['mean_error_ratio']:.2f}" for v in layers["by_layer"].values())
              + " |", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
