"""GPTQ parity with the original (quantization reference §2.4, invariant 8).

The original converter's GPTQ class (installed `tico` package) quantizes a seeded nn.Linear from
correlated calibration inputs; its weight and accumulated Hessian are handed to our solver
(tests/quant/gptq_solve.cpp) with the same settings, and the two fake-quantized weights are
compared. Both run the same algorithm, so codes agree except where fp32 round-off of different
summation orders moves a value across a rounding boundary: at least 99.9 % must be identical.

Environment: TICO_GPTQ_SOLVE, the gptq_solve tool (set by tests/quant/CMakeLists.txt).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

gptq_module = pytest.importorskip("tico.quantization.algorithm.gptq.gptq")

ROWS, COLUMNS = 96, 320


def _calibration(seed: int, dead_feature: int | None) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    mixing = torch.randn(COLUMNS, COLUMNS, generator=generator) / COLUMNS**0.5
    batches = []
    for _ in range(4):
        x = torch.randn(8, 32, COLUMNS, generator=generator) @ mixing
        if dead_feature is not None:
            x[..., dead_feature] = 0.0
        batches.append(x)
    return batches


def _run_original(case: dict, seed: int):
    torch.manual_seed(seed)
    layer = torch.nn.Linear(COLUMNS, ROWS, bias=False)
    original = gptq_module.GPTQ(layer)
    original.quantizer.configure(
        case["bits"], perchannel=case.get("perchannel", True), sym=case.get("sym", False), mse=case.get("mse")
    )
    with torch.no_grad():
        for x in _calibration(seed + 1, case.get("dead")):
            original.add_batch(x, None)
    weight = layer.weight.detach().clone()
    hessian = original.H.detach().clone()
    with torch.no_grad():
        original.fasterquant(
            blocksize=128,
            percdamp=0.01,
            groupsize=case.get("group_size", -1),
            actorder=case.get("act_order", True),
            static_groups=case.get("static_groups", False),
        )
    return weight.numpy(), hessian.numpy(), layer.weight.detach().numpy(), original.quantizer


def _run_ours(case: dict, weight: np.ndarray, hessian: np.ndarray, tmp_path: Path) -> dict:
    np.save(tmp_path / "W.npy", weight)
    np.save(tmp_path / "H.npy", hessian)
    args = [os.environ["TICO_GPTQ_SOLVE"], str(tmp_path / "W.npy"), str(tmp_path / "H.npy"), str(tmp_path)]
    args.append(f"--bits={case['bits']}")
    if case.get("sym"):
        args.append("--sym")
    if not case.get("perchannel", True):
        args.append("--per-tensor")
    if case.get("mse"):
        args.append("--mse")
    if not case.get("act_order", True):
        args.append("--no-act-order")
    if case.get("group_size", -1) > 0:
        args.append(f"--group-size={case['group_size']}")
        # The original refits a dynamic group's grid from the weights of the block start.
        args.append("--legacy-group-refit")
    if case.get("static_groups"):
        args.append("--static-groups")
    subprocess.run(args, check=True, capture_output=True, text=True)
    return {name: np.load(tmp_path / f"{name}.npy") for name in ("codes", "dequantized", "scale", "zero", "group_of_column")}


CASES = {
    "w4-asym-actorder": {"bits": 4},
    "w4-sym-natural-order": {"bits": 4, "sym": True, "act_order": False},
    "w8-asym-mse": {"bits": 8, "mse": "mse"},
    "w4-per-tensor": {"bits": 4, "perchannel": False},
    "w3-dead-feature": {"bits": 3, "dead": 17},
    "w4-dynamic-groups": {"bits": 4, "group_size": 48, "act_order": False},
    "w4-dynamic-groups-actorder": {"bits": 4, "group_size": 64},
    "w4-static-groups-actorder": {"bits": 4, "group_size": 64, "static_groups": True},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_codes_match_the_original(name: str, tmp_path: Path, record_property) -> None:
    case = CASES[name]
    seed = 1234 + sorted(CASES).index(name)
    weight, hessian, original_dequantized, original_quantizer = _run_original(case, seed)
    ours = _run_ours(case, weight, hessian, tmp_path)

    # The grid of every weight: ours per (group, row); a different code shows as a difference of
    # at least one step, so "same code" is |difference| < half a step.
    rows = np.arange(ROWS)[:, None]
    step = ours["scale"][ours["group_of_column"][None, :], rows]
    difference = np.abs(ours["dequantized"] - original_dequantized)
    identical = float(np.mean(difference < 0.5 * step))
    max_difference = float(difference.max())
    record_property("identical_codes", identical)
    record_property("max_abs_dequantized_difference", max_difference)
    print(f"{name}: identical codes {identical * 100:.3f} %, max |dw| {max_difference:.3g}")
    assert identical >= 0.999, f"{name}: only {identical * 100:.3f} % identical codes"

    if case.get("group_size", -1) < 0:
        # One grid for the whole layer: also the same grid and the same integer codes.
        scale = original_quantizer.scale.reshape(-1).numpy()
        zero = original_quantizer.zero.reshape(-1).numpy()
        np.testing.assert_allclose(ours["scale"][0], scale, rtol=1e-6)
        np.testing.assert_array_equal(ours["zero"][0], zero)
        original_codes = np.rint(original_dequantized / scale[:, None]) + zero[:, None]
        assert float(np.mean(ours["codes"] == original_codes)) >= 0.999


CONV_CASES = {
    "k3-pad1": {"kernel": (3, 3), "stride": (1, 1), "padding": (1, 1), "dilation": (1, 1), "groups": 1},
    "k3-stride2-dilation2": {"kernel": (3, 3), "stride": (2, 2), "padding": (0, 0), "dilation": (2, 2), "groups": 1},
    "k2x3-grouped": {"kernel": (2, 3), "stride": (2, 1), "padding": (1, 0), "dilation": (1, 1), "groups": 2},
}


def _pair(values: tuple[int, int]) -> str:
    return f"{values[0]},{values[1]}"


@pytest.mark.parametrize("name", sorted(CONV_CASES))
def test_conv2d_hessian_and_codes_match_the_original(name: str, tmp_path: Path, record_property) -> None:
    """Conv2d: our unfold + accumulation gives the original's H, and GPTQ on the flattened weight
    gives its codes."""
    geometry = CONV_CASES[name]
    seed = 4321 + sorted(CONV_CASES).index(name)
    torch.manual_seed(seed)
    conv = torch.nn.Conv2d(
        8,
        12,
        geometry["kernel"],
        stride=geometry["stride"],
        padding=geometry["padding"],
        dilation=geometry["dilation"],
        groups=geometry["groups"],
        bias=False,
    )
    original = gptq_module.GPTQ(conv)
    original.quantizer.configure(4, perchannel=True, sym=False)
    generator = torch.Generator().manual_seed(seed + 1)
    batches = [torch.randn(3, 8, 11, 9, generator=generator) for _ in range(2)]
    with torch.no_grad():
        for x in batches:
            original.add_batch(x, None)
    original_hessian = original.H.detach().clone().numpy()

    np.save(tmp_path / "X.npy", torch.cat(batches).numpy())
    subprocess.run(
        [
            os.environ["TICO_GPTQ_SOLVE"],
            "conv2d-hessian",
            str(tmp_path / "X.npy"),
            str(tmp_path / "H_ours.npy"),
            f"--kernel={_pair(geometry['kernel'])}",
            f"--stride={_pair(geometry['stride'])}",
            f"--padding={_pair(geometry['padding'])}",
            f"--dilation={_pair(geometry['dilation'])}",
            f"--groups={geometry['groups']}",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    ours_hessian = np.load(tmp_path / "H_ours.npy")
    assert ours_hessian.shape == original_hessian.shape
    # The original stores H in fp32; ours is fp64 throughout.
    np.testing.assert_allclose(ours_hessian, original_hessian, rtol=1e-5, atol=1e-5 * np.abs(original_hessian).max())

    weight = conv.weight.detach().flatten(1).clone().numpy()
    with torch.no_grad():
        original.fasterquant(blocksize=128, percdamp=0.01, groupsize=-1, actorder=True)
    original_dequantized = conv.weight.detach().flatten(1).numpy()
    ours = _run_ours({"bits": 4}, weight, original_hessian, tmp_path)
    step = ours["scale"][0][:, None]
    identical = float(np.mean(np.abs(ours["dequantized"] - original_dequantized) < 0.5 * step))
    record_property("identical_codes", identical)
    print(f"conv {name}: identical codes {identical * 100:.3f} %")
    assert identical >= 0.999
