#!/usr/bin/env python3
"""Quantization benchmark (issue 13): tico-run's quantizers against the original converter.

On a Llama-style decoder with random weights (Hugging Face ``LlamaForCausalLM`` built from a
config, seeded, eval mode; default ``--size 100m``: hidden 768, 8 layers, 12 heads, intermediate
2048, vocabulary 32000, about 106 M parameters) and seeded calibration data (random token ids,
``--calib-batches`` x [1, ``--calib-seq``], written both as a token-id text file and as an .npy
folder), one invocation measures side by side:

1. **ours** (``tico-run``): the float conversion (default pipeline), GPTQ-W4 + int16 activations
   (``configs/quant/llm-w4a16.yaml``) and an RTN-W4 recipe (the ``ptq`` quantizer alone, uint4
   per-channel weights, the same activations; written into the work directory) -- wall time and
   peak RSS of each (GNU time), and from the GPTQ encodings' ``metrics`` the per-linear
   ``error_ratio`` (GPTQ layer error / RTN layer error on the calibration inputs; target <= 0.8):
   min / median / max and how many exceed 0.8;
2. **the original** (the ``tico`` 0.3.0 Python package): the same model and calibration batches
   through its GPTQ (4-bit, per-channel, act-order, its other defaults), then its PTQ with the
   LLM builder (int16 activations, uint4 linear weights, uint8 embedding and lm_head, int16
   norm weights; no SpinQuant), and ``tico.convert`` of its prefill export module to Circle, in
   a child process -- wall time and peak RSS of the whole child, and its stage times;
3. **quality**: logits SQNR against the float model (eager PyTorch) on held-out token batches
   for our GPTQ-W4 file, our RTN-W4 file, our float file (a sanity check) and the original's
   GPTQ-W4 file, all on the built-in interpreter (``tico-circle run``); the original's
   fake-quantized PyTorch model is measured too (no interpreter involved);
4. with ``--large``: our GPTQ-W4 recipe on a ~1 B-parameter Llama-style model (hidden 2048,
   16 layers, intermediate 5632, vocabulary 32000) under ``--memory-budget`` (default 4GiB):
   wall time, peak RSS and the error-ratio statistics.

Prints a table and, with ``--report out.json``, writes every figure as JSON. Timings on a shared
machine are noisy: the ratios between ours and the original matter more than absolute numbers,
which is why both run in the same invocation. Needs ``transformers`` and the ``tico`` 0.3.0
package (``--skip-original`` runs our side only).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
MiB = 1024 * 1024

SIZES = {
    # ~106 M parameters: the 100 M model.
    "100m": dict(hidden_size=768, num_hidden_layers=8, num_attention_heads=12, num_key_value_heads=12,
                 intermediate_size=2048, vocab_size=32000),
    # ~0.95 B parameters (the memory-budget run of --large).
    "1b": dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=32,
               intermediate_size=5632, vocab_size=32000),
    # A smoke test of the script itself.
    "small": dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                  intermediate_size=256, vocab_size=1000),
}
ERROR_RATIO_TARGET = 0.8


# ---------------------------------------------------------------------------
# Model and data
# ---------------------------------------------------------------------------


def llama_config(size: str, max_positions: int):
    from transformers import LlamaConfig

    return LlamaConfig(**SIZES[size], max_position_embeddings=max_positions, use_cache=False,
                       tie_word_embeddings=False, attn_implementation="sdpa")


def build_llama(size: str, max_positions: int, seed: int):
    import torch
    from transformers import LlamaForCausalLM

    torch.manual_seed(seed)
    return LlamaForCausalLM(llama_config(size, max_positions)).eval()


def logits_module(model):
    """input ids -> logits, without a KV cache: the exported program's signature."""
    import torch

    class LogitsOnly(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids):
            return self.inner(input_ids=input_ids, use_cache=False).logits

    return LogitsOnly(model).eval()


