"""The gptq quantizer end to end (issue 13): a seeded two-layer MLP exported with torch.export,
calibrated from a folder of .npy batches by `tico-run --quant`, converted to Circle.

- The first layer sees exactly the calibration inputs, so its GPTQ weights must match the
  original converter's GPTQ class run on the same nn.Linear and batches (>= 99.9 % identical
  dequantized weights; the rest are fp32 round-off ties), which checks the plugin's Hessian,
  weight extraction and conversion, not only the solver.
- Every layer's GPTQ error on its calibration inputs is at most 0.8 of round-to-nearest's
  (the issue's target; the encodings export carries the per-layer figures).
- On held-out inputs the Circle file runs on the built-in runtime closer to the float model
  than round-to-nearest on the same 4-bit per-channel grid (ptq, weight-only), and a too-small
  memory budget still converts to the byte-identical file through the offload path.

Environment: TICO_RUN, TICO_CIRCLE, TICO_SOURCE_DIR (tests/quant/CMakeLists.txt).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from measure import read_circle, sqnr_db

gptq_module = pytest.importorskip("tico.quantization.algorithm.gptq.gptq")

IN, HIDDEN, OUT = 96, 160, 48
BATCHES = 8


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(IN, HIDDEN)
        self.fc2 = torch.nn.Linear(HIDDEN, OUT)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


# Correlated features: GPTQ's error feedback only pays off when H is not diagonal. One mixing for
# calibration and held-out data alike: the same distribution, other samples.
MIXING = torch.randn(IN, IN, generator=torch.Generator().manual_seed(1234)) / IN**0.5


def _batches(seed: int, count: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(64, IN, generator=generator) @ MIXING for _ in range(count)]


RTN_RECIPE = """schema: tico.pipeline/v1
stages:
  - name: rtn
    kind: quantize
    passes:
      - name: ptq
        options: {activations: none, weights: uint4, granularity: per-channel}
"""

RECIPE = """schema: tico.pipeline/v1
stages:
  - name: gptq-only
    kind: quantize
    passes:
      - name: gptq
        options: {bits: 4, act_order: true, quantize_lm_head: true}
