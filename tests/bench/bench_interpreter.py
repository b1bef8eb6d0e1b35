"""Interpreter benchmark: tico's built-in Circle interpreter against onert on three networks.

Builds three model-level networks with random weights (a ResNet-style CNN, a transformer
encoder block, an MLP), converts each with ``tico-run``, checks that both runtimes agree with
PyTorch eager, then times steady-state inference in one run of this script:

* onert: one prepared session (``infer.session``), ``--warmup`` untimed then ``--runs`` timed
  ``session.infer`` calls, in a worker process (tests/bench/onert_timer.py) that imports only NumPy and onert;
* interpreter: ``tico-interp-timer`` (tests/e2e/interp_timer.cpp) loads the model once and
  times ``--runs`` ``CircleInterpreter::run`` calls after ``--warmup`` untimed ones.

Both sides exclude start-up and file I/O. Each network is timed at every ``--threads`` count
(``TICO_INTERPRETER_THREADS`` for the interpreter, onert's ``NUM_THREADS``). The reported ratio
is interpreter median / onert median (below 1: the interpreter is faster); the peak RSS of each
process is reported too (the onert worker's includes its Python interpreter and NumPy, about
30 MiB). It is a script, not a CTest test: timings on a shared 2-core machine are too noisy to
gate a build.

    python3 tests/bench/bench_interpreter.py --build build
    python3 tests/bench/bench_interpreter.py --tico-run B/bin/tico-run --timer B/bin/tico-interp-timer
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_quant's model builder


# ---------------------------------------------------------------------------
# Networks (random weights, eval mode).
# ---------------------------------------------------------------------------


class BasicBlock(nn.Module):
    def __init__(self, channels_in: int, channels_out: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels_in, channels_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels_out)
        self.conv2 = nn.Conv2d(channels_out, channels_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels_out)
        self.shortcut = nn.Identity()
        if stride != 1 or channels_in != channels_out:
            self.shortcut = nn.Sequential(nn.Conv2d(channels_in, channels_out, 1, stride, bias=False), nn.BatchNorm2d(channels_out))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class ResNetish(nn.Module):
    """ResNet-18-style: stem, four stages of two basic blocks, global pooling, classifier."""

    def __init__(self, width: int = 32, classes: int = 100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        blocks, channels = [], width
        for stage, stride in enumerate((1, 2, 2, 2)):
            out = width * 2**stage
            blocks += [BasicBlock(channels, out, stride), BasicBlock(out, out, 1)]
            channels = out
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        y = self.blocks(self.stem(x))
        return self.head(y.mean(dim=(2, 3)))


class TransformerBlock(nn.Module):
    """Pre-norm encoder block: multi-head self-attention and a GELU MLP, written out in ops."""

    def __init__(self, dim: int = 256, heads: int = 4, hidden: int = 1024):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        batch, tokens, dim = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)

        def heads(t):
            return t.reshape(batch, tokens, self.heads, dim // self.heads).permute(0, 2, 1, 3)

        scores = heads(q) @ heads(k).transpose(-1, -2) * (dim // self.heads) ** -0.5
        attended = (scores.softmax(dim=-1) @ heads(v)).permute(0, 2, 1, 3).reshape(batch, tokens, dim)
        x = x + self.proj(attended)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class MLP(nn.Module):
    def __init__(self, features: int = 1024, layers: int = 4, classes: int = 10):
        super().__init__()
        self.layers = nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(features, features), nn.ReLU())])
        self.head = nn.Linear(features, classes)

    def forward(self, x):
        return self.head(self.layers(x))


def llama_prefill() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """bench_quant.py's ~106 M-parameter Llama-style LM (random weights, transformers), logits
    for a 128-token prompt without a KV cache."""
    import bench_quant

    model = bench_quant.logits_module(bench_quant.build_llama("100m", max_positions=128, seed=0))
    ids = torch.from_numpy(bench_quant.token_batches(1, 128, bench_quant.SIZES["100m"]["vocab_size"], seed=1)[0])
    return model, (ids,)


def networks(llama: bool = False) -> dict[str, tuple[nn.Module, tuple[torch.Tensor, ...]]]:
    torch.manual_seed(0)
    resnet = ResNetish()
    for module in resnet.modules():  # non-trivial batch-norm statistics
        if isinstance(module, nn.BatchNorm2d):
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)
    return {
        "resnet-ish CNN (1x3x64x64)": (resnet, (torch.randn(1, 3, 64, 64),)),
        "transformer block (1x128x256)": (TransformerBlock(), (torch.randn(1, 128, 256),)),
        "MLP (64x1024, 5 layers)": (MLP(), (torch.randn(64, 1024),)),
        **({"Llama-style LM 106M, prefill 128": llama_prefill()} if llama else {}),
    }


# ---------------------------------------------------------------------------
# Running.
# ---------------------------------------------------------------------------


def run(command: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, int]:
    """Runs a command under GNU time; returns its result and its peak RSS in KiB."""
    with tempfile.NamedTemporaryFile(prefix="tico-bench-rss-") as rss:
        done = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *command], capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise SystemExit(f"failed (exit {done.returncode}): {' '.join(command)}\n{done.stderr}")
        return done, int(Path(rss.name).read_text().split()[-1])


def with_threads(threads: int) -> dict[str, str]:
    return {**os.environ, "TICO_INTERPRETER_THREADS": str(threads), "NUM_THREADS": str(threads)}


def time_onert(circle: Path, inputs: list[np.ndarray], runs: int, warmup: int, work: Path, threads: int):
    save_inputs(inputs, work)
    done, rss = run(
        [sys.executable, str(Path(__file__).with_name("onert_timer.py")), str(circle), str(work), str(runs), str(warmup)],
        with_threads(threads),
    )
    return parse_times(done), load_outputs(work / "onert-out"), rss


def save_inputs(inputs: list[np.ndarray], work: Path) -> list[Path]:
    paths = []
    for i, array in enumerate(inputs):
        paths.append(work / f"in{i}.npy")
        np.save(paths[-1], array)
    return paths


def parse_times(done: subprocess.CompletedProcess) -> list[float]:
    match = re.search(r"^TIMES_MS (.*)$", done.stdout, re.M)
    if not match:
        raise SystemExit(f"no TIMES_MS line from {done.args[5]}:\n{done.stdout}\n{done.stderr}")
    return [float(t) for t in match.group(1).split()]


def load_outputs(out_dir: Path) -> list[np.ndarray]:
    outputs = []
    while (out_dir / f"out{len(outputs)}.npy").is_file():
        outputs.append(np.load(out_dir / f"out{len(outputs)}.npy"))
    return outputs


def time_interpreter(timer: Path, circle: Path, inputs: list[np.ndarray], runs: int, warmup: int, work: Path, threads: int,
                     memory_plan: bool = True):
    paths = save_inputs(inputs, work)
    out_dir = work / ("interpreter-out" if memory_plan else "interpreter-out-no-plan")
    env = with_threads(threads)
    if not memory_plan:
        env["TICO_MEMORY_PLAN"] = "0"
    done, rss = run(
        [str(timer), str(circle), "--runs", str(runs), "--warmup", str(warmup), "--output-dir", str(out_dir), *map(str, paths)],
        env,
    )
    return parse_times(done), load_outputs(out_dir), rss


def check(label: str, got: list[np.ndarray], want: list[np.ndarray], tolerance: float) -> float:
    if len(got) != len(want):
        raise SystemExit(f"{label}: {len(got)} outputs, eager has {len(want)}")
    worst = 0.0
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance, err_msg=label)
        worst = max(worst, float(np.max(np.abs(g - w))) if g.size else 0.0)
    return worst


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=Path, default=REPO_ROOT / "build", help="build directory (default: build)")
    parser.add_argument("--tico-run", type=Path, help="tico-run binary (default: BUILD/bin/tico-run)")
    parser.add_argument("--timer", type=Path, help="tico-interp-timer binary (default: BUILD/bin/tico-interp-timer)")
    parser.add_argument("--pipeline", type=Path, default=REPO_ROOT / "configs" / "pipelines" / "default.yaml")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per runtime (median reported)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs before timing")
    parser.add_argument("--tolerance", type=float, default=1e-4, help="rtol = atol against eager (deep nets sum in other orders)")
    parser.add_argument("--llama", action="store_true", help="also a ~106 M-parameter Llama-style LM, 128-token prefill (needs transformers)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts to time each network at (default: 1,2)")
    parser.add_argument("--no-plan", action="store_true",
                        help="also time the interpreter with TICO_MEMORY_PLAN=0 (intermediates from the buffer pool, no "
                             "arena plan, nothing in place) and check its outputs are bitwise the planned run's")
    args = parser.parse_args()
    args.tico_run = args.tico_run or args.build / "bin" / "tico-run"
    if args.timer is None:
        found = sorted(args.build.glob("**/tico-interp-timer"))
        args.timer = found[0] if found else args.build / "bin" / "tico-interp-timer"
    for tool in (args.tico_run, args.timer):
        if not tool.is_file():
            raise SystemExit(f"{tool} does not exist: build tico-run and tico-interp-timer first")
    return args


def main() -> int:
    args = parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="tico-bench-interp-") as tmp:
        for index, (name, (module, example)) in enumerate(networks(args.llama).items()):
            work = Path(tmp) / f"net{index}"
            work.mkdir()
            module = module.eval()
            with torch.no_grad():
                eager = [t.numpy() for t in torch.utils._pytree.tree_leaves(module(*example))]
                program = torch.export.export(module, example)
            torch.export.save(program, str(work / "model.pt2"))
            circle = work / "model.circle"
            run([str(args.tico_run), "--pipeline", str(args.pipeline), str(work / "model.pt2"), "-o", str(circle)])
            inputs = [t.numpy() for t in example]
            for threads in [int(t) for t in args.threads.split(",")]:
                onert_times, onert_out, onert_rss = time_onert(circle, inputs, args.runs, args.warmup, work, threads)
                interp_times, interp_out, interp_rss = time_interpreter(
                    args.timer, circle, inputs, args.runs, args.warmup, work, threads
                )
                onert_err = check(f"onert {name}", onert_out, eager, args.tolerance)
                interp_err = check(f"interpreter {name}", interp_out, eager, args.tolerance)
                onert_ms, interp_ms = statistics.median(onert_times), statistics.median(interp_times)
                extra = {}
                if args.no_plan:
                    pool_times, pool_out, pool_rss = time_interpreter(
                        args.timer, circle, inputs, args.runs, args.warmup, work, threads, memory_plan=False
                    )
                    if len(pool_out) != len(interp_out) or not all(np.array_equal(a, b) for a, b in zip(pool_out, interp_out)):
                        raise SystemExit(f"{name}: outputs with and without the memory plan differ")
                    extra = {"no_plan_ms": round(statistics.median(pool_times), 3),
                             "no_plan_peak_rss_mib": round(pool_rss / 1024, 1)}
                rows.append(
                    {
                        **extra,
                        "network": name,
                        "threads": threads,
                        "parameters": sum(p.numel() for p in module.parameters()),
                        "onert_ms": round(onert_ms, 3),
                        "interpreter_ms": round(interp_ms, 3),
                        "ratio": round(interp_ms / onert_ms, 3),
                        "onert_peak_rss_mib": round(onert_rss / 1024, 1),
                        "interpreter_peak_rss_mib": round(interp_rss / 1024, 1),
                        "max_abs_err_onert": onert_err,
                        "max_abs_err_interpreter": interp_err,
                    }
                )
    print(f"{'network':32} {'threads':>7} {'onert ms':>9} {'interp ms':>9} {'interp/onert':>12} {'onert MiB':>9} {'interp MiB':>10}")
    for r in rows:
        print(
            f"{r['network']:32} {r['threads']:>7} {r['onert_ms']:>9.2f} {r['interpreter_ms']:>9.2f} {r['ratio']:>12.2f}"
            f" {r['onert_peak_rss_mib']:>9.1f} {r['interpreter_peak_rss_mib']:>10.1f}"
        )
    if args.no_plan:
        print(f"{'without the memory plan':32} {'threads':>7} {'ms':>9} {'MiB':>9} {'planned/not ms':>14} {'planned/not MiB':>15}")
        for r in rows:
            print(f"{r['network']:32} {r['threads']:>7} {r['no_plan_ms']:>9.2f} {r['no_plan_peak_rss_mib']:>9.1f}"
                  f" {r['interpreter_ms'] / r['no_plan_ms']:>14.3f} {r['interpreter_peak_rss_mib'] / r['no_plan_peak_rss_mib']:>15.3f}")
    print(f"(median of {args.runs} runs after {args.warmup} warm-up runs; outputs checked against eager, rtol=atol={args.tolerance})")
    print("BENCH_JSON " + json.dumps({"benchmark": "interpreter_vs_onert", "runs": args.runs, "results": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