def token_batches(count: int, length: int, vocab: int, seed: int) -> list[np.ndarray]:
    """``count`` int64 [1, length] batches of random ids; ids from 4 up (small ids are special
    tokens in many configs)."""
    rng = np.random.default_rng(seed)
    return [rng.integers(4, vocab, size=(1, length), dtype=np.int64) for _ in range(count)]


def write_calibration(batches: list[np.ndarray], directory: Path) -> tuple[Path, Path]:
    """The batches as a token-id text file (one sequence per line) and as an .npy folder (one
    sub-folder per batch holding ``0.npy``, the graph's input 0)."""
    directory.mkdir(parents=True, exist_ok=True)
    text = directory / "tokens.txt"
    text.write_text("".join(" ".join(str(int(t)) for t in b.reshape(-1)) + "\n" for b in batches))
    folder = directory / "npy"
    for index, batch in enumerate(batches):
        (folder / f"{index:03d}").mkdir(parents=True, exist_ok=True)
        np.save(folder / f"{index:03d}" / "0.npy", batch)
    return text, folder


def export_model(size: str, max_positions: int, seed: int, seq: int, pt2: Path, weights: Path | None,
                 eval_batches: list[np.ndarray]) -> tuple[int, list[np.ndarray], float]:
    """Builds the model, saves its state dict (for the original's child), exports ids -> logits
    at [1, seq] and returns (parameters, float logits of ``eval_batches``, export seconds)."""
    import torch

    model = build_llama(size, max_positions, seed)
    params = sum(p.numel() for p in model.parameters())
    if weights is not None:
        torch.save(model.state_dict(), weights)
    module = logits_module(model)
    start = time.perf_counter()
    example = torch.from_numpy(token_batches(1, seq, SIZES[size]["vocab_size"], seed + 1000)[0])
    with torch.no_grad():
        program = torch.export.export(module, (example,))
    torch.export.save(program, str(pt2))
    seconds = time.perf_counter() - start
    del program
    logits = []
    with torch.no_grad():
        for batch in eval_batches:
            logits.append(module(torch.from_numpy(batch)).numpy().copy())
    del module, model
    gc.collect()
    return params, logits, seconds


# ---------------------------------------------------------------------------
# Processes: wall time and peak RSS
# ---------------------------------------------------------------------------


class ToolFailure(Exception):
    def __init__(self, command: list[str], returncode: int, output: str):
        super().__init__(f"exit code {returncode}: {' '.join(command)}\n{output[-6000:]}")
        self.command, self.returncode, self.output = command, returncode, output


def timed(command: list[str], log: Path, env: dict | None = None, timeout: float | None = None) -> dict:
    """Runs ``command`` under GNU time; returns wall seconds and the peak RSS of the command alone.

    GNU time forks the command: a child forked from this (torch-laden) Python process would
    carry Python's memory high-water mark into its own ru_maxrss."""
    gnu_time = shutil.which("time", path="/usr/bin:/bin")
    if gnu_time is None:
        raise SystemExit("GNU time (/usr/bin/time) is needed to measure peak RSS; apt-get install time")
    rss_file = log.with_suffix(".rss")
    start = time.perf_counter()
    with open(log, "w") as out:
        try:
            done = subprocess.run([gnu_time, "-f", "%M %e", "-o", str(rss_file), *command], stdout=out,
                                  stderr=subprocess.STDOUT, env=env, timeout=timeout)
            returncode = done.returncode
        except subprocess.TimeoutExpired:
            returncode = -9
    wall = time.perf_counter() - start
    output = log.read_text(errors="replace")
    if returncode != 0:
        raise ToolFailure(command, returncode, output)
    peak_kib = int(rss_file.read_text().split()[-2])
    return {"wall_s": round(wall, 2), "peak_rss_mib": round(peak_kib / 1024, 1)}


# ---------------------------------------------------------------------------
# Ours
# ---------------------------------------------------------------------------