"""


@pytest.fixture(scope="module")
def converted(tmp_path_factory, tico_run) -> dict:
    work = tmp_path_factory.mktemp("gptq")
    torch.manual_seed(0)
    model = Mlp().eval()
    calibration = _batches(1, BATCHES)
    pt2 = work / "mlp.pt2"
    torch.export.save(torch.export.export(model, (calibration[0],)), pt2)
    data = work / "calib"
    for b, x in enumerate(calibration):
        (data / f"batch_{b}").mkdir(parents=True)
        np.save(data / f"batch_{b}" / "0.npy", x.numpy())
    recipe = work / "gptq.yaml"
    recipe.write_text(RECIPE)
    circle, encodings = work / "mlp.circle", work / "mlp.json"
    base = [str(tico_run), "--quant", str(recipe), "--calibration", str(data), "--no-progress", str(pt2)]
    subprocess.run(base + ["-o", str(circle), "--encodings", str(encodings)], check=True, capture_output=True, text=True)
    return {"work": work, "model": model, "calibration": calibration, "base": base, "circle": circle,
            "encodings": json.loads(encodings.read_text())}


def _dequantized_weight(circle: Path, rows: int, columns: int) -> np.ndarray:
    model = read_circle(circle)
    found = [t for t in model.tensors if t.is_constant and t.quant is not None and t.shape == (rows, columns)]
    assert len(found) == 1, [t.describe() for t in model.tensors]
    t = found[0]
    assert t.type in ("UINT4", "UINT8"), t.describe()
    assert len(t.quant.scale) == rows and t.quant.dimension == 0, t.describe()
    raw = np.frombuffer(t.data, dtype=np.uint8)
    if t.type == "UINT4":  # two per byte, low nibble first
        codes = np.stack([raw & 0x0F, raw >> 4], axis=1).reshape(-1)[: rows * columns]
    else:
        codes = raw
    codes = codes.reshape(rows, columns).astype(np.float32)
    return (codes - t.quant.zero_point[:, None].astype(np.float32)) * t.quant.scale[:, None]


def test_first_layer_matches_the_original(converted) -> None:
    layer = torch.nn.Linear(IN, HIDDEN)
    layer.load_state_dict(converted["model"].fc1.state_dict())
    original = gptq_module.GPTQ(layer)
    original.quantizer.configure(4, perchannel=True, sym=False, mse=None)
    with torch.no_grad():
        for x in converted["calibration"]:
            original.add_batch(x, None)
        original.fasterquant(blocksize=128, percdamp=0.01, groupsize=-1, actorder=True, static_groups=False)
    expected = layer.weight.detach().numpy()
    ours = _dequantized_weight(converted["circle"], HIDDEN, IN)
    scale = np.abs(expected).max()
    same = np.isclose(ours, expected, rtol=0, atol=1e-6 * scale)
    print(f"fc1: {same.mean() * 100:.3f} % identical, max |dw| {np.abs(ours - expected).max():.3g}")
    assert same.mean() >= 0.999


def test_every_layer_beats_round_to_nearest(converted) -> None:
    ratios = {m["subject"]: m["value"] for m in converted["encodings"]["metrics"] if m["metric"] == "error_ratio"}
    print("GPTQ / RTN layer error:", {k: round(v, 3) for k, v in ratios.items()})
    assert len(ratios) == 2, converted["encodings"]["metrics"]
    assert all(0.0 < r <= 0.8 for r in ratios.values()), ratios


def _run(tico_circle, circle: Path, x: np.ndarray, directory: Path) -> np.ndarray:
    directory.mkdir()
    np.save(directory / "x.npy", x)
    subprocess.run([str(tico_circle), "run", str(circle), "--input", str(directory / "x.npy"),
                    "--output-dir", str(directory)], check=True, capture_output=True, text=True)
    return np.load(directory / "out0.npy")


def test_runs_closer_to_float_than_round_to_nearest(converted, tico_circle, tmp_path) -> None:
    recipe = tmp_path / "rtn.yaml"
    recipe.write_text(RTN_RECIPE)
    rtn = tmp_path / "rtn.circle"
    base = converted["base"]
    subprocess.run([base[0], "--quant", str(recipe)] + base[3:] + ["-o", str(rtn)], check=True, capture_output=True,
                   text=True)
    held_out = _batches(7, 3)  # another seed than the calibration batches
    with torch.no_grad():
        expected = [converted["model"](x).numpy() for x in held_out]
    gptq = sqnr_db(expected, [_run(tico_circle, converted["circle"], x.numpy(), tmp_path / f"gptq{i}")
                              for i, x in enumerate(held_out)])
    plain = sqnr_db(expected, [_run(tico_circle, rtn, x.numpy(), tmp_path / f"rtn{i}") for i, x in enumerate(held_out)])
    print(f"weight-only W4 MLP vs float on held-out inputs: GPTQ {gptq:.1f} dB, RTN {plain:.1f} dB")
    assert gptq > plain + 1.0


def test_memory_budget_offloads_and_gives_the_same_file(converted, tico_run) -> None:
    out = converted["work"] / "budget.circle"
    run = subprocess.run(converted["base"] + ["-o", str(out), "--memory-budget", "100KiB", "-v"],
                         check=True, capture_output=True, text=True)
    assert "offloaded 0 tensors" not in run.stderr, run.stderr
    assert out.read_bytes() == converted["circle"].read_bytes()
    tiny = subprocess.run(converted["base"] + ["-o", str(converted["work"] / "tiny.circle"), "--memory-budget", "1KiB"],
                          capture_output=True, text=True)
    assert tiny.returncode == 1 and "raise calibration.memory_budget" in tiny.stderr, tiny.stderr
    assert not (converted["work"] / "tiny.circle").exists()
