"""Incremental strategies end to end (docs/incremental.md, the goals of issue 14 phase A).

A random-init CLIP-like dual encoder (vision: patch convolution + pre-norm transformer blocks +
projection + normalise; text: embedding + causal blocks with a padding mask + EOS pooling +
projection + normalise; logits from exp(logit_scale)) is exported with torch.export and converted
with `tico-run --incremental`. Checked: the file verifies (manifest included), the strategies
(G1: 1,000 seeded random change sequences replayed from the manifest alone, bitwise equal to the
monolith), G5 (file <= 1.05 x the plain conversion), G7 (two conversions give the same bytes),
a three-input model, a model that mutates a buffer (every strategy refused with the reason) and
a retained budget below every frontier (the monolith alone). Phase B: `tico-circle
serve-incremental` runs seeded and file traces through the runtime layer (G8 hit rate on a
90 / 10 trace, the budget never exceeded at run time, every step bitwise equal to the monolith).
"""

import json
import math
import os
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn as nn

TICO_RUN = os.environ["TICO_RUN"]
TICO_CIRCLE = os.environ["TICO_CIRCLE"]
REPLAY = os.environ["TICO_INCREMENTAL_REPLAY"]

WIDTH = 128
EMBED = 64
VOCAB = 100
TOKENS = 8
PROMPTS = 2


class Block(nn.Module):
    def __init__(self, d, heads=4, causal=False):
        super().__init__()
        self.heads = heads
        self.causal = causal
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 2 * d)
        self.fc2 = nn.Linear(2 * d, d)

    def forward(self, x, bias=None):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(d // self.heads))
        if bias is not None:
            scores = scores + bias
        attn = torch.softmax(scores, dim=-1) @ v
        x = x + self.out(attn.transpose(1, 2).reshape(b, t, d))
        h = self.fc1(self.ln2(x))
        return x + self.fc2(h * torch.sigmoid(1.702 * h))  # quick GELU, as CLIP


class TinyClip(nn.Module):
    """The defaults are the e2e fixture; tests/bench/bench_incremental.py --size mid builds the
    design's mid-size G2 model (width 256, 4 + 4 blocks, 64x64 image, 32 tokens) from it."""

    def __init__(self, width=WIDTH, blocks=2, image=16, tokens=TOKENS):
        super().__init__()
        self.patch = nn.Conv2d(3, width, kernel_size=8, stride=8, bias=False)
        self.cls = nn.Parameter(torch.randn(1, 1, width) * 0.02)
        self.vpos = nn.Parameter(torch.randn(1, (image // 8) ** 2 + 1, width) * 0.02)
        self.vblocks = nn.ModuleList([Block(width) for _ in range(blocks)])
        self.vln = nn.LayerNorm(width)
        self.vproj = nn.Linear(width, EMBED, bias=False)
        self.tok = nn.Embedding(VOCAB, width)
        self.tpos = nn.Parameter(torch.randn(1, tokens, width) * 0.02)
        self.tblocks = nn.ModuleList([Block(width, causal=True) for _ in range(blocks)])
        self.tln = nn.LayerNorm(width)
        self.tproj = nn.Linear(width, EMBED, bias=False)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
        self.register_buffer("causal", torch.triu(torch.full((tokens, tokens), -1e4), 1), persistent=False)
        self.register_buffer("positions", torch.arange(tokens), persistent=False)

    def forward(self, pixel_values, input_ids, attention_mask):
        x = self.patch(pixel_values).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.vpos
        for blk in self.vblocks:
            x = blk(x)
        image = self.vproj(self.vln(x[:, 0]))
        image_embeds = image / image.norm(dim=-1, keepdim=True)

        t = self.tok(input_ids) + self.tpos
        pad = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -1e4
        bias = self.causal + pad
        for blk in self.tblocks:
            t = blk(t, bias)
        t = self.tln(t)
        eos = (self.positions[None, :] == input_ids.argmax(dim=-1)[:, None]).to(torch.float32)
        text = self.tproj((eos[:, :, None] * t).sum(dim=1))
        text_embeds = text / text.norm(dim=-1, keepdim=True)

        logits_per_text = self.logit_scale.exp() * text_embeds @ image_embeds.t()
        return logits_per_text.t(), logits_per_text, image_embeds, text_embeds


class ThreeInputs(nn.Module):
    """Three independent inputs: a and b meet first, c joins at the end."""

    def __init__(self):
        super().__init__()
        self.fa = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 64))
        self.fb = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 64))
        self.fc = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 64))
        self.mix = nn.Linear(64, 64)

    def forward(self, a, b, c):
        ab = self.mix(torch.tanh(self.fa(a) + self.fb(b)))
        return ab * self.fc(c), ab


