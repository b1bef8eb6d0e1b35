"""Accuracy-preserving quantizers end to end (issue 28), each through `tico-run --quant` on a
seeded model exported with torch.export and calibrated from a folder of .npy batches:

- **adaround**: on an MLP with correlated inputs, 4-bit weights. Every code is the floor or the
  ceiling of the weight on round-to-nearest's own grid (same scales and zero points), a layer
  keeps its learned rounding only when its held-out error beats round-to-nearest's, the file runs
  on the built-in runtime as its simulation (PyTorch with the file's dequantized weights), and on
  held-out inputs it is closer to the float model than round-to-nearest.
- **gptq `scale_search: smse`**: the weighted range search converts, its grids are no wider than
  min/max's, and it stays below round-to-nearest's error.
- **smoothquant**: on an RMSNorm -> q/k block whose norm scale makes outlier channels. Smoothing alone leaves the
  function unchanged (eager within 1e-5), and before W8A8 (uint8 activations quantized around the
  float norm, `float_islands: keep`) it brings the output closer to the float model than plain
  W8A8.
- **cle** and **ptq's bias correction**: on a MobileNet-style block with uneven channels and
  random batch-norm statistics. CLE folds each batch norm into its convolution and balances the
  conv -> depthwise -> pointwise pairs without changing the float function (a relu6 made a relu
  only when asked, and then the file equals eager with relu); before per-tensor W8A8 it beats
  plain W8A8; bias correction on 4-bit weights beats round-to-nearest without it.
- **rotate**: on an attention + MLP block with outlier weight columns. The per-head value/output
  rotation and the online Hadamard before the down projection keep the float function; with 4-bit
  weights (round-to-nearest; GPTQ with the online rotation) the file runs as its simulation (the
  block with the file's rotated weights and the Hadamard on the down projection's input) and is
  closer to the float model than without rotation.

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

SOURCE = Path(os.environ.get("TICO_SOURCE_DIR", Path(__file__).resolve().parents[2]))
IN, HIDDEN, OUT = 96, 128, 32


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(IN, HIDDEN)
        self.fc2 = torch.nn.Linear(HIDDEN, OUT)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


MIXING = torch.randn(IN, IN, generator=torch.Generator().manual_seed(4321)) / IN**0.5


def _mlp_batches(seed: int, count: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(64, IN, generator=generator) @ MIXING for _ in range(count)]


def _export(model: torch.nn.Module, example: torch.Tensor, calibration: list[torch.Tensor], work: Path) -> tuple:
    pt2 = work / "model.pt2"
    torch.export.save(torch.export.export(model, (example,)), pt2)
    data = work / "calib"
    for b, x in enumerate(calibration):
        (data / f"batch_{b}").mkdir(parents=True)
        np.save(data / f"batch_{b}" / "0.npy", x.numpy())
    return pt2, data


def _convert(tico_run, pt2: Path, data: Path | None, recipe_text: str, out: Path, extra: list[str] = ()) -> dict:
    recipe = out.with_suffix(".yaml")
    recipe.write_text(recipe_text)
    encodings = out.with_suffix(".json")
    cmd = [str(tico_run), "--quant", str(recipe), "--no-progress", str(pt2), "-o", str(out), "--encodings",
           str(encodings), *extra]
    if data is not None:
        cmd += ["--calibration", str(data)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return json.loads(encodings.read_text())


def _run(tico_circle, circle: Path, x: np.ndarray, directory: Path) -> np.ndarray:
    directory.mkdir()
    np.save(directory / "x.npy", x)
    subprocess.run([str(tico_circle), "run", str(circle), "--input", str(directory / "x.npy"), "--output-dir",
                    str(directory)], check=True, capture_output=True, text=True)
    return np.load(directory / "out0.npy")


def _per_channel_weight(circle: Path, rows: int, columns: int) -> tuple[np.ndarray, object]:
    """The dequantized [rows, columns] per-channel 4/8-bit weight of the file, and its tensor."""
    model = read_circle(circle)
    found = [t for t in model.tensors if t.is_constant and t.quant is not None and t.shape == (rows, columns)]
    assert len(found) == 1, [t.describe() for t in model.tensors]
    t = found[0]
    raw = np.frombuffer(t.data, dtype=np.uint8)
    codes = np.stack([raw & 0x0F, raw >> 4], axis=1).reshape(-1)[: rows * columns] if t.type == "UINT4" else raw
    codes = codes.reshape(rows, columns).astype(np.float32)
    return (codes - t.quant.zero_point[:, None].astype(np.float32)) * t.quant.scale[:, None], t


def _metrics(encodings: dict, name: str) -> dict:
    return {m["subject"]: m["value"] for m in encodings["metrics"] if m["metric"] == name}


ADAROUND = """schema: tico.pipeline/v1
stages:
  - name: adaround
    kind: quantize
    passes:
      - name: adaround
        options: {bits: 4, iterations: 1500, holdout_every: 4, quantize_lm_head: true}