def rtn_recipe(gptq_recipe: Path, target: Path) -> Path:
    """The RTN-W4 recipe: the GPTQ recipe's ``ptq`` stage alone, with uint4 per-channel linear
    weights (ptq's own min/max round-to-nearest grid) and the same activation settings."""
    import yaml

    manifest = yaml.safe_load(gptq_recipe.read_text())
    stages = []
    for stage in manifest.get("stages", []):
        passes = [p for p in stage.get("passes", []) if p.get("name") != "gptq"]
        for p in passes:
            if p.get("name") == "ptq":
                p["options"] = rtn_ptq_options(dict(p.get("options") or {}))
        if passes:
            stages.append({**stage, "passes": passes})
    manifest["stages"] = stages
    target.write_text("# RTN-W4 written by tests/bench/bench_quant.py from " + gptq_recipe.name + "\n"
                      + yaml.safe_dump(manifest, sort_keys=False))
    return target


def rtn_ptq_options(options: dict) -> dict:
    """ptq options with 4-bit unsigned per-channel min/max weights (its overrides, e.g. uint8
    embedding and lm_head, kept)."""
    options.update(weights="uint4", granularity="per-channel", weight_estimator="minmax")
    return options


def error_ratio_stats(encodings: Path) -> dict:
    data = json.loads(encodings.read_text())
    by_subject: dict[str, dict] = {}
    for m in data.get("metrics", []):
        by_subject.setdefault(m["subject"], {})[m["metric"]] = m["value"]
    ratios = {s: v["error_ratio"] for s, v in by_subject.items() if "error_ratio" in v}
    values = sorted(ratios.values())
    stats = {"layers": len(values)}
    if values:
        stats.update(min=round(values[0], 4), median=round(statistics.median(values), 4), max=round(values[-1], 4),
                     above_target=sum(1 for v in values if v > ERROR_RATIO_TARGET),
                     worst=sorted(ratios.items(), key=lambda kv: -kv[1])[:3])
        gptq = sum(v.get("gptq_layer_error", 0.0) for v in by_subject.values())
        rtn = sum(v.get("rtn_layer_error", 0.0) for v in by_subject.values())
        if rtn > 0:
            stats["total_error_ratio"] = round(gptq / rtn, 4)
    stats["per_layer"] = by_subject
    return stats


def run_ours(args, name: str, pt2: Path, circle: Path, extra: list[str], work: Path, encodings: Path | None = None) -> dict:
    command = [str(args.tico_run), *extra, str(pt2), "-o", str(circle)]
    if encodings is not None:
        command += ["--encodings", str(encodings)]
    print(f"[ours] {name}: {' '.join(command)}", flush=True)
    result = timed(command, work / f"{name}.log")
    result["circle_mib"] = round(circle.stat().st_size / MiB, 1)
    print(f"[ours] {name}: {result['wall_s']:.1f} s, peak RSS {result['peak_rss_mib']:.0f} MiB", flush=True)
    return result


def calibration_argument(args, text: Path, folder: Path) -> str:
    return f"token-ids:{text}" if args.calibration_source == "token-ids" else f"npy:{folder}"


# ---------------------------------------------------------------------------
# The original (tico 0.3.0), in a child process
# ---------------------------------------------------------------------------


