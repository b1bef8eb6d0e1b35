"""End-to-end post-training quantization with tico's ``ptq`` quantizer (plugins/quant-ptq).

Two small CNNs (one upsampling through a transposed convolution) and a small MLP (seeded) are
exported with torch.export, calibrated on .npy batches and converted by ``tico-run --quant configs/quant/cnn-uint8.yaml`` with the default pipeline; the
Circle file runs on the built-in runtime and is compared with eager PyTorch. The same modules,
calibrated on the same batches by the original converter's PTQ (``prepare`` / ``convert`` with
its default ``PTQConfig``), give the reference parameters: every activation observer of the
original against ours (the range each saw, scale and zero point), and every per-channel weight.

Calibration data come through the ``npy`` calibration source: one folder per batch holding
``<input name>.npy``.

Environment (tests/quant/CMakeLists.txt): TICO_RUN, TICO_CIRCLE, TICO_SOURCE_DIR;
TICO_PTQ_REPORT=file.json writes the measured numbers.
"""

from __future__ import annotations

import copy
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from harness import require_success, run_interpreter, run_tico
from measure import sqnr_db

BATCHES = 8
REL_TOL = 1e-6  # scales and ranges against the original's observers (minmax, same dtype)
MAX_STEPS = 3.0  # our integer kernels against the original's fake-quantized eager output
MAX_SQNR_LOSS_DB = 2.0  # our SQNR against float, below the original's fake-quantized model's


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 6 * 6, 10)

    def forward(self, x):
        h = torch.relu(self.conv1(x))
        h = torch.relu(self.conv2(h))
        return self.fc(torch.flatten(h, 1))


class UpCnn(torch.nn.Module):
    """A decoder-style upsampling step: conv, relu, transposed conv (TRANSPOSE_CONV quantized)."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.up = torch.nn.ConvTranspose2d(8, 4, 2, stride=2)

    def forward(self, x):
        return self.up(torch.relu(self.conv1(x)))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 32)
        self.fc3 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


# name, module class, input shape, wrapped layers in forward order, activation range estimator
# (ours and the original's observer of the same name: minmax, ema, percentile)
CASES = [
    ("cnn", Cnn, (2, 3, 6, 6), ["conv1", "conv2", "fc"], "minmax"),
    ("upcnn", UpCnn, (2, 3, 6, 6), ["conv1", "up"], "minmax"),
    ("mlp", Mlp, (4, 16), ["fc1", "fc2", "fc3"], "minmax"),
    ("mlp-ema", Mlp, (4, 16), ["fc1", "fc2", "fc3"], "ema"),
    ("mlp-percentile", Mlp, (4, 16), ["fc1", "fc2", "fc3"], "percentile"),
]


def _original_ptq(model: torch.nn.Module, layers: list[str], batches: list[np.ndarray], estimator: str):
    """The original's PTQ: every layer wrapped with its default PTQConfig (the activation observer
    `estimator` names), calibrated, converted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tico.quantization import convert, prepare
        from tico.quantization.config.ptq import PTQConfig
        from tico.quantization.config.specs import affine
        from tico.quantization.wrapq.dtypes import DType
        from tico.quantization.wrapq.observers.ema import EMAObserver
        from tico.quantization.wrapq.observers.minmax import MinMaxObserver
        from tico.quantization.wrapq.observers.percentile import PercentileObserver

        observer = {"minmax": MinMaxObserver, "ema": EMAObserver, "percentile": PercentileObserver}[estimator]
        quantized = copy.deepcopy(model)
        config = PTQConfig(activation=affine(DType.uint(8), observer=observer))
        for layer in layers:
            setattr(quantized, layer, prepare(getattr(quantized, layer), config))
        with torch.no_grad():
            for batch in batches:
                quantized(torch.from_numpy(batch))
        for layer in layers:
            convert(getattr(quantized, layer))
    return quantized


def _relative(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-30)


def _convert(tmp: Path, name: str, model: torch.nn.Module, example: torch.Tensor, batches, estimator: str, tico_run,
             pipeline, source_dir):
    program = torch.export.export(model, (example,))
    pt2 = tmp / f"{name}.pt2"
    torch.export.save(program, pt2)
    input_name = program.graph_signature.user_inputs[0]
    calib = tmp / f"{name}-calib"
    for i, batch in enumerate(batches):
        (calib / f"batch_{i:03d}").mkdir(parents=True)
        np.save(calib / f"batch_{i:03d}" / f"{input_name}.npy", batch)
    circle = tmp / f"{name}.circle"
    encodings = tmp / f"{name}.json"
    recipe = source_dir / "configs" / "quant" / "cnn-uint8.yaml"
    if estimator != "minmax":  # the same recipe with another activation estimator
        text = recipe.read_text()
        assert "estimator: minmax\n" in text
        recipe = tmp / f"{name}-recipe.yaml"
        recipe.write_text(text.replace("          estimator: minmax\n", f"          estimator: {estimator}\n", 1))
    run = run_tico(tico_run, [str(pt2), "--pipeline", str(pipeline), "--quant", str(recipe),
                              "--calibration", f"npy:{calib}", "--no-progress", "-o", str(circle),
                              "--encodings", str(encodings)])
    require_success(run, f"tico-run --quant of {name}")
    return circle, json.loads(encodings.read_text()), run