class CountsCalls(nn.Module):
    """Mutates a buffer: an incremental strategy would skip or repeat the write."""

    def __init__(self):
        super().__init__()
        self.fa = nn.Linear(16, 16)
        self.fb = nn.Linear(16, 16)
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, a, b):
        self.calls.add_(1.0)
        return self.fa(a) * self.fb(b) + self.calls


def export(module, args, path):
    torch.manual_seed(0)
    ep = torch.export.export(module.eval(), args)
    torch.export.save(ep, str(path))
    return path


def convert(pt2, out, *extra):
    result = subprocess.run([TICO_RUN, str(pt2), "-o", str(out), *extra], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def sidecar(circle):
    return Path(circle).with_suffix(".incremental.json")


def replay(circle, sequences, *extra):
    result = subprocess.run([REPLAY, str(circle), "--sequences", str(sequences), *extra],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


def verify(circle):
    result = subprocess.run([TICO_CIRCLE, "verify", "--no-warnings", str(circle)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    d = tmp_path_factory.mktemp("clip")
    torch.manual_seed(0)
    model = TinyClip()
    args = (torch.randn(1, 3, 16, 16), torch.randint(0, VOCAB, (PROMPTS, TOKENS)),
            torch.ones(PROMPTS, TOKENS, dtype=torch.int64))
    pt2 = export(model, args, d / "clip.pt2")
    convert(pt2, d / "plain.circle")
    group = ["--incremental", "--incremental-group", "input_ids+attention_mask"]
    convert(pt2, d / "clip.circle", *group)
    convert(pt2, d / "again.circle", *group)
    convert(pt2, d / "fused.circle", *group, "--incremental-fused")
    # A second export of the same module (other example values): region ids must not change.
    torch.manual_seed(5)
    args2 = (torch.randn(1, 3, 16, 16), torch.randint(0, VOCAB, (PROMPTS, TOKENS)),
             torch.ones(PROMPTS, TOKENS, dtype=torch.int64))
    convert(export(model, args2, d / "reexport.pt2"), d / "reexport.circle", *group)
    return d


def test_clip_strategies_and_manifest(clip):
    verify(clip / "clip.circle")
    manifest = json.loads(sidecar(clip / "clip.circle").read_text())
    assert manifest["format"] == "incremental.manifest.v1"
    assert [g["name"] for g in manifest["groups"]] == ["pixel_values", "input_ids+attention_mask"]
    names = [s["name"] for s in manifest["strategies"]]
    assert names == ["monolithic", "changed_pixel_values", "changed_input_ids+attention_mask", "all_changed"]
    by_name = {s["name"]: s for s in manifest["strategies"]}
    # Text changed: the vision tower's embedding is retained and read, and vice versa.
    assert by_name["changed_input_ids+attention_mask"]["reads_retained"] != []
    assert by_name["changed_pixel_values"]["reads_retained"] != []
    for name in ("changed_pixel_values", "changed_input_ids+attention_mask"):
        assert 0 < by_name[name]["mac_ratio"] < 1
    kinds = sorted(c["kind"] for c in manifest["callables"])
    assert kinds == ["fusion_tail", "region", "region"]
    assert manifest["rejected"] == []
    assert manifest["validation"]["inputs"] == "seeded + example-inputs"
    print("CLIP strategies:", {s["name"]: round(s["mac_ratio"], 4) for s in manifest["strategies"]},
          "retained bytes:", manifest["budget"]["retained_bytes_used"])

    inspect = subprocess.run([TICO_CIRCLE, "inspect", str(clip / "clip.circle")], capture_output=True, text=True)
    assert inspect.returncode == 0, inspect.stderr
    assert "incremental manifest: groups pixel_values, input_ids+attention_mask; 3 callables" in inspect.stdout
    assert "signature 'main' -> subgraph 0" in inspect.stdout
    assert "strategy 'changed_pixel_values'" in inspect.stdout


def test_clip_g1_parity_over_1000_sequences(clip):
    stats = replay(clip / "clip.circle", 1000, "--int-bound", f"input_ids={VOCAB}", "--seed", "14")
    print("G1:", stats)
    assert stats["mismatches"] == 0
    assert stats["sequences"] == 1000
    # Every strategy was exercised.
    for name in ("monolithic", "changed_pixel_values", "changed_input_ids+attention_mask", "all_changed", "none"):
        assert stats["strategies"].get(name, 0) > 0, stats


def serve(circle, *extra, expect=0):
    result = subprocess.run([TICO_CIRCLE, "serve-incremental", str(circle), "--json", *extra],
                            capture_output=True, text=True)
    assert result.returncode == expect, result.stdout + result.stderr
    return json.loads(result.stdout) if expect == 0 else result


def test_clip_serve_incremental_90_10_trace(clip):
    """G8 through the runtime layer: 90 % text / 10 % image changes over 8 values each; every
    step bitwise equal to the monolith (--check); MAC-based selection, so the statistics are
    those of the seeded trace."""
    report = serve(clip / "clip.circle", "--trace", "input_ids:0.9,pixel_values:0.1", "--steps", "1000",
                   "--budget", "64MiB", "--check", "--mac-only", "--int-bound", f"input_ids={VOCAB}")
    print("G8:", report["cache"], {k: v["steps"] for k, v in report["strategies"].items()})
    assert report["check"] == {"steps": 1000, "mismatches": 0}
    cache = report["cache"]
    assert cache["full"] == 1 and cache["hits"] + cache["misses"] == 999
    assert cache["hit_rate"] >= 0.9
    # Room for everything: the 8 x 8 versions of the four retained values (1,536 bytes per pair
    # of versions at most), no evictions.
    assert cache["evictions"] == 0 and cache["peak_retained_bytes"] <= report["budget_bytes"]
    assert report["strategies"]["monolithic"]["steps"] == 1
    again = serve(clip / "clip.circle", "--trace", "input_ids:0.9,pixel_values:0.1", "--steps", "1000",
                  "--mac-only", "--int-bound", f"input_ids={VOCAB}")
    assert again["cache"] == cache


def test_clip_serve_incremental_budget_is_never_exceeded(clip):
    """G4 at run time: a 1 KiB budget holds fewer values than the trace revisits; LRU evicts,
    retained bytes stay within the budget and every step is still exact."""
    report = serve(clip / "clip.circle", "--trace", "input_ids:0.5,pixel_values:0.4,all:0.1", "--steps", "300",
                   "--budget", "1KiB", "--check", "--int-bound", f"input_ids={VOCAB}")
    cache = report["cache"]
    print("G4 (runtime):", cache)
    assert report["check"]["mismatches"] == 0
    assert cache["peak_retained_bytes"] <= 1024 and cache["retained_bytes"] <= 1024
    assert cache["evictions"] > 0
    # The refresh chain keeps what fits, so some partial changes still hit.
    assert cache["hits"] > 0
    # Every all-changed step ran the monolith.
    assert cache["full"] > 0 and report["strategies"]["monolithic"]["steps"] >= cache["full"]


def test_clip_serve_incremental_trace_file_and_errors(clip, tmp_path):
    trace = tmp_path / "trace.txt"
    trace.write_text("# image (a miss: refresh), text twice, nothing, the first image again, everything\n"
                     "pixel_values=1\ninput_ids=2\nattention_mask=3\n-\npixel_values=0\nall\n")
    report = serve(clip / "clip.circle", "--trace-file", str(trace), "--check", "--mac-only", "--budget", "none")
    assert report["steps"] == 7 and report["check"]["mismatches"] == 0
    assert report["budget_bytes"] is None
    steps = {k: v["steps"] for k, v in report["strategies"].items()}
    assert steps == {"monolithic": 2, "changed_input_ids+attention_mask": 2, "all_changed": 1, "unchanged": 1,
                     "changed_pixel_values": 1}, steps
    text = subprocess.run([TICO_CIRCLE, "serve-incremental", str(clip / "clip.circle"), "--steps", "20"],
                          capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    assert "cache: hit rate" in text.stdout and "dispatch overhead: median" in text.stdout
    bad = serve(clip / "plain.circle", expect=2)
    assert "has no incremental manifest" in bad.stderr
    bad = serve(clip / "clip.circle", "--trace", "text:1", expect=2)
    assert "'text' names no input group or input" in bad.stderr


def test_clip_fused_layout(clip):
    """Layout A: each strategy also as one subgraph; replayed through the fused signatures."""
    verify(clip / "fused.circle")
    manifest = json.loads(sidecar(clip / "fused.circle").read_text())
    fused = {s["name"]: s["fused"] for s in manifest["strategies"]}
    assert fused == {"monolithic": None, "changed_pixel_values": "fused_changed_pixel_values",
                     "changed_input_ids+attention_mask": "fused_changed_input_ids+attention_mask",
                     "all_changed": None}
    assert sorted(c["kind"] for c in manifest["callables"]).count("fused_strategy") == 2
    stats = replay(clip / "fused.circle", 1000, "--int-bound", f"input_ids={VOCAB}", "--seed", "15", "--fused")
    print("G1 (fused):", stats)
    assert stats["mismatches"] == 0
    assert stats["strategies"].get("changed_pixel_values (fused)", 0) > 0, stats
    # The runtime layer through the fused signatures.
    report = serve(clip / "fused.circle", "--fused", "--check", "--steps", "300", "--int-bound", f"input_ids={VOCAB}")
    assert report["check"]["mismatches"] == 0 and report["cache"]["hits"] > 0
    ratio = (clip / "fused.circle").stat().st_size / (clip / "plain.circle").stat().st_size
    print(f"G5 (fused): {ratio:.4f}")
    assert ratio <= 1.05


def test_clip_signature_unaware_onert_runs_main(clip, tmp_path):
    """onert (which compiles every subgraph at prepare) loads the multi-signature file and runs
    subgraph 0 with the plain conversion's outputs."""
    pytest.importorskip("onert")
    import sys

    import numpy as np
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
    from onert_child import run_onert_child

    rng = np.random.default_rng(0)
    feeds = [rng.standard_normal((1, 3, 16, 16)).astype(np.float32),
             rng.integers(0, VOCAB, (PROMPTS, TOKENS)).astype(np.int64), np.ones((PROMPTS, TOKENS), np.int64)]
    plain, proc, _ = run_onert_child(clip / "plain.circle", feeds, tmp_path / "plain")
    assert plain is not None, proc.stderr
    incremental, proc, phases = run_onert_child(clip / "clip.circle", feeds, tmp_path / "incremental")
    assert incremental is not None, (phases, proc.stderr)
    assert len(plain) == len(incremental) == 4
    for a, b in zip(plain, incremental):
        assert np.array_equal(a, b)


def test_clip_g5_file_size(clip):
    plain = (clip / "plain.circle").stat().st_size
    incremental = (clip / "clip.circle").stat().st_size
    print(f"G5: {incremental} / {plain} = {incremental / plain:.4f}")
    assert incremental <= 1.05 * plain


def test_clip_g7_deterministic(clip):
    assert (clip / "clip.circle").read_bytes() == (clip / "again.circle").read_bytes()
    assert sidecar(clip / "clip.circle").read_bytes() == sidecar(clip / "again.circle").read_bytes()


def test_clip_region_ids_stable_across_exports(clip):
    first = json.loads(sidecar(clip / "clip.circle").read_text())
    second = json.loads(sidecar(clip / "reexport.circle").read_text())
    assert [c["id"] for c in first["callables"]] == [c["id"] for c in second["callables"]]
    assert len({c["id"] for c in first["callables"]}) == 3


def test_clip_budget_below_every_frontier_gives_the_monolith(clip, tmp_path):
    convert(clip / "clip.pt2", tmp_path / "tight.circle", "--incremental", "--incremental-group",
            "input_ids+attention_mask", "--incremental-budget", "16")
    verify(tmp_path / "tight.circle")
    manifest = json.loads(sidecar(tmp_path / "tight.circle").read_text())
    assert [s["name"] for s in manifest["strategies"]] == ["monolithic"]
    assert manifest["callables"] == []
    assert all("over the budget of 16 bytes" in r["reason"] for r in manifest["rejected"]), manifest["rejected"]
    assert len(manifest["rejected"]) == 2


def test_clip_dynamic_prompt_count(tmp_path):
    """A dynamic number of prompts: the text embeddings have an unbounded size, so the strategy
    that would retain them (image changed) is refused with the reason; text changed still reads
    the static image embeddings. The example inputs (3 prompts) validate too."""
    torch.manual_seed(0)
    model = TinyClip().eval()
    args = (torch.randn(1, 3, 16, 16), torch.randint(0, VOCAB, (3, TOKENS)),
            torch.ones(3, TOKENS, dtype=torch.int64))
    prompts = torch.export.Dim("prompts", min=1, max=64)
    ep = torch.export.export(model, args, dynamic_shapes=(None, {0: prompts}, {0: prompts}))
    torch.export.save(ep, str(tmp_path / "dyn.pt2"))
    convert(tmp_path / "dyn.pt2", tmp_path / "dyn.circle", "--incremental", "--incremental-group",
            "input_ids+attention_mask")
    verify(tmp_path / "dyn.circle")
    manifest = json.loads(sidecar(tmp_path / "dyn.circle").read_text())
    assert [s["name"] for s in manifest["strategies"]] == ["monolithic", "changed_input_ids+attention_mask",
                                                           "all_changed"]
    assert manifest["inputs"][1]["shape"] == [-1, TOKENS]
    [rejected] = manifest["rejected"]
    assert rejected["changed"] == ["pixel_values"]
    assert "has a dynamic shape; its size is unbounded" in rejected["reason"]
    assert manifest["validation"]["inputs"] == "seeded + example-inputs"
    stats = replay(tmp_path / "dyn.circle", 200, "--int-bound", f"input_ids={VOCAB}", "--seed", "4")
    assert stats["mismatches"] == 0


def test_clip_budget_for_one_frontier(clip, tmp_path):
    """G4: with room for one frontier the planner keeps the strategy that avoids more work per
    byte, never exceeds the budget, and says why the other one went."""
    convert(clip / "clip.pt2", tmp_path / "one.circle", "--incremental", "--incremental-group",
            "input_ids+attention_mask", "--incremental-budget", "1KiB")
    verify(tmp_path / "one.circle")
    manifest = json.loads(sidecar(tmp_path / "one.circle").read_text())
    assert manifest["budget"]["retained_bytes"] == 1024
    assert manifest["budget"]["retained_bytes_used"] <= 1024
    assert sum(r["bytes"] for r in manifest["retained"]) == manifest["budget"]["retained_bytes_used"]
    assert [s["name"] for s in manifest["strategies"]] == ["monolithic", "changed_pixel_values", "all_changed"]
    [rejected] = manifest["rejected"]
    assert rejected["changed"] == ["input_ids+attention_mask"]
    assert "would exceed the budget of 1024 bytes" in rejected["reason"]
    stats = replay(tmp_path / "one.circle", 200, "--int-bound", f"input_ids={VOCAB}", "--seed", "6")
    assert stats["mismatches"] == 0


def test_three_inputs(tmp_path):
    torch.manual_seed(1)
    pt2 = export(ThreeInputs(), tuple(torch.randn(2, 32) for _ in range(3)), tmp_path / "three.pt2")
    convert(pt2, tmp_path / "three.circle", "--incremental")
    verify(tmp_path / "three.circle")
    manifest = json.loads(sidecar(tmp_path / "three.circle").read_text())
    names = [s["name"] for s in manifest["strategies"]]
    assert names[0] == "monolithic" and names[-1] == "all_changed"
    # All 2^3 - 2 proper change sets dirty different operators: six strategies over five
    # callables (three towers, the a+b tail, the a+b+c tail).
    assert names[1:-1] == ["changed_a", "changed_b", "changed_a__b", "changed_c", "changed_a__c", "changed_b__c"]
    assert [c["signature"] for c in manifest["callables"]] == ["region_a", "region_b", "region_c", "tail_a__b",
                                                               "tail_a__b__c"]
    assert manifest["strategies"][4]["steps"] == ["region_c", "tail_a__b__c"]
    stats = replay(tmp_path / "three.circle", 300, "--seed", "3")
    print("three inputs:", names, stats)
    assert stats["mismatches"] == 0


def inspect_subgraphs(circle):
    """tico-circle inspect --json's subgraphs, with their tensors and operators."""
    result = subprocess.run([TICO_CIRCLE, "inspect", "--json", "--tensors", "--operators", str(circle)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["subgraphs"]


def assert_one_contract_per_retained_tensor(manifest):
    """What a region writes is what the tail reads: dtype and parameters (G9's identical
    qparams across callables)."""
    produced = {o["name"]: o for c in manifest["callables"] for o in c["outputs"] if o.get("retained")}
    assert produced
    for c in manifest["callables"]:
        for i in c["inputs"]:
            if i["name"] in produced:
                assert i["dtype"] == produced[i["name"]]["dtype"] and i["qparams"] == produced[i["name"]]["qparams"], i


def assert_g4_g5(pt2, tmp_path, quant, group, circle, g5=True):
    """G5: the file at most 1.05 x the same quantized conversion without strategies; G4: a
    budget below every frontier gives the monolith alone. Returns the size ratio."""
    convert(pt2, tmp_path / "plain.circle", *quant)
    size, plain = circle.stat().st_size, (tmp_path / "plain.circle").stat().st_size
    assert not g5 or size <= 1.05 * plain, (size, plain)
    convert(pt2, tmp_path / "tight.circle", *quant, *group, "--incremental-budget", "16")
    tight = json.loads(sidecar(tmp_path / "tight.circle").read_text())
    assert [s["name"] for s in tight["strategies"]] == ["monolithic"], tight["strategies"]
    return size / plain


@pytest.mark.parametrize("activations", ["uint8", "int16"])
def test_three_inputs_quantized_g9(tmp_path, activations):
    """G9 on a model ptq quantizes whole: uint8 activations / uint8 weights, and int16
    activations / int8 weights (random calibration). Every operator computes on codes (the
    only float ops are the QUANTIZE of the inputs and the DEQUANTIZE of the outputs), the four
    tower outputs cross the frontier as codes with one contract (dtype and parameters) on
    both sides, 1,000 seeded change sequences are integer-identical to the monolith (G1),
    a budget below every frontier gives the monolith (G4)."""
    torch.manual_seed(1)
    pt2 = export(ThreeInputs(), tuple(torch.randn(2, 32) for _ in range(3)), tmp_path / "three.pt2")
    quant = quant_args(tmp_path, activations)
    convert(pt2, tmp_path / "q.circle", *quant, "--incremental")
    verify(tmp_path / "q.circle")
    manifest = json.loads(sidecar(tmp_path / "q.circle").read_text())
    assert len(manifest["strategies"]) == 8
    main = inspect_subgraphs(tmp_path / "q.circle")[0]
    tensors = main["tensors"]
    float_ops = [o["op"] for o in main["operators"]
                 if o["op"] not in ("QUANTIZE", "DEQUANTIZE") and any(tensors[i]["type"] == "FLOAT32" for i in o["outputs"])]
    assert float_ops == [], float_ops
    # The towers' outputs cross the frontier as codes; the public output ab is dequantized.
    quantized = [r for r in manifest["retained"] if r["dtype"] == activations.upper()]
    assert len(quantized) == 4 and all(r["qparams"]["scale"] for r in quantized), manifest["retained"]
    assert_one_contract_per_retained_tensor(manifest)
    stats = replay(tmp_path / "q.circle", 1000, "--seed", "9")
    assert stats["mismatches"] == 0 and stats["sequences"] == 1000, stats
    # G5 is set on the CLIP fixture: here the weights are 14 KiB, and the five callables'
    # operator tables alone are a third of that (about 1.4 x).
    ratio = assert_g4_g5(pt2, tmp_path, quant, ["--incremental"], tmp_path / "q.circle", g5=False)
    print(f"G9 three inputs {activations}:", stats, f"file {ratio:.3f} x")


def quant_args(workdir, activations, islands="avoid"):
    """tico-run arguments for ptq with random calibration: the uint8 recipe (activations uint8)
    or its int16-activation / int8-weight variant. islands "keep" quantizes the activations next
    to ops without an integer kernel too (ptq's float_islands: keep); those ops then run in float
    between DEQUANTIZE and QUANTIZE, which the default pipeline's strict check-missing-qparams
    refuses, so a copy of it with strict: false goes with them."""
    source = Path(os.environ.get("TICO_SOURCE_DIR", Path(__file__).resolve().parents[2]))
    text = (source / "configs/quant/cnn-uint8.yaml").read_text()
    assert "activations: uint8\n" in text and "weights: uint8\n" in text
    text = text.replace("activations: uint8\n", f"activations: {activations}\n")
    text = text.replace("weights: uint8\n", "weights: int8\n" if activations == "int16" else "weights: uint8\n")
    if islands != "avoid":
        text = text.replace("          estimator: minmax\n", f"          estimator: minmax\n          float_islands: {islands}\n")
    recipe = Path(workdir) / f"ptq-{activations}-{islands}.yaml"
    recipe.write_text(text)
    args = ["--quant", str(recipe), "--calibration", "random", "--no-progress"]
    if islands != "avoid":
        pipeline = (source / "configs/pipelines/default.yaml").read_text()
        check = "      - check-missing-qparams "
        assert pipeline.count(check) == 1
        lenient = Path(workdir) / "default-lenient.yaml"
        lenient.write_text(pipeline.replace(check, "      - {name: check-missing-qparams, options: {strict: false}} "))
        args += ["--pipeline", str(lenient)]
    return args


@pytest.mark.parametrize("activations,islands", [("uint8", "avoid"), ("int16", "avoid"),
                                                 ("uint8", "keep"), ("int16", "keep")])
def test_clip_quantized_g9(clip, tmp_path, activations, islands):
    """G9: the CLIP fixture through ptq (random calibration, the uint8 recipe and an
    int16-activation / int8-weight one). With float_islands avoid (ptq's default) this
    fixture's activations stay float (every layer touches a layer norm, quick GELU's constant
    multiplier or the normalised embeddings, which have no integer kernel): the weight-quantized
    CLIP. With keep the towers compute on codes (every convolution, linear, softmax, sigmoid,
    residual add and layer-norm mean), and the ops without an integer kernel run in float
    between DEQUANTIZE and QUANTIZE. The towers end in such ops (the L2 normalisation: SUM,
    SQRT, DIV), so the retained embeddings stay float32 either way; G9 with codes across the
    frontier is test_three_inputs_quantized_g9. Checked:
    quantized weights in both towers, G1 strategies bitwise (integer-identical) equal to the
    monolith over 1,000 seeded sequences, one contract per retained tensor on both sides of the
    frontier (dtype and parameters), G4 a budget below every frontier gives the monolith alone,
    G5 the file at most 1.05 x the quantized monolith's (1.13 x before the writer shared
    quantization tables and names between subgraphs)."""
    quant = quant_args(tmp_path, activations, islands)
    group = ["--incremental", "--incremental-group", "input_ids+attention_mask"]
    convert(clip / "clip.pt2", tmp_path / "q.circle", *quant, *group)
    verify(tmp_path / "q.circle")
    manifest = json.loads(sidecar(tmp_path / "q.circle").read_text())
    names = [s["name"] for s in manifest["strategies"]]
    assert names == ["monolithic", "changed_pixel_values", "changed_input_ids+attention_mask", "all_changed"], names
    weight_type = "INT8" if activations == "int16" else "UINT8"
    subgraphs = inspect_subgraphs(tmp_path / "q.circle")
    for index, sg in enumerate(subgraphs):
        if sg["name"].startswith("region_") or index == 0:
            codes = [t for t in sg["tensors"] if t.get("quantization") and t["type"] == weight_type]
            assert len(codes) >= 8, f"subgraph {sg['name']}: {len(codes)} quantized weights"
    main = subgraphs[0]
    on_codes = {"CONV_2D", "FULLY_CONNECTED", "SOFTMAX", "LOGISTIC"}
    outputs = [main["tensors"][o["outputs"][0]]["type"] for o in main["operators"] if o["op"] in on_codes]
    assert len(outputs) == 27, outputs  # 1 convolution, 18 linears, 4 softmax, 4 sigmoid
    assert set(outputs) == ({activations.upper()} if islands == "keep" else {"FLOAT32"}), outputs
    assert {r["dtype"] for r in manifest["retained"]} == {"FLOAT32"}, manifest["retained"]
    assert_one_contract_per_retained_tensor(manifest)
    stats = replay(tmp_path / "q.circle", 1000, "--int-bound", f"input_ids={VOCAB}", "--seed", "21")
    assert stats["mismatches"] == 0 and stats["sequences"] == 1000, stats
    ratio = assert_g4_g5(clip / "clip.pt2", tmp_path, quant, group, tmp_path / "q.circle")
    print(f"G9 CLIP {activations} {islands}:", stats, "retained:",
          [(r["name"], r["dtype"]) for r in manifest["retained"]], f"file {ratio:.3f} x")


def test_mutated_buffer_is_rejected_with_its_reason(tmp_path):
    torch.manual_seed(2)
    pt2 = export(CountsCalls(), (torch.randn(1, 16), torch.randn(1, 16)), tmp_path / "mut.pt2")
    convert(pt2, tmp_path / "mut.circle", "--incremental")
    verify(tmp_path / "mut.circle")
    manifest = json.loads(sidecar(tmp_path / "mut.circle").read_text())
    assert [s["name"] for s in manifest["strategies"]] == ["monolithic"]
    assert len(manifest["rejected"]) == 2
    for r in manifest["rejected"]:
        assert "mutates 'calls'" in r["reason"], r
        assert "buffer or input mutation" in r["reason"], r


def with_example_inputs_pickle(pt2, out, pickle):
    """A copy of `pt2` whose example inputs (data/sample_inputs/model.pt, a torch.save archive)
    hold `pickle` as their data.pkl."""
    import io
    import zipfile
    saved = io.BytesIO()
    with zipfile.ZipFile(saved, "w", zipfile.ZIP_STORED) as z:
        z.writestr("archive/data.pkl", pickle)
    with zipfile.ZipFile(pt2) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("data/sample_inputs/model.pt"):
                data = saved.getvalue()
            dst.writestr(info.filename, data)
    return out


def test_hostile_example_inputs_are_skipped_not_fatal(clip, tmp_path):
    """Issue 31: a 12-byte self-referencing pickle as the example inputs segfaulted `tico-run
    --incremental`, which reads them to validate. The reader refuses it; the validation says so
    and runs on seeded inputs alone (tests/quant/test_calibration_sources.py checks that
    `--calibration example-inputs` is a clear error)."""
    # a = []; a.append(a); and (((None,),),...) 10,000 levels deep.
    for name, pickle in (("cycle", b"\x80\x02]q\x00h\x00a."),
                         ("deep", b"\x80\x02N" + b"\x85" * 10000 + b".")):
        pt2 = with_example_inputs_pickle(clip / "clip.pt2", tmp_path / f"{name}.pt2", pickle)
        out = tmp_path / f"{name}.circle"
        convert(pt2, out, "--incremental", "--incremental-group", "input_ids+attention_mask")
        manifest = json.loads(sidecar(out).read_text())
        why = {"cycle": "holds itself", "deep": "nested more than 64 levels deep"}[name]
        assert manifest["validation"]["inputs"].startswith("seeded (example inputs not used:"), manifest["validation"]
        assert why in manifest["validation"]["inputs"]


def test_forged_manifest_types_are_errors_not_internal_errors(clip, tmp_path):
    """Issue 31: forged manifests made the tools exit 3 with a raw json.exception. A field of
    the wrong type (an est_macs given as a string, same length so the file stays valid) is an
    error that says so: inspect reports it, serve-incremental refuses. (verify does not check
    est_macs yet: validating the manifest against the model is still open in issue 31.)"""
    import re
    data = (clip / "clip.circle").read_bytes()
    found = re.search(rb'"est_macs":(\s*)(\d{3,})', data)
    assert found, "no est_macs in the manifest"
    digits = found.group(2)
    forged = data[:found.start(2)] + b'"' + digits[:-2] + b'"' + data[found.end(2):]
    assert len(forged) == len(data)
    path = tmp_path / "forged.circle"
    path.write_bytes(forged)
    inspect = subprocess.run([TICO_CIRCLE, "inspect", str(path)], capture_output=True, text=True)
    assert inspect.returncode == 0, inspect.stderr
    assert "is malformed (a field is missing or has the wrong type)" in inspect.stdout
    serve = subprocess.run([TICO_CIRCLE, "serve-incremental", str(path), "--steps", "2"], capture_output=True,
                           text=True)
    assert serve.returncode not in (0, 3), serve.stderr
    assert "internal error" not in serve.stderr and "incremental manifest" in serve.stderr, serve.stderr