def original_child(spec_path: Path) -> int:
    """GPTQ then PTQ with the original package, then its Circle conversion; writes timings."""
    spec = json.loads(spec_path.read_text())
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    import torch
    import tico
    from tico.quantization import convert, prepare
    from tico.quantization.config.builders import build_llm_ptq_config
    from tico.quantization.config.gptq import GPTQConfig
    from tico.quantization.config.specs import affine
    from tico.quantization.recipes.qparams import inject_gptq_qparams
    from tico.quantization.wrapq.dtypes import DType

    torch.manual_seed(spec["seed"])
    times = {"import_s": time.perf_counter() - t0}
    t = time.perf_counter()
    from transformers import LlamaForCausalLM

    model = LlamaForCausalLM(llama_config(spec["size"], spec["max_positions"])).eval()
    model.load_state_dict(torch.load(spec["weights"], mmap=True, weights_only=True))
    calib = [torch.from_numpy(np.load(p)) for p in spec["calibration"]]
    times["load_s"] = time.perf_counter() - t

    t = time.perf_counter()
    gptq = GPTQConfig(weight_bits=4, show_progress=False)  # per-channel, asymmetric, act-order
    model = prepare(model, gptq, inplace=True)
    with torch.no_grad():
        for batch in calib:
            model(batch)
    model = convert(model, inplace=True)
    times["gptq_s"] = time.perf_counter() - t
    print(f"original: GPTQ {times['gptq_s']:.1f} s", flush=True)

    t = time.perf_counter()
    layers = len(model.model.layers)
    qcfg = build_llm_ptq_config(model_type="llama", num_hidden_layers=layers,
                                activation=affine(DType.int(16)), weight=affine(DType.int(16)),
                                linear_weight=affine(DType.uint(4)), embedding_weight=affine(DType.uint(8)),
                                lm_head_weight=affine(DType.uint(8)), norm_weight=affine(DType.int(16)),
                                strict_wrap=True)
    q = prepare(model, qcfg)
    holder = q if isinstance(getattr(q, "quantizers", None), dict) else q.wrapped
    injected = inject_gptq_qparams(holder, holder.quantizers)
    for owner in (q, getattr(q, "wrapped", None)):
        if owner is not None and hasattr(owner, "quantizers"):
            delattr(owner, "quantizers")
    with torch.no_grad():
        for batch in calib:
            q(batch)
    q = convert(q)
    times["ptq_s"] = time.perf_counter() - t
    print(f"original: PTQ {times['ptq_s']:.1f} s ({injected})", flush=True)

    # The fake-quantized PyTorch model on the held-out batches (no interpreter involved).
    t = time.perf_counter()
    with torch.no_grad():
        for index, path in enumerate(spec["eval"]):
            out = q(torch.from_numpy(np.load(path)))
            logits = out.logits if hasattr(out, "logits") else out[0]
            np.save(Path(spec["out_dir"]) / f"fq_logits{index}.npy", logits.float().numpy())
    times["fake_quant_eval_s"] = time.perf_counter() - t

    t = time.perf_counter()
    example = torch.from_numpy(np.load(spec["eval"][0]))
    with torch.no_grad():
        module = q.wrapped.as_export_module("prefill", return_kv=False).eval()
        circle = tico.convert(module, (example,), strict=False)
    circle.save(spec["circle"])
    times["convert_s"] = time.perf_counter() - t
    times["quantize_convert_s"] = times["gptq_s"] + times["ptq_s"] + times["convert_s"]
    times = {k: round(v, 2) for k, v in times.items()}
    Path(spec["result"]).write_text(json.dumps({"times": times, "gptq_injection": injected,
                                                "tico_version": getattr(tico, "__version__", "?")}))
    return 0


def run_original(args, work: Path, weights: Path, calib_files: list[Path], eval_files: list[Path]) -> dict:
    out_dir = work / "original"
    out_dir.mkdir(exist_ok=True)
    spec = {"size": args.size, "max_positions": args.max_positions, "seed": args.seed, "weights": str(weights),
            "calibration": [str(p) for p in calib_files], "eval": [str(p) for p in eval_files],
            "circle": str(out_dir / "original.circle"), "result": str(out_dir / "result.json"), "out_dir": str(out_dir)}
    spec_path = out_dir / "spec.json"
    spec_path.write_text(json.dumps(spec))
    command = [sys.executable, str(Path(__file__).resolve()), "--original-child", str(spec_path)]
    print(f"[original] GPTQ-W4 + PTQ A16 + tico.convert in a child process", flush=True)
    result = timed(command, out_dir / "original.log", timeout=args.original_timeout)
    child = json.loads((out_dir / "result.json").read_text())
    result.update(child)
    result["circle_mib"] = round(Path(spec["circle"]).stat().st_size / MiB, 1)
    result["circle"] = spec["circle"]
    print(f"[original] {result['wall_s']:.1f} s, peak RSS {result['peak_rss_mib']:.0f} MiB, stages {child['times']}",
          flush=True)
    return result