"""
RTN = """schema: tico.pipeline/v1
stages:
  - name: rtn
    kind: quantize
    passes:
      - name: ptq
        options: {activations: none, weights: uint4, granularity: per-channel}
"""


@pytest.fixture(scope="module")
def mlp(tmp_path_factory, tico_run) -> dict:
    work = tmp_path_factory.mktemp("algorithms")
    torch.manual_seed(0)
    model = Mlp().eval()
    calibration = _mlp_batches(1, 8)
    pt2, data = _export(model, calibration[0], calibration, work)
    return {"work": work, "model": model, "pt2": pt2, "data": data,
            "rtn": work / "rtn.circle", "rtn_encodings": _convert(tico_run, pt2, None, RTN, work / "rtn.circle")}


def test_adaround_rounds_each_weight_down_or_up_on_the_nearest_grid(mlp, tico_run, tico_circle, tmp_path) -> None:
    circle = tmp_path / "adaround.circle"
    encodings = _convert(tico_run, mlp["pt2"], mlp["data"], ADAROUND, circle)
    accepted = _metrics(encodings, "adaround_accepted")
    learned, nearest = _metrics(encodings, "adaround_holdout_error"), _metrics(encodings, "rtn_holdout_error")
    flipped = _metrics(encodings, "adaround_flipped")
    print("AdaRound held-out error / round-to-nearest's:",
          {k: round(learned[k] / nearest[k], 3) for k in learned}, "accepted:", accepted, "flipped:", flipped)
    assert len(accepted) == 2
    for layer, keep in accepted.items():
        assert (learned[layer] < nearest[layer]) == bool(keep), (layer, learned[layer], nearest[layer])
    assert all(accepted.values()), "correlated inputs: learned rounding should win on both layers"

    # Floor or ceiling on round-to-nearest's grid.
    for module, rows, columns in ((mlp["model"].fc1, HIDDEN, IN), (mlp["model"].fc2, OUT, HIDDEN)):
        ours, tensor = _per_channel_weight(circle, rows, columns)
        rtn, rtn_tensor = _per_channel_weight(mlp["rtn"], rows, columns)
        np.testing.assert_array_equal(tensor.quant.scale, rtn_tensor.quant.scale)
        np.testing.assert_array_equal(tensor.quant.zero_point, rtn_tensor.quant.zero_point)
        w = module.weight.detach().numpy()
        step = tensor.quant.scale[:, None]
        assert np.all(np.abs(ours - w) <= step * (1 + 1e-5)), "a code beyond the floor or ceiling"
        assert (ours != rtn).any()

    # The file runs as its simulation and beats round-to-nearest on held-out inputs.
    fc1_w, _ = _per_channel_weight(circle, HIDDEN, IN)
    fc2_w, _ = _per_channel_weight(circle, OUT, HIDDEN)
    held_out = _mlp_batches(7, 3)
    with torch.no_grad():
        expected = [mlp["model"](x).numpy() for x in held_out]
        simulated = [(torch.relu(x @ torch.from_numpy(fc1_w).T + mlp["model"].fc1.bias) @ torch.from_numpy(fc2_w).T
                      + mlp["model"].fc2.bias).numpy() for x in held_out]
    ours = [_run(tico_circle, circle, x.numpy(), tmp_path / f"a{i}") for i, x in enumerate(held_out)]
    for got, want in zip(ours, simulated):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    plain = [_run(tico_circle, mlp["rtn"], x.numpy(), tmp_path / f"r{i}") for i, x in enumerate(held_out)]
    ada_db, rtn_db = sqnr_db(expected, ours), sqnr_db(expected, plain)
    print(f"weight-only W4 MLP vs float on held-out inputs: AdaRound {ada_db:.2f} dB, round-to-nearest {rtn_db:.2f} dB")
    assert ada_db > rtn_db + 0.5


def test_adaround_rolls_back_a_layer_that_does_not_gain(mlp, tico_run, tmp_path) -> None:
    """Without iterations the learned rounding is round-to-nearest itself: never strictly better on
    the held-out batches, so every layer is rolled back and the file's weights are round-to-nearest's."""
    circle = tmp_path / "zero.circle"
    encodings = _convert(tico_run, mlp["pt2"], mlp["data"], ADAROUND.replace("iterations: 1500", "iterations: 0"), circle)
    assert set(_metrics(encodings, "adaround_accepted").values()) == {0.0}
    ours, _ = _per_channel_weight(circle, HIDDEN, IN)
    rtn, _ = _per_channel_weight(mlp["rtn"], HIDDEN, IN)
    np.testing.assert_array_equal(ours, rtn)


def test_gptq_smse_search(mlp, tico_run, tmp_path) -> None:
    base = """schema: tico.pipeline/v1