@pytest.mark.parametrize("name,model_class,shape,layers,estimator", CASES, ids=[c[0] for c in CASES])
def test_ptq_end_to_end_and_parity_with_original(name, model_class, shape, layers, estimator, tmp_path, tico_run,
                                                 tico_circle, pipeline, source_dir):
    torch.manual_seed(0)
    model = model_class().eval()
    generator = torch.Generator().manual_seed(1)
    batches = [torch.randn(*shape, generator=generator).numpy() for _ in range(BATCHES)]
    test_input = torch.randn(*shape, generator=generator)

    circle, encodings, run = _convert(tmp_path, name, model, torch.from_numpy(batches[0]), batches, estimator,
                                      tico_run, pipeline, source_dir)
    original = _original_ptq(model, layers, batches, estimator)

    # Activations: the original's observers in forward order (act_in, act_out of each layer; a
    # layer's act_in is the previous layer's output after relu/flatten, which we observe once,
    # where it is computed) against the ranges ptq reported, in graph order.
    ours_min = [m["value"] for m in encodings["metrics"] if m["metric"] == "range_min"]
    ours_max = [m["value"] for m in encodings["metrics"] if m["metric"] == "range_max"]
    subjects = [m["subject"] for m in encodings["metrics"] if m["metric"] == "range_min"]
    observers = []
    for layer in layers:
        wrapper = getattr(original, layer)
        observers += [(f"{layer}.act_in", wrapper.get_observer("act_in")),
                      (f"{layer}.act_out", wrapper.get_observer("act_out"))]
    assert len(subjects) == len(observers), (subjects, [o[0] for o in observers], run.stderr)
    activations = [t for t in encodings["tensors"] if t["role"] == "activation" and t["granularity"] == "per-tensor"]
    report = {"model": name, "estimator": estimator, "activations": [], "weights": []}
    worst = 0.0
    for (label, obs), subject, lo, hi in zip(observers, subjects, ours_min, ours_max):
        ref_scale = float(obs._cached_scale.reshape(-1)[0])
        ref_zp = int(obs._cached_zp.reshape(-1)[0])
        # Our Circle tensor with these parameters: the one of the same zero point and nearest scale.
        candidates = [t for t in activations if t["zero_point"][0] == ref_zp and t["dtype"] == "uint8"]
        assert candidates, f"{label}: no uint8 activation with zero point {ref_zp} in our file ({subject})"
        ours = min(candidates, key=lambda t: _relative(t["scale"][0], ref_scale))
        # The range the parameters come from: the percentile observer keeps its clipped bounds apart.
        ref_lo, ref_hi = ((obs.clip_min_val, obs.clip_max_val) if estimator == "percentile"
                          else (obs.min_val, obs.max_val))
        entry = {
            "observer": label, "ours": subject,
            "range_rel_diff": max(_relative(lo, float(ref_lo)), _relative(hi, float(ref_hi))),
            "scale_rel_diff": _relative(ours["scale"][0], ref_scale),
            "scale": ref_scale, "zero_point": ref_zp,
        }
        report["activations"].append(entry)
        worst = max(worst, entry["range_rel_diff"], entry["scale_rel_diff"])
        assert entry["range_rel_diff"] <= REL_TOL and entry["scale_rel_diff"] <= REL_TOL, entry

    # Weights: each per-channel weight of the original against ours of the same channel count.
    weights = [t for t in encodings["tensors"] if t["role"] == "weight"]
    for layer in layers:
        obs = getattr(original, layer).get_observer("weight")
        ref_scales = obs._cached_scale.reshape(-1).tolist()
        ref_zps = obs._cached_zp.reshape(-1).tolist()
        same = [t for t in weights if len(t["scale"]) == len(ref_scales) and t["zero_point"] == ref_zps]
        assert same, f"{layer}.weight: no weight with the original's zero points {ref_zps}"
        diff = min(max(_relative(a, b) for a, b in zip(t["scale"], ref_scales)) for t in same)
        report["weights"].append({"observer": f"{layer}.weight", "scale_rel_diff": diff})
        worst = max(worst, diff)
        assert diff <= REL_TOL, (layer, diff)

    # Outputs on the built-in runtime against eager float and the original's fake-quantized model.
    interp, outputs = run_interpreter(tico_circle, circle, [test_input.numpy()], tmp_path / f"{name}-run")
    require_success(interp, f"tico-circle run of {name}")
    with torch.no_grad():
        reference = model(test_input).numpy()
        fake_quant = original(test_input).numpy()
    out_obs = getattr(original, layers[-1]).get_observer("act_out")
    out_scale = float(out_obs._cached_scale.reshape(-1)[0])
    steps = float(np.max(np.abs(outputs[0] - fake_quant))) / out_scale
    ours_db = sqnr_db([reference], [outputs[0]])
    original_db = sqnr_db([reference], [fake_quant])
    report.update({"max_steps_vs_original": steps, "sqnr_ours_db": ours_db, "sqnr_original_db": original_db,
                   "worst_rel_diff": worst})
    print(json.dumps(report))
    if os.environ.get("TICO_PTQ_REPORT"):
        with open(os.environ["TICO_PTQ_REPORT"], "a") as f:
            f.write(json.dumps(report) + "\n")
    assert steps <= MAX_STEPS, report
    assert ours_db >= original_db - MAX_SQNR_LOSS_DB, report