# ---------------------------------------------------------------------------
# Quality: logits SQNR on the built-in interpreter
# ---------------------------------------------------------------------------


def sqnr_db(reference: list[np.ndarray], test: list[np.ndarray]) -> float:
    signal = noise = 0.0
    for ref, got in zip(reference, test):
        ref64, got64 = np.asarray(ref, np.float64), np.asarray(got, np.float64)
        if ref64.shape != got64.shape:
            raise ValueError(f"shape {got64.shape} != reference {ref64.shape}")
        signal += float(np.sum(ref64 * ref64))
        noise += float(np.sum((ref64 - got64) ** 2))
    return math.inf if noise == 0 else 10.0 * math.log10(signal / noise)


def circle_io(circle: Path):
    """(input types, output (type, scale, zero point)) of a Circle file (circle_schema reader)."""
    sys.path.insert(0, str(REPO_ROOT / "tests" / "quant"))
    from measure import read_circle

    model = read_circle(circle)
    inputs = [model.tensors[i].type for i in model.inputs]
    outputs = []
    for i in model.outputs:
        t = model.tensors[i]
        q = t.quant
        outputs.append((t.type, None if q is None else float(q.scale[0]), None if q is None else int(q.zero_point[0])))
    return inputs, outputs


NUMPY_TYPES = {"INT64": np.int64, "INT32": np.int32, "FLOAT32": np.float32}


