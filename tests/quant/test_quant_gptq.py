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


def _original_first_layer(converted, blocksize: int, groupsize: int, actorder: bool) -> np.ndarray:
    """fc1's weights after the original's GPTQ class on the same layer and calibration batches."""
    layer = torch.nn.Linear(IN, HIDDEN)
    layer.load_state_dict(converted["model"].fc1.state_dict())
    original = gptq_module.GPTQ(layer)
    original.quantizer.configure(4, perchannel=True, sym=False, mse=None)
    with torch.no_grad():
        for x in converted["calibration"]:
            original.add_batch(x, None)
        original.fasterquant(blocksize=blocksize, percdamp=0.01, groupsize=groupsize, actorder=actorder,
                             static_groups=False)
    return layer.weight.detach().numpy()


def test_first_layer_matches_the_original(converted) -> None:
    expected = _original_first_layer(converted, blocksize=128, groupsize=-1, actorder=True)
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


GROUP = 32
GROUP_RECIPE = f"""schema: tico.pipeline/v1
stages:
  - name: gptq-groups
    kind: quantize
    passes:
      - name: gptq
        options: {{bits: 4, act_order: false, group_size: {GROUP}, block_size: {GROUP}, quantize_lm_head: true}}
"""


def _grouped_weight(circle: Path, rows: int, columns: int) -> np.ndarray:
    """The [rows, columns] weight written as 4-bit codes (scale 1) plus per-group scales and zero points."""
    model = read_circle(circle)
    groups = columns // GROUP

    def constant(name_end: str, shape: tuple) -> object:
        found = [t for t in model.tensors if t.is_constant and t.name.endswith(name_end) and t.shape == shape]
        assert len(found) == 1, (name_end, shape, [t.describe() for t in model.tensors])
        return found[0]

    codes_tensor = constant("_codes", (rows, columns))
    assert codes_tensor.type == "UINT4" and list(codes_tensor.quant.scale) == [1.0], codes_tensor.describe()
    raw = np.frombuffer(codes_tensor.data, dtype=np.uint8)
    codes = np.stack([raw & 0x0F, raw >> 4], axis=1).reshape(-1)[: rows * columns].reshape(rows, groups, GROUP)
    scales = np.frombuffer(constant("_group_scales", (rows, groups, 1)).data, dtype=np.float32).reshape(rows, groups, 1)
    zeros = np.frombuffer(constant("_group_zero_points", (rows, groups, 1)).data, dtype=np.float32).reshape(rows, groups, 1)
    return ((codes.astype(np.float32) - zeros) * scales).reshape(rows, columns)


def test_groups_match_the_original_and_run(converted, tico_run, tico_circle, tmp_path) -> None:
    """group_size: one grid per output channel and group of 32 input columns, written as 4-bit
    codes and group tables; the first layer equals the original's GPTQ with the same groups, and
    the file runs on the built-in runtime exactly like PyTorch with those weights."""
    recipe = tmp_path / "groups.yaml"
    recipe.write_text(GROUP_RECIPE)
    circle = tmp_path / "groups.circle"
    base = converted["base"]
    encodings = tmp_path / "groups.json"
    subprocess.run([base[0], "--quant", str(recipe)] + base[3:] + ["-o", str(circle), "--encodings", str(encodings)],
                   check=True, capture_output=True, text=True)
    grouped = [e for e in json.loads(encodings.read_text())["tensors"] if e.get("granularity") == "per-block"]
    assert sorted((len(e["scale"]), e["block_size"], e["axis"]) for e in grouped) == \
        sorted([(HIDDEN * IN // GROUP, GROUP, 1), (OUT * HIDDEN // GROUP, GROUP, 1)]), grouped

    expected = _original_first_layer(converted, blocksize=GROUP, groupsize=GROUP, actorder=False)
    ours = _grouped_weight(circle, HIDDEN, IN)
    same = np.isclose(ours, expected, rtol=0, atol=1e-6 * np.abs(expected).max())
    print(f"fc1 with groups of {GROUP}: {same.mean() * 100:.3f} % identical to the original, "
          f"max |dw| {np.abs(ours - expected).max():.3g}")
    assert same.mean() >= 0.999

    # The file computes what PyTorch computes with the dequantized weights of both layers.
    model = Mlp().eval()
    model.load_state_dict(converted["model"].state_dict())
    with torch.no_grad():
        model.fc1.weight.copy_(torch.from_numpy(ours))
        model.fc2.weight.copy_(torch.from_numpy(_grouped_weight(circle, OUT, HIDDEN)))
        x = _batches(11, 1)[0]
        reference = model(x).numpy()
    got = _run(tico_circle, circle, x.numpy(), tmp_path / "run")
    np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-5)
    # 4-bit codes plus one scale and zero point per 32 weights, not float32 weights.
    assert circle.stat().st_size < 0.4 * 4 * (IN * HIDDEN + HIDDEN * OUT)


def test_groups_with_act_order_need_static_groups(converted, tmp_path) -> None:
    recipe = tmp_path / "bad.yaml"
    recipe.write_text(GROUP_RECIPE.replace("act_order: false", "act_order: true"))
    base = converted["base"]
    run = subprocess.run([base[0], "--quant", str(recipe)] + base[3:] + ["-o", str(tmp_path / "bad.circle")],
                         capture_output=True, text=True)
    assert run.returncode != 0 and "needs static_groups: true" in run.stderr, run.stderr
    assert not (tmp_path / "bad.circle").exists()
