"""Incremental runtime benchmark: the timing goals of issue 14 phase B on the CLIP-like fixture.

Exports the random-init dual encoder of tests/incremental/test_incremental.py (TinyClip, the
same fixture the e2e tests convert; ``--size mid`` the design's mid-size G2 model built from
it: width 256, 4 + 4 blocks, 64x64 image, 16 prompts x 32 tokens), converts it with ``tico-run --incremental`` (the text
inputs grouped; with ``--quant uint8|int16`` through ptq first, G9) and drives
``tico-circle serve-incremental`` (the runtime layer on the built-in interpreter,
core/incremental-runtime):

* G2, latency tracks MACs: for each strategy a trace file whose every step moves its group to a
  value never seen before, so every step after the first two runs that strategy on a warm cache
  (``--steps`` of them; MAC-based selection, so no step picks another strategy). The strategy's
  median step time (the layer's own time included) over the median of the plain monolith runs
  made right after the trace must be <= its MAC ratio + 0.05. Both run back to back, as a
  serving loop does; the measurement is repeated ``--repeats`` times (a shared machine drifts)
  and the median ratio counts. Also reported: the ratio "after a monolith run", from the
  ``--check`` replay whose monolith run before every step evicts the strategy's weights from the
  caches (a pessimistic figure, not the goal's), and with ``--callgrind`` the design's
  repeatable figure, instructions per step under valgrind's callgrind on one thread: the
  difference between two trace lengths, over the same for a trace whose every step changes all
  inputs (the monolith).
* G3, dispatch overhead: the layer's time outside subgraph execution per step, median over the
  same all-hit steps replayed again back to back (no monolith runs between them), against the
  median of monolith runs after that trace: <= 2 % and, on the tiny fixture, <= 50 us. With
  ``--versions content`` (default) it includes hashing the changed inputs.
* G8, cache behaviour: a seeded 90 % text / 10 % image trace over 8 values per group, 1,000
  steps, 64 MiB budget: hit rate >= 0.9 (also a CTest assertion, since the seeded trace is
  deterministic), and the mean step latency, compared with 0.9 t_text + 0.1 t_image + overhead.

It is a script, not a CTest test: timings on a shared 2-core machine are too noisy to gate a
build. Prints a table and one ``BENCH_JSON {...}`` line; ``--enforce`` exits 1 when a target is
missed.

    python3 tests/bench/bench_incremental.py --build build
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def load_fixture(build: Path):
    # test_incremental.py reads the tool paths at import time.
    os.environ.setdefault("TICO_RUN", str(build / "bin/tico-run"))
    os.environ.setdefault("TICO_CIRCLE", str(build / "bin/tico-circle"))
    os.environ.setdefault("TICO_INCREMENTAL_REPLAY", str(build / "bin/tico-incremental-replay"))
    sys.path.insert(0, str(REPO_ROOT / "tests/incremental"))
    import test_incremental  # noqa: E402

    return test_incremental


# (TinyClip arguments, prompts): the e2e fixture, and the design's mid-size G2 model.
SIZES = {"tiny": ({}, None), "mid": ({"width": 256, "blocks": 4, "image": 64, "tokens": 32}, 16)}


def build_model(fixture, workdir: Path, size: str, quant: list[str]) -> Path:
    import torch

    config, prompts = SIZES[size]
    prompts = prompts or fixture.PROMPTS
    image, tokens = config.get("image", 16), config.get("tokens", fixture.TOKENS)
    torch.manual_seed(0)
    model = fixture.TinyClip(**config)
    args = (torch.randn(1, 3, image, image), torch.randint(0, fixture.VOCAB, (prompts, tokens)),
            torch.ones(prompts, tokens, dtype=torch.int64))
    pt2 = fixture.export(model, args, workdir / "clip.pt2")
    circle = workdir / "clip.circle"
    fixture.convert(pt2, circle, *quant, "--incremental", "--incremental-group", "input_ids+attention_mask")
    return circle


def serve(tico_circle: Path, circle: Path, *extra: str) -> dict:
    result = subprocess.run([str(tico_circle), "serve-incremental", str(circle), "--json", *extra],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"serve-incremental failed: {result.stderr}")
    return json.loads(result.stdout)


# Trace lengths of the two callgrind replays (their difference is what is counted).
CALLGRIND_STEPS = (2, 4)


def instructions_per_step(tico_circle: Path, circle: Path, workdir: Path, line: str, pool: int, vocab: str) -> float:
    """Instructions per trace step whose change is ``line``, under callgrind on one thread.

    Two replays differing only in their number of steps: start-up, the first monolith run, the
    refresh chain and the reference run cancel in the difference."""
    counts = []
    for steps in CALLGRIND_STEPS:
        trace = workdir / f"callgrind-{steps}.trace"
        trace.write_text("".join(line.format(k=k) + "\n" for k in range(1, steps + 1)))
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(tico_circle), "serve-incremental",
             str(circle), "--json", "--trace-file", str(trace), "--pool", str(pool), "--budget", "none",
             "--int-bound", vocab, "--versions", "caller", "--mac-only", "--reference-runs", "1"],
            capture_output=True, text=True, env={**os.environ, "TICO_INTERPRETER_THREADS": "1"})
        found = re.search(r"Collected : (\d+)", result.stderr)
        if result.returncode != 0 or not found:
            sys.exit(f"callgrind run failed: {result.stderr[-2000:]}")
        counts.append(int(found.group(1)))
    return (counts[1] - counts[0]) / (CALLGRIND_STEPS[1] - CALLGRIND_STEPS[0])



def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=REPO_ROOT / "build")
    parser.add_argument("--steps", type=int, default=60, help="timed steps per strategy (>= 30)")
    parser.add_argument("--size", choices=sorted(SIZES), default="tiny",
                        help="tiny: the e2e fixture; mid: width 256, 4 + 4 blocks, 64x64 image, 16 x 32 tokens")
    parser.add_argument("--versions", choices=["content", "caller"], default="content",
                        help="content: the layer hashes the inputs (its time counts as overhead); caller: given")
    parser.add_argument("--quant", choices=["none", "uint8", "int16"], default="none",
                        help="G9: convert through ptq (random calibration) with uint8 or int16 activations")
    parser.add_argument("--float-islands", choices=["avoid", "keep"], default="keep",
                        help="with --quant: keep quantizes every activation (ptq's float_islands)")
    parser.add_argument("--repeats", type=int, default=3, help="G2 measurements per strategy (median ratio)")
    parser.add_argument("--callgrind", action="store_true",
                        help="also count instructions per step under valgrind's callgrind (the repeatable G2 figure)")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--enforce", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    fixture = load_fixture(args.build)
    tico_circle = args.build / "bin/tico-circle"
    vocab = f"input_ids={fixture.VOCAB}"

    with tempfile.TemporaryDirectory() as tmp:
        workdir = args.workdir or Path(tmp)
        quant = [] if args.quant == "none" else fixture.quant_args(workdir, args.quant, args.float_islands)
        circle = build_model(fixture, workdir, args.size, quant)
        manifest = json.loads(circle.with_suffix(".incremental.json").read_text())
        results, missed = {}, []
        overheads = []
        for strategy in manifest["strategies"]:
            if not strategy["reads_retained"]:
                continue  # the monolith and the refresh chain
            group = strategy["changed"][0]
            name = manifest["groups"][[g["name"] for g in manifest["groups"]].index(group)]["inputs"][0]
            # Step 0 runs the monolith, step 1 the refresh chain (a miss), then one new value per
            # step: the strategy on a warm cache.
            trace = workdir / f"{strategy['name']}.trace"
            trace.write_text("".join(f"{name}={k}\n" for k in range(1, args.steps + 2)))
            common = ["--trace-file", str(trace), "--pool", str(args.steps + 2), "--budget", "none",
                      "--int-bound", vocab, "--versions", args.versions, "--mac-only"]
            # Back to back, as a serving loop runs; repeated, and the median ratio counts.
            loops = sorted((serve(tico_circle, circle, *common) for _ in range(args.repeats)),
                           key=lambda r: r["strategies"][strategy["name"]]["latency_ratio"])
            loop = loops[len(loops) // 2]
            # Parity, and the pessimistic figure: --check runs the monolith before every step.
            report = serve(tico_circle, circle, *common, "--check")
            s = loop["strategies"][strategy["name"]]
            ok = s["latency_ratio"] <= strategy["mac_ratio"] + 0.05
            results[strategy["name"]] = {"steps": s["steps"], "median_ms": s["median_ms"],
                                         "monolith_median_ms": loop["latency"]["monolith_median_ms"],
                                         "latency_ratio": s["latency_ratio"], "mac_ratio": strategy["mac_ratio"],
                                         "latency_ratios": [r["strategies"][strategy["name"]]["latency_ratio"]
                                                            for r in loops],
                                         "latency_ratio_after_monolith":
                                             report["strategies"][strategy["name"]]["latency_ratio"],
                                         "g2_ok": ok, "mismatches": report["check"]["mismatches"],
                                         "overhead_median_us": loop["overhead"]["median_us"],
                                         "overhead_fraction": loop["overhead"]["median_fraction_of_monolith"],
                                         "overhead_median_us_interleaved": report["overhead"]["median_us"]}
            if args.callgrind:
                results[strategy["name"]]["instructions_per_step"] = instructions_per_step(
                    tico_circle, circle, workdir, name + "={k}", args.steps + 2, vocab)
            overheads.append(loop["overhead"])
            if report["check"]["mismatches"]:
                missed.append(f"parity {strategy['name']}")
            if not ok and args.size == "mid":  # the design sets G2 on the mid-size model
                missed.append(f"G2 {strategy['name']}")
        if args.callgrind:
            monolith_instructions = instructions_per_step(tico_circle, circle, workdir, "all", args.steps + 2, vocab)
            for r in results.values():
                r["instruction_ratio"] = r["instructions_per_step"] / monolith_instructions
        overhead_us = max(o["median_us"] for o in overheads)
        overhead_fraction = max(o["median_fraction_of_monolith"] for o in overheads)
        # The design sets the 50 us bound on the tiny fixture; the 2 % bound holds everywhere.
        g3_ok = overhead_fraction <= 0.02 and (args.size != "tiny" or overhead_us <= 50)
        if not g3_ok:
            missed.append("G3")

        trace = serve(tico_circle, circle, "--trace", "input_ids:0.9,pixel_values:0.1", "--steps", "1000",
                      "--budget", "64MiB", "--int-bound", vocab, "--check")
        by_name = {s["name"]: s for s in manifest["strategies"]}
        text = results.get("changed_input_ids+attention_mask", {}).get("median_ms", 0.0)
        image = results.get("changed_pixel_values", {}).get("median_ms", 0.0)
        g8_bound = 0.9 * text + 0.1 * image
        g8 = {"hit_rate": trace["cache"]["hit_rate"], "mean_ms": trace["latency"]["step_mean_ms"],
              "bound_ms": g8_bound, "strategies": {k: v["steps"] for k, v in trace["strategies"].items()},
              "mismatches": trace["check"]["mismatches"], "peak_retained_bytes": trace["cache"]["peak_retained_bytes"]}
        if g8["hit_rate"] < 0.9 or g8["mismatches"] or g8["mean_ms"] > g8_bound + overhead_us / 1e3:
            missed.append("G8")

    print(f"{'strategy':38} {'steps':>5} {'median ms':>10} {'monolith ms':>11} {'ratio':>7} {'MACs':>7} "
          f"{'after mono':>10} {'instr':>7} {'overhead us':>11}")
    for name, r in results.items():
        instr = f"{r['instruction_ratio']:7.3f}" if "instruction_ratio" in r else f"{'-':>7}"
        print(f"{name:38} {r['steps']:5d} {r['median_ms']:10.3f} {r['monolith_median_ms']:11.3f} "
              f"{r['latency_ratio']:7.3f} {r['mac_ratio']:7.3f} {r['latency_ratio_after_monolith']:10.3f} {instr} "
              f"{r['overhead_median_us']:11.1f}{'' if r['g2_ok'] else '  above MACs + 0.05'}")
    if args.size != "mid":
        print("(G2 is set on the mid-size model, --size mid; these ratios are for information)")
    print(f"G3 dispatch overhead: median {overhead_us:.1f} us, {100 * overhead_fraction:.2f} % of the monolith "
          f"({'ok' if g3_ok else 'missed'})")
    print(f"G8 90/10 trace: hit rate {g8['hit_rate']:.4f}, mean step {g8['mean_ms']:.3f} ms "
          f"(0.9 t_text + 0.1 t_image = {g8_bound:.3f} ms), strategies {g8['strategies']}, "
          f"{g8['mismatches']} mismatches")
    print("BENCH_JSON " + json.dumps({"size": args.size, "versions": args.versions, "quant": args.quant, "g2": results, "g3": {"overhead_median_us": overhead_us,
                                                            "overhead_fraction": overhead_fraction, "ok": g3_ok},
                                      "g8": g8, "monolith_mac_ratio": by_name["monolithic"]["mac_ratio"],
                                      "missed": missed}))
    return 1 if args.enforce and missed else 0


if __name__ == "__main__":
    sys.exit(main())