stages:
  - name: gptq
    kind: quantize
    passes:
      - name: gptq
        options: {bits: 4, act_order: true, quantize_lm_head: true, scale_search: SEARCH}
"""
    grids = {}
    for search in ("minmax", "smse"):
        circle = tmp_path / f"{search}.circle"
        encodings = _convert(tico_run, mlp["pt2"], mlp["data"], base.replace("SEARCH", search), circle)
        ratios = _metrics(encodings, "error_ratio")
        print(f"GPTQ {search}: error / round-to-nearest's on the same grids", {k: round(v, 3) for k, v in ratios.items()})
        assert len(ratios) == 2 and all(0 < r < 0.9 for r in ratios.values()), ratios
        grids[search] = _per_channel_weight(circle, HIDDEN, IN)[1].quant.scale
    # The search only ever shrinks the min/max range.
    assert np.all(grids["smse"] <= grids["minmax"] * (1 + 1e-6))
    assert np.any(grids["smse"] < grids["minmax"] * 0.99)


# --- SmoothQuant -----------------------------------------------------------------------------

D, HEADS = 64, 48


class NormBlock(torch.nn.Module):
    """RMSNorm with a learned scale, read by two projections (q, k), as in a decoder layer. A few
    channels of the scale are large, so the norm's output has outlier channels (as LLM
    activations do) while its input does not."""

    def __init__(self) -> None:
        super().__init__()
        weight = 1.0 + 0.1 * torch.randn(D)
        weight[3], weight[17] = 30.0, -12.0
        self.weight = torch.nn.Parameter(weight)
        self.q = torch.nn.Linear(D, HEADS, bias=False)
        self.k = torch.nn.Linear(D, HEADS, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        return self.q(h) + self.k(h)


def _outlier_batches(seed: int, count: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(32, D, generator=generator) for _ in range(count)]


SMOOTH = """  - name: smooth
    kind: quantize
    passes:
      - name: smoothquant