def run_interpreter(args, circle: Path, batches: list[np.ndarray], work: Path) -> tuple[list[np.ndarray], float]:
    """Runs ``circle`` on each batch with ``tico-circle run``; float logits (a quantized output is
    dequantized with its parameters) and the interpreter seconds."""
    input_types, outputs = circle_io(circle)
    out_type, scale, zero = outputs[0]
    logits, seconds = [], 0.0
    for index, batch in enumerate(batches):
        d = work / f"run{index}"
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        np.save(d / "in0.npy", batch.astype(NUMPY_TYPES.get(input_types[0], np.int64)))
        command = [str(args.tico_circle), "run", str(circle), "--input", str(d / "in0.npy"), "--output-dir", str(d / "out")]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds += time.perf_counter() - start
        if done.returncode != 0:
            raise ToolFailure(command, done.returncode, done.stderr + done.stdout)
        out = np.load(d / "out" / "out0.npy")
        if out.dtype.kind in "iu":
            out = (out.astype(np.float64) - (zero or 0)) * (scale if scale is not None else 1.0)
        logits.append(out.astype(np.float32))
    return logits, seconds


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def parse_args(argv=None) -> argparse.Namespace:
    env_run, env_circle = os.environ.get("TICO_RUN"), os.environ.get("TICO_CIRCLE")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tico-run", type=Path, default=Path(env_run) if env_run else REPO_ROOT / "build" / "bin" / "tico-run")
    p.add_argument("--tico-circle", type=Path, default=Path(env_circle) if env_circle else None,
                   help="default: tico-circle next to tico-run")
    p.add_argument("--recipe", type=Path, default=REPO_ROOT / "configs" / "quant" / "llm-w4a16.yaml")
    p.add_argument("--size", choices=sorted(SIZES), default="100m")
    p.add_argument("--seed", type=int, default=0, help="weights seed (data seeds derive from it)")
    p.add_argument("--calib-batches", type=int, default=8)
    p.add_argument("--calib-seq", type=int, default=128)
    p.add_argument("--eval-batches", type=int, default=2, help="held-out batches for the logits SQNR")
    p.add_argument("--calibration-source", choices=["token-ids", "npy"], default="token-ids")
    p.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()))
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.add_argument("--report", type=Path, help="write the figures as JSON")
    p.add_argument("--skip-original", action="store_true")
    p.add_argument("--original-report", type=Path,
                   help="take the original's figures from an earlier --report of the same size, seed and data "
                        "(and its Circle file, kept with --keep, for the SQNR) instead of running it again")
    p.add_argument("--skip-ours", action="store_true")
    p.add_argument("--no-quality", action="store_true", help="skip the interpreter runs")
    p.add_argument("--original-timeout", type=float, default=4 * 3600)
    p.add_argument("--large", action="store_true", help="also the ~1 B model under --memory-budget (long)")
    p.add_argument("--large-only", action="store_true", help="only the ~1 B memory-budget run")
    p.add_argument("--memory-budget", default="4GiB")
    p.add_argument("--original-child", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.tico_circle is None:
        args.tico_circle = args.tico_run.parent / "tico-circle"
    args.max_positions = args.calib_seq
    return args


def main() -> int:
    args = parse_args()
    if args.original_child is not None:
        return original_child(args.original_child)
    if not args.skip_ours and not os.access(args.tico_run, os.X_OK):
        raise SystemExit(f"tico-run not found at {args.tico_run} (--tico-run PATH or TICO_RUN)")
    args.workdir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="tico-bench-quant-", dir=args.workdir))
    print(f"work directory: {work}", flush=True)
    report_start = {"started_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "workdir": str(work)}
    report: dict = {"size": args.size, "config": SIZES[args.size], "seed": args.seed,
                    "calibration": {"batches": args.calib_batches, "seq": args.calib_seq, "source": args.calibration_source},
                    "eval_batches": args.eval_batches, "errors": {}, **report_start}
    try:
        if not args.large_only:
            benchmark(args, work, report)
        if args.large or args.large_only:
            large(args, work, report)
    finally:
        print_table(report)
        if args.report:
            checkpoint(args, report)
            print(f"report: {args.report}")
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if report["errors"] else 0


def checkpoint(args, report: dict) -> None:
    """Writes the report so far (a long run that is interrupted keeps what it measured)."""
    if args.report:
        args.report.write_text(json.dumps(report, indent=1, default=str))


def record_failure(report: dict, what: str, error: Exception) -> None:
    text = str(error)
    report["errors"][what] = text[-4000:]
    print(f"!! {what} failed: {text[-2000:]}", flush=True)


def benchmark(args, work: Path, report: dict) -> None:
    vocab = SIZES[args.size]["vocab_size"]
    calib = token_batches(args.calib_batches, args.calib_seq, vocab, args.seed + 1)
    held_out = token_batches(args.eval_batches, args.calib_seq, vocab, args.seed + 2)
    text, folder = write_calibration(calib, work / "calibration")
    eval_dir = work / "eval"
    eval_dir.mkdir()
    eval_files = []
    for index, batch in enumerate(held_out):
        eval_files.append(eval_dir / f"ids{index}.npy")
        np.save(eval_files[-1], batch)
    calib_files = sorted(folder.glob("*/0.npy"))

    pt2, weights = work / "model.pt2", work / "weights.pt"
    params, float_logits, export_s = export_model(args.size, args.max_positions, args.seed, args.calib_seq, pt2, weights, held_out)
    report["params"] = params
    report["export_s"] = round(export_s, 1)
    print(f"model: {params / 1e6:.1f} M parameters, exported in {export_s:.1f} s", flush=True)

    circles: dict[str, Path] = {}
    if args.original_report is not None:
        # The original's figures from an earlier invocation with the same size, seed and data
        # (its Circle file kept with --keep): for when its 25 minutes cannot be re-run.
        earlier = json.loads(args.original_report.read_text())
        for key in ("size", "seed", "calibration", "eval_batches", "params"):
            if earlier.get(key) != report.get(key):
                raise SystemExit(f"--original-report {args.original_report}: {key} {earlier.get(key)} != {report.get(key)}")
        report["original"] = dict(earlier["original"], reused_from=str(args.original_report))
        if "original_fake_quant_pytorch" in earlier.get("sqnr_db", {}):
            report.setdefault("sqnr_db", {})["original_fake_quant_pytorch"] = earlier["sqnr_db"]["original_fake_quant_pytorch"]
        if Path(report["original"].get("circle", "")).is_file():
            circles["original"] = Path(report["original"]["circle"])
    elif not args.skip_original:
        try:
            report["original"] = run_original(args, work, weights, calib_files, eval_files)
            circles["original"] = work / "original" / "original.circle"
            fq = [np.load(work / "original" / f"fq_logits{i}.npy") for i in range(len(held_out))]
            report.setdefault("sqnr_db", {})["original_fake_quant_pytorch"] = round(sqnr_db(float_logits, fq), 2)
        except Exception as error:  # noqa: BLE001 -- recorded, the rest still runs
            record_failure(report, "original", error)
        checkpoint(args, report)

    if not args.skip_ours:
        ours = report.setdefault("ours", {})
        calibration = calibration_argument(args, text, folder)
        runs = [("float", work / "float.circle", [], None),
                ("gptq_w4a16", work / "gptq.circle", ["--quant", str(args.recipe)], work / "gptq.json"),
                ("rtn_w4a16", work / "rtn.circle", None, work / "rtn.json")]
        for name, circle, extra, encodings in runs:
            try:
                if extra is None:
                    extra = ["--quant", str(rtn_recipe(args.recipe, work / "rtn-w4.yaml"))]
                if name != "float":
                    extra = [*extra, "--calibration", calibration, "--calibration-batches", str(args.calib_batches), "--no-progress"]
                ours[name] = run_ours(args, name, pt2, circle, extra, work, encodings)
                circles[name] = circle
                if encodings is not None and encodings.exists():
                    ours[name]["error_ratio"] = error_ratio_stats(encodings)
            except Exception as error:  # noqa: BLE001
                record_failure(report, f"ours/{name}", error)
            checkpoint(args, report)

    if not args.no_quality:
        sqnr = report.setdefault("sqnr_db", {})
        seconds = report.setdefault("interpreter_s", {})
        for name, circle in circles.items():
            try:
                logits, took = run_interpreter(args, circle, held_out, work / f"interp-{name}")
                sqnr[name] = round(sqnr_db(float_logits, logits), 2)
                seconds[name] = round(took, 1)
                print(f"[quality] {name}: logits SQNR {sqnr[name]:.2f} dB ({took:.0f} s on the interpreter)", flush=True)
            except Exception as error:  # noqa: BLE001
                record_failure(report, f"interpreter/{name}", error)
            checkpoint(args, report)


def large(args, work: Path, report: dict) -> None:
    """Our GPTQ-W4 recipe on the ~1 B model under the memory budget."""
    out = report.setdefault("large", {"size": "1b", "config": SIZES["1b"], "memory_budget": args.memory_budget})
    vocab = SIZES["1b"]["vocab_size"]
    lw = work / "large"
    lw.mkdir(exist_ok=True)
    calib = token_batches(args.calib_batches, args.calib_seq, vocab, args.seed + 1)
    held_out = token_batches(args.eval_batches, args.calib_seq, vocab, args.seed + 2)
    text, folder = write_calibration(calib, lw / "calibration")
    pt2 = lw / "model.pt2"
    try:
        params, float_logits, export_s = export_model("1b", args.max_positions, args.seed, args.calib_seq, pt2, None,
                                                      held_out)
        out.update(params=params, export_s=round(export_s, 1), pt2_mib=round(pt2.stat().st_size / MiB))
        print(f"large model: {params / 1e9:.3f} B parameters, exported in {export_s:.1f} s", flush=True)
        extra = ["--quant", str(args.recipe), "--calibration", calibration_argument(args, text, folder),
                 "--calibration-batches", str(args.calib_batches), "--memory-budget", args.memory_budget, "--no-progress"]
        out["gptq_w4a16"] = run_ours(args, "large_gptq_w4a16", pt2, lw / "gptq.circle", extra, lw, lw / "gptq.json")
        out["gptq_w4a16"]["error_ratio"] = error_ratio_stats(lw / "gptq.json")
        checkpoint(args, report)
        if not args.no_quality:
            logits, seconds = run_interpreter(args, lw / "gptq.circle", held_out, lw / "interp")
            out["gptq_w4a16"]["logits_sqnr_db"] = round(sqnr_db(float_logits, logits), 2)
            out["gptq_w4a16"]["interpreter_s"] = round(seconds, 1)
            print(f"[quality] large gptq_w4a16: logits SQNR {out['gptq_w4a16']['logits_sqnr_db']:.2f} dB "
                  f"({seconds:.0f} s on the interpreter)", flush=True)
    except Exception as error:  # noqa: BLE001
        record_failure(report, "large", error)
    finally:
        for p in (pt2, lw / "gptq.circle"):
            if p.exists() and not args.keep:
                p.unlink()


# ---------------------------------------------------------------------------
# Table
# ---------------------------------------------------------------------------


def _ratio_cell(stats: dict | None) -> str:
    if not stats or not stats.get("layers"):
        return "-"
    return (f"{stats['min']:.3f} / {stats['median']:.3f} / {stats['max']:.3f} "
            f"({stats['above_target']}/{stats['layers']} > {ERROR_RATIO_TARGET})")


def print_table(report: dict) -> None:
    rows = []
    ours, original, sqnr = report.get("ours", {}), report.get("original"), report.get("sqnr_db", {})
    for key, label in (("float", "ours: float (default pipeline)"), ("gptq_w4a16", "ours: GPTQ-W4 A16 (llm-w4a16)"),
                       ("rtn_w4a16", "ours: RTN-W4 A16 (ptq only)")):
        r = ours.get(key)
        if r is not None:
            rows.append((label, f"{r['wall_s']:.1f}", f"{r['peak_rss_mib']:.0f}", _ratio_cell(r.get("error_ratio")),
                         _fmt_db(sqnr.get(key))))
    if original is not None:
        t = original.get("times", {})
        rows.append(("original: GPTQ-W4 + PTQ A16 + convert", f"{original['wall_s']:.1f}", f"{original['peak_rss_mib']:.0f}",
                     "-", _fmt_db(sqnr.get("original"))))
        rows.append(("  of which gptq / ptq / convert (s)",
                     f"{t.get('gptq_s', 0):.0f}/{t.get('ptq_s', 0):.0f}/{t.get('convert_s', 0):.0f}", "", "", ""))
        rows.append(("original: fake-quant PyTorch (no Circle)", "", "", "", _fmt_db(sqnr.get("original_fake_quant_pytorch"))))
    large_run = report.get("large", {}).get("gptq_w4a16")
    if large_run:
        rows.append((f"ours: 1B GPTQ-W4 A16, budget {report['large']['memory_budget']}", f"{large_run['wall_s']:.1f}",
                     f"{large_run['peak_rss_mib']:.0f}", _ratio_cell(large_run.get("error_ratio")),
                     _fmt_db(large_run.get("logits_sqnr_db"))))
    head = ("run", "wall s", "peak RSS MiB", "error ratio min/med/max (n > 0.8)", "logits SQNR dB")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print()
    models = []
    if report.get("params"):
        models.append(f"Llama-style {report.get('size')}, {report['params'] / 1e6:.1f} M params")
    if report.get("large", {}).get("params"):
        models.append(f"Llama-style 1b, {report['large']['params'] / 1e6:.1f} M params")
    print(f"model: {'; '.join(models) or '-'}; "
          f"calibration {report['calibration']['batches']} x [1, {report['calibration']['seq']}]")
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    if ours.get("gptq_w4a16") and original:
        g = ours["gptq_w4a16"]
        print(f"ours GPTQ vs original: wall {g['wall_s'] / original['wall_s']:.2f} x, peak RSS "
              f"{g['peak_rss_mib'] / original['peak_rss_mib']:.2f} x")
    if original and original.get("reused_from"):
        print(f"the original's figures come from an earlier invocation: {original['reused_from']}")
    for what, text in report.get("errors", {}).items():
        print(f"FAILED {what}: {text.splitlines()[0] if text else ''}")


def _fmt_db(value) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