"""
W8A8 = """  - name: w8a8
    kind: quantize
    strategy: once
    passes:
      - name: ptq
        options: {activations: uint8, weights: uint8, granularity: per-channel, float_islands: keep}
"""


def _lenient_pipeline(directory: Path) -> Path:
    """The default pipeline with check-missing-qparams{strict=false}: float ops (the norm) between
    quantized tensors, as float_islands: keep leaves them."""
    text = (SOURCE / "configs" / "pipelines" / "default.yaml").read_text()
    strict = "      - check-missing-qparams "
    assert strict in text
    lines = [("      - name: check-missing-qparams\n        options: {strict: false}" if line.startswith(strict) else line)
             for line in text.splitlines()]
    path = directory / "lenient.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _exported(tmp_path_factory, name: str, seed: int, make_model, calibration: list, held_out: list) -> dict:
    """A seeded model in eval mode exported to a .pt2 with its calibration batches as .npy files."""
    work = tmp_path_factory.mktemp(name)
    torch.manual_seed(seed)
    model = make_model().eval()
    pt2, data = _export(model, calibration[0], calibration, work)
    return {"work": work, "model": model, "pt2": pt2, "data": data, "held_out": held_out}


@pytest.fixture(scope="module")
def norm_block(tmp_path_factory) -> dict:
    return _exported(tmp_path_factory, "smoothquant", 3, NormBlock, _outlier_batches(5, 8), _outlier_batches(9, 3))


def test_smoothing_keeps_the_float_function(norm_block, tico_run, tico_circle, tmp_path) -> None:
    circle = tmp_path / "smoothed.circle"
    encodings = _convert(tico_run, norm_block["pt2"], norm_block["data"], "schema: tico.pipeline/v1\nstages:\n" + SMOOTH,
                         circle)
    alphas = _metrics(encodings, "smoothquant_alpha")
    print("smoothquant alpha per group:", alphas)
    assert len(alphas) == 1 and list(alphas.values())[0] >= 0.0, encodings["metrics"]
    for i, x in enumerate(norm_block["held_out"]):
        with torch.no_grad():
            want = norm_block["model"](x).numpy()
        got = _run(tico_circle, circle, x.numpy(), tmp_path / f"s{i}")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_smoothquant_before_w8a8_beats_plain_w8a8(norm_block, tico_run, tico_circle, tmp_path) -> None:
    pipeline = _lenient_pipeline(tmp_path)
    results = {}
    for name, stages in (("plain", W8A8), ("smoothed", SMOOTH + W8A8)):
        circle = tmp_path / f"{name}.circle"
        _convert(tico_run, norm_block["pt2"], norm_block["data"], "schema: tico.pipeline/v1\nstages:\n" + stages, circle,
                 ["--pipeline", str(pipeline)])
        with torch.no_grad():
            expected = [norm_block["model"](x).numpy() for x in norm_block["held_out"]]
        got = [_run(tico_circle, circle, x.numpy(), tmp_path / f"{name}{i}") for i, x in enumerate(norm_block["held_out"])]
        results[name] = sqnr_db(expected, got)
    print(f"W8A8 block vs float on held-out inputs: plain {results['plain']:.2f} dB, "
          f"SmoothQuant {results['smoothed']:.2f} dB")
    assert results["smoothed"] > results["plain"] + 1.0


# --- Cross-layer equalization and bias correction ------------------------------------------------


class DepthwiseCnn(torch.nn.Module):
    """A MobileNet-style block: conv 3x3 -> BN -> act -> depthwise 3x3 -> BN -> act -> pointwise
    -> BN -> pool -> linear. Weights are scaled per output channel by log-normal factors and the
    batch-norm statistics are random, so the per-channel ranges are as uneven as a trained
    network's (the situation equalization is for)."""

    def __init__(self, act: type = torch.nn.ReLU) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(16)
        self.pw = torch.nn.Conv2d(16, 24, 1, bias=False)
        self.bn3 = torch.nn.BatchNorm2d(24)
        self.fc = torch.nn.Linear(24, 10)
        self.act1, self.act2 = act(), act()
        generator = torch.Generator().manual_seed(11)
        with torch.no_grad():
            for conv in (self.conv, self.dw, self.pw):
                conv.weight.mul_(torch.exp(1.5 * torch.randn(conv.out_channels, 1, 1, 1, generator=generator)))
            for bn in (self.bn1, self.bn2, self.bn3):
                c = bn.num_features
                bn.weight.copy_(torch.exp(0.8 * torch.randn(c, generator=generator)))
                bn.bias.copy_(0.3 * torch.randn(c, generator=generator))
                bn.running_mean.copy_(0.2 * torch.randn(c, generator=generator))
                bn.running_var.copy_(torch.exp(torch.randn(c, generator=generator)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.act1(self.bn1(self.conv(x)))
        x = self.act2(self.bn2(self.dw(x)))
        x = self.bn3(self.pw(x))
        return self.fc(x.mean((2, 3)))


def _image_batches(seed: int, count: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(4, 3, 16, 16, generator=generator) for _ in range(count)]


CLE = """  - name: cle
    kind: quantize
    passes:
      - name: cle
"""


def _ptq(weights: str, granularity: str, bias_correction: bool = False, activations: str = "uint8") -> str:
    return ("  - name: ptq\n    kind: quantize\n    strategy: once\n    passes:\n      - name: ptq\n"
            f"        options: {{activations: {activations}, weights: {weights}, granularity: {granularity}, "
            f"bias_correction: {str(bias_correction).lower()}}}\n")


@pytest.fixture(scope="module")
def cnn(tmp_path_factory) -> dict:
    return _exported(tmp_path_factory, "cle", 5, DepthwiseCnn, _image_batches(2, 8), _image_batches(21, 4))


def _cnn_sqnr(cnn: dict, tico_run, tico_circle, stages: str, directory: Path) -> tuple[float, dict]:
    directory.mkdir()
    circle = directory / "model.circle"
    encodings = _convert(tico_run, cnn["pt2"], cnn["data"], "schema: tico.pipeline/v1\nstages:\n" + stages, circle)
    with torch.no_grad():
        expected = [cnn["model"](x).numpy() for x in cnn["held_out"]]
    got = [_run(tico_circle, circle, x.numpy(), directory / f"x{i}") for i, x in enumerate(cnn["held_out"])]
    return sqnr_db(expected, got), encodings


def test_cle_balances_every_pair_and_keeps_the_float_function(cnn, tico_run, tico_circle, tmp_path) -> None:
    """conv -> (BN) -> relu -> depthwise -> (BN) -> relu -> pointwise: two pairs, the depthwise
    layer in both; the pointwise -> linear pair is cut by the mean. Function kept."""
    db, encodings = _cnn_sqnr(cnn, tico_run, tico_circle, CLE, tmp_path / "float")
    before, after = _metrics(encodings, "cle_range_spread_before"), _metrics(encodings, "cle_range_spread_after")
    print("CLE range spread (largest over median channel range of the first layer) before -> after:",
          {k: f"{before[k]:.1f} -> {after[k]:.1f}" for k in before})
    assert len(before) == 2, encodings["metrics"]
    assert all(after[k] < before[k] for k in before) and any(after[k] < before[k] / 2 for k in before)
    folded = _metrics(encodings, "cle_folded_operators")
    assert folded and set(folded.values()) == {2.0}, folded  # each batch norm's mul and add
    print(f"CLE float file vs eager: {db:.1f} dB")
    assert db > 90.0


def test_cle_through_relu6_makes_it_a_relu(tico_run, tico_circle, tmp_path) -> None:
    torch.manual_seed(5)
    model = DepthwiseCnn(torch.nn.ReLU6).eval()
    calibration = _image_batches(2, 2)
    pt2, data = _export(model, calibration[0], calibration, tmp_path)
    circle = tmp_path / "cle.circle"
    _convert(tico_run, pt2, data, "schema: tico.pipeline/v1\nstages:\n" + CLE + "        options: {relu6: relu}\n",
             circle)
    as_relu = DepthwiseCnn().eval()
    as_relu.load_state_dict(model.state_dict())
    x = _image_batches(21, 1)[0] * 8.0  # large enough that some activations pass 6
    with torch.no_grad():
        want, relu6_out = as_relu(x).numpy(), model(x).numpy()
    assert np.abs(want - relu6_out).max() > 1e-3, "the check needs activations above 6"
    got = _run(tico_circle, circle, x.numpy(), tmp_path / "run")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    skip = tmp_path / "skip.circle"
    encodings = _convert(tico_run, pt2, data, "schema: tico.pipeline/v1\nstages:\n" + CLE, skip)
    assert not _metrics(encodings, "cle_max_scale"), "relu6: skip (the default) leaves every pair of this model alone"


def test_cle_and_bias_correction_beat_plain_per_tensor_w8a8(cnn, tico_run, tico_circle, tmp_path) -> None:
    """Per-tensor 8-bit weights (the data-free quantization paper's setting): one grid for all
    channels, so uneven channels lose their precision; CLE gives it back, bias correction removes
    the mean error that remains."""
    results = {}
    for name, stages in (("plain", _ptq("uint8", "per-tensor")), ("cle", CLE + _ptq("uint8", "per-tensor")),
                         ("cle+bc", CLE + _ptq("uint8", "per-tensor", bias_correction=True))):
        results[name], _ = _cnn_sqnr(cnn, tico_run, tico_circle, stages, tmp_path / name.replace("+", "_"))
    print("per-tensor W8A8 CNN vs float on held-out inputs:", {k: f"{v:.2f} dB" for k, v in results.items()})
    assert results["cle"] > results["plain"] + 3.0
    assert results["cle+bc"] >= results["cle"] - 0.1


def test_bias_correction_removes_the_mean_error_of_4_bit_weights(cnn, tico_run, tico_circle, tmp_path) -> None:
    results, shifts = {}, {}
    for name, bc in (("plain", False), ("corrected", True)):
        results[name], encodings = _cnn_sqnr(cnn, tico_run, tico_circle, _ptq("uint4", "per-channel", bc, "none"),
                                             tmp_path / name)
        shifts[name] = _metrics(encodings, "bias_correction_max_shift")
    print("weight-only W4 CNN vs float on held-out inputs:", {k: f"{v:.2f} dB" for k, v in results.items()},
          "largest bias shift per layer:", {k: round(v, 4) for k, v in shifts["corrected"].items()})
    assert not shifts["plain"] and len(shifts["corrected"]) == 4  # conv, depthwise, pointwise, fc
    assert results["corrected"] > results["plain"] + 0.5


@pytest.mark.parametrize("quantizer", ["gptq", "adaround"])
def test_weight_quantizers_bias_correction(cnn, tico_run, tico_circle, tmp_path, quantizer) -> None:
    """The layer-wise weight quantizers correct biases too: every layer they take reports its shift
    (the depthwise convolution is not theirs), and at 4 bits the file is closer to float."""
    extra = ", iterations: 300" if quantizer == "adaround" else ""
    results, shifts = {}, {}
    for bc in (False, True):
        stages = (f"  - name: w4\n    kind: quantize\n    passes:\n      - name: {quantizer}\n"
                  f"        options: {{bits: 4, quantize_lm_head: true, bias_correction: {str(bc).lower()}{extra}}}\n")
        results[bc], encodings = _cnn_sqnr(cnn, tico_run, tico_circle, stages, tmp_path / f"bc{bc}")
        shifts[bc] = _metrics(encodings, "bias_correction_max_shift")
    print(f"{quantizer} W4 CNN vs float on held-out inputs: {results[False]:.2f} dB, with bias correction "
          f"{results[True]:.2f} dB; largest shift per layer:", {k: round(v, 4) for k, v in shifts[True].items()})
    assert not shifts[False] and len(shifts[True]) == 3  # conv, pointwise, linear
    assert results[True] > results[False] + 0.5


# --- Rotations ---------------------------------------------------------------------------------

# Every weight a distinct shape, so the file's tensors are found by shape: 3 query heads of 8
# sharing one key head (expanded), value heads of 32, an MLP of 128 (an order-128 Hadamard,
# 8 x 16 online).
R_D, R_HEADS, R_QK, R_V, R_FF = 48, 3, 8, 32, 128
ROTATE = """  - name: rotate
    kind: quantize
    passes:
      - name: rotate
        options: {online: ["*down_proj*"]}
"""
# Weight-only GPTQ gains from rotating inputs (the online Hadamard) but not from R2: rotating the
# value projection's output rows mixes rows of different norms, which per-channel grids had each
# fitted (docs/quantizers.md, "Rotations").
ROTATE_INPUTS = ROTATE.replace("{online:", "{head_rotation: false, online:")
W4 = {"rtn": """  - name: rtn
    kind: quantize
    passes:
      - name: ptq
        options: {activations: none, weights: uint4, granularity: per-channel}
""", "gptq": """  - name: gptq
    kind: quantize
    passes:
      - name: gptq
        options: {bits: 4, act_order: true, quantize_lm_head: true}
"""}


class AttentionBlock(torch.nn.Module):
    """A decoder layer's shape: attention (value heads, an output projection), a residual, an MLP.
    A few input columns of the value, output and down projections carry much larger weights (the
    outliers trained LLMs have), which stretch every per-channel grid of their rows."""

    def __init__(self) -> None:
        super().__init__()
        self.q_proj = torch.nn.Linear(R_D, R_HEADS * R_QK, bias=False)
        self.k_proj = torch.nn.Linear(R_D, R_QK, bias=False)
        self.v_proj = torch.nn.Linear(R_D, R_HEADS * R_V, bias=True)
        self.o_proj = torch.nn.Linear(R_HEADS * R_V, R_D, bias=False)
        self.up_proj = torch.nn.Linear(R_D, R_FF, bias=False)
        self.down_proj = torch.nn.Linear(R_FF, R_D, bias=False)
        with torch.no_grad():
            for linear, columns in ((self.v_proj, [5]), (self.o_proj, [7, 40]), (self.down_proj, [3, 90])):
                linear.weight[:, columns] *= 12.0
            self.v_proj.weight[10:12] *= 8.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[0]
        q = self.q_proj(x).view(t, R_HEADS, R_QK).transpose(0, 1)
        k = self.k_proj(x).view(t, 1, R_QK).transpose(0, 1).expand(R_HEADS, t, R_QK)
        v = self.v_proj(x).view(t, R_HEADS, R_V).transpose(0, 1)
        a = torch.softmax(q @ k.transpose(-1, -2) * R_QK**-0.5, -1) @ v
        h = x + self.o_proj(a.transpose(0, 1).reshape(t, R_HEADS * R_V))
        return h + self.down_proj(torch.relu(self.up_proj(h)))


def _hadamard(n: int) -> np.ndarray:
    h = np.ones((1, 1))
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return h / np.sqrt(n)


def _attention_batches(seed: int, count: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(16, R_D, generator=generator) for _ in range(count)]


@pytest.fixture(scope="module")
def attention(tmp_path_factory) -> dict:
    return _exported(tmp_path_factory, "rotate", 11, AttentionBlock, _attention_batches(2, 8), _attention_batches(6, 3))


def test_rotations_keep_the_float_function(attention, tico_run, tico_circle, tmp_path) -> None:
    circle = tmp_path / "rotated.circle"
    encodings = _convert(tico_run, attention["pt2"], None, "schema: tico.pipeline/v1\nstages:\n" + ROTATE, circle)
    blocks, online = _metrics(encodings, "rotate_head_block"), _metrics(encodings, "rotate_online_order")
    print("head rotations (producer: block):", blocks, "online Hadamard (layer: order):", online)
    assert list(blocks.values()) == [R_V] and list(online.values()) == [R_FF], encodings["metrics"]
    for i, x in enumerate(attention["held_out"]):
        with torch.no_grad():
            want = attention["model"](x).numpy()
        got = _run(tico_circle, circle, x.numpy(), tmp_path / f"f{i}")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_rotated_4_bit_weights_run_as_their_simulation_and_beat_unrotated(attention, tico_run, tico_circle,
                                                                            tmp_path) -> None:
    model = attention["model"]
    held_out = attention["held_out"]
    with torch.no_grad():
        expected = [model(x).numpy() for x in held_out]
    results = {}
    for method, stages in W4.items():
        rotation = ROTATE if method == "rtn" else ROTATE_INPUTS
        for rotated in (False, True):
            name = f"{method}{'-rotated' if rotated else ''}"
            circle = tmp_path / f"{name}.circle"
            _convert(tico_run, attention["pt2"], attention["data"],
                     "schema: tico.pipeline/v1\nstages:\n" + (rotation if rotated else "") + stages, circle)
            got = [_run(tico_circle, circle, x.numpy(), tmp_path / f"{name}{i}") for i, x in enumerate(held_out)]
            results[name] = sqnr_db(expected, got)
            if not rotated:
                continue
            # The simulation: the block with the file's dequantized (rotated) weights, the value
            # bias rotated per head, and the online Hadamard on the down projection's input.
            w = {n: torch.from_numpy(_per_channel_weight(circle, *getattr(model, n).weight.shape)[0])
                 for n in ("q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj")}
            head = torch.from_numpy(_hadamard(R_V) if rotation == ROTATE else np.eye(R_V)).float()
            bias = (model.v_proj.bias.detach().view(R_HEADS, R_V) @ head).reshape(-1)
            online = torch.from_numpy(_hadamard(R_FF)).float()
            # Round-to-nearest's weights are the float ones rotated, within half a step of their grids
            # (GPTQ's move further by design).
            rotated_v = (head.T @ model.v_proj.weight.detach().view(R_HEADS, R_V, R_D)).reshape(R_HEADS * R_V, R_D)
            rotated_down = model.down_proj.weight.detach() @ online
            for n, want_w in (("v_proj", rotated_v), ("down_proj", rotated_down)) if method == "rtn" else ():
                step = _per_channel_weight(circle, *want_w.shape)[1].quant.scale[:, None]
                assert np.all(np.abs(w[n].numpy() - want_w.numpy()) <= step * 0.5001 + 1e-6), n
            for i, x in enumerate(held_out):
                t = x.shape[0]
                with torch.no_grad():
                    q = (x @ w["q_proj"].T).view(t, R_HEADS, R_QK).transpose(0, 1)
                    k = (x @ w["k_proj"].T).view(t, 1, R_QK).transpose(0, 1).expand(R_HEADS, t, R_QK)
                    v = (x @ w["v_proj"].T + bias).view(t, R_HEADS, R_V).transpose(0, 1)
                    a = torch.softmax(q @ k.transpose(-1, -2) * R_QK**-0.5, -1) @ v
                    h = x + a.transpose(0, 1).reshape(t, R_HEADS * R_V) @ w["o_proj"].T
                    want = (h + (torch.relu(h @ w["up_proj"].T) @ online) @ w["down_proj"].T).numpy()
                got = _run(tico_circle, circle, x.numpy(), tmp_path / f"{name}-sim{i}")
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.abs(want).max())
    print("W4 attention block vs float on held-out inputs (dB):", {k: round(v, 2) for k, v in results.items()})
    assert results["rtn-rotated"] > results["rtn"] + 1.0
    assert results["gptq-rotated"] > results["gptq"] + 1.0
