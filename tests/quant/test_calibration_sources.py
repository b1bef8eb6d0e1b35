"""The calibration host path end to end (plugins/calibration-sources, core/src/quant).

tico-run converts tiny exported models with a quantize stage running the test quantizer
`test.observe-stats` (tests/plugins/observe_stats_plugin.cpp), which observes every input and
node output and reports their sums per batch; `-v` prints them. Each source is checked against
the data the test wrote (values, batch order, batch count), then the host's errors: no data, an
unknown source, a batch of the wrong shape, NaN, and a memory budget that forces offloading or
is too small for one node.

Environment (tests/quant/CMakeLists.txt): TICO_RUN and TICO_OBSERVE_STATS_PLUGIN.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

RECIPE = """schema: tico.pipeline/v1
{calibration}stages:
  - name: observe
    kind: quantize
    strategy: once
    passes:
      - name: test.observe-stats
"""


class Linear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.fc(x))


class Embed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(50, 4)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.emb(input_ids) * attention_mask.unsqueeze(-1).float()


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("models")
    example = torch.randn(2, 8)
    linear = torch.export.export(Linear().eval(), (example,))
    torch.export.save(linear, out / "linear.pt2")
    np.save(out / "example.npy", example.numpy())
    # The same program without example inputs: model.pt is written empty.
    linear._example_inputs = None
    torch.export.save(linear, out / "bare.pt2")
    dynamic = torch.export.export(Linear().eval(), (example,),
                                  dynamic_shapes={"x": {0: torch.export.Dim("batch", min=2, max=64)}})
    torch.export.save(dynamic, out / "dynamic.pt2")
    ids = torch.zeros(1, 6, dtype=torch.int64)
    embed = torch.export.export(Embed().eval(), (ids, torch.ones_like(ids)))
    torch.export.save(embed, out / "embed.pt2")
    return {"linear": out / "linear.pt2", "bare": out / "bare.pt2", "embed": out / "embed.pt2",
            "dynamic": out / "dynamic.pt2", "example": out / "example.npy"}


def run(tmp_path: Path, model: Path, *args: str, calibration_block: str = "") -> subprocess.CompletedProcess:
    # A run that fails must leave no output, so none may be left from an earlier run.
    (tmp_path / "out.tir").unlink(missing_ok=True)
    recipe = tmp_path / "observe.yaml"
    recipe.write_text(RECIPE.format(calibration=calibration_block))
    # The textual IR is enough (the quantize stages run before lowering) and quicker.
    command = [os.environ["TICO_RUN"], "--plugin", os.environ["TICO_OBSERVE_STATS_PLUGIN"], "--quant", str(recipe),
               "--no-progress", "-v", str(model), "--emit", "tir", "-o", str(tmp_path / "out.tir"), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def metrics(done: subprocess.CompletedProcess) -> dict[tuple[str, str], float]:
    assert done.returncode == 0, done.stderr[-6000:]
    found = {}
    for subject, metric, value in re.findall(r"quantizer '[^']*observe-stats': (\S+) (\S+) = (\S+)", done.stderr):
        found[(subject, metric)] = float(value)
    assert found, done.stderr[-6000:]
    assert not re.search(r"calibrating \(.*\d+%", done.stderr), "--no-progress must silence the progress lines"
    return found


def failure(done: subprocess.CompletedProcess) -> str:
    assert done.returncode != 0, "expected tico-run to fail\n" + done.stderr[-4000:]
    assert not Path(done.args[done.args.index("-o") + 1]).exists(), "a failed run must write no output"
    return done.stderr


def batch_sums(found: dict, name: str) -> list[float]:
    return [found[(name, f"sum@{b}")] for b in range(int(found[(name, "batches")]))]


def test_npy_folder_natural_order(models, tmp_path):
    calib = tmp_path / "calib"
    arrays = {}
    for b in (10, 2, 1):
        arrays[b] = np.random.default_rng(b).standard_normal((2, 8)).astype(np.float32)
        (calib / f"batch_{b}").mkdir(parents=True)
        np.save(calib / f"batch_{b}" / "x.npy", arrays[b])
    # Two of three batches: natural order takes batch_1 and batch_2 (name order would take batch_10).
    found = metrics(run(tmp_path, models["linear"], "--calibration", str(calib), "--calibration-batches", "2"))
    assert batch_sums(found, "x") == pytest.approx([float(arrays[b].sum()) for b in (1, 2)], rel=1e-4, abs=1e-4)


def test_npz_compressed_file_and_folder(models, tmp_path):
    a = np.arange(16, dtype=np.float32).reshape(2, 8)
    np.savez_compressed(tmp_path / "one.npz", x=a)
    found = metrics(run(tmp_path, models["linear"], "--calibration", str(tmp_path / "one.npz")))
    assert batch_sums(found, "x") == [pytest.approx(float(a.sum()))]
    folder = tmp_path / "many"
    folder.mkdir()
    for b in range(3):
        np.savez(folder / f"{b}.npz", a + b)  # positional: arr_0
    found = metrics(run(tmp_path, models["linear"], "--calibration", f"npz:{folder}"))
    assert batch_sums(found, "x") == pytest.approx([float((a + b).sum()) for b in range(3)])


def test_token_ids_pad_and_truncate(models, tmp_path):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("3 4 5\n1, 2, 3, 4, 5, 6, 7, 8\n")
    found = metrics(run(tmp_path, models["embed"], "--calibration", f"{prompts},pad_id=9"))
    assert batch_sums(found, "input_ids") == [3 + 4 + 5 + 9 * 3, 1 + 2 + 3 + 4 + 5 + 6]
    assert batch_sums(found, "attention_mask") == [3, 6]


def test_random_is_seeded(models, tmp_path):
    first = metrics(run(tmp_path, models["linear"], "--calibration", "random", "--calibration-batches", "3",
                        "--calibration-seed", "5"))
    again = metrics(run(tmp_path, models["linear"], "--calibration", "random", "--calibration-batches", "3",
                        "--calibration-seed", "5"))
    other = metrics(run(tmp_path, models["linear"], "--calibration", "random", "--calibration-batches", "3",
                        "--calibration-seed", "6"))
    assert first[("x", "batches")] == 3
    assert batch_sums(first, "x") == batch_sums(again, "x")
    assert batch_sums(first, "x") != batch_sums(other, "x")


def test_random_symbolic_dims(models, tmp_path):
    unsized = failure(run(tmp_path, models["dynamic"], "--calibration", "random"))
    assert "calibration.dims does not size input 'x' dimension 0" in unsized
    tir = subprocess.run([os.environ["TICO_RUN"], str(models["dynamic"]), "--emit", "tir", "--stop-after", "frontend"],
                         capture_output=True, text=True, timeout=300)
    symbol = re.search(r"input %x: f32\[(\w+), 8\]", tir.stdout)
    assert symbol, tir.stdout + tir.stderr
    block = f"calibration:\n  batches: 2\n  dims: {{{symbol.group(1)}: 3}}\n"
    found = metrics(run(tmp_path, models["dynamic"], "--calibration", "random", calibration_block=block))
    assert found[("x", "batches")] == 2 and found[("x", "elements")] == 2 * 3 * 8


def test_example_inputs(models, tmp_path):
    found = metrics(run(tmp_path, models["linear"], "--calibration", "example-inputs"))
    assert batch_sums(found, "x") == [pytest.approx(float(np.load(models["example"]).sum()), rel=1e-5, abs=1e-5)]
    assert "the archive holds no example inputs" in failure(
        run(tmp_path, models["bare"], "--calibration", "example-inputs"))


def test_hostile_example_inputs(models, tmp_path):
    """Issue 31: example inputs are untrusted pickles; a cycle or a bomb is an error naming it."""
    import io
    import zipfile
    for pickle, why in ((b"\x80\x02]q\x00h\x00a.", "a list that holds itself"),
                        (b"\x80\x02N" + b"q\x00h\x00\x86" * 40 + b".", "shared references expand to more than")):
        saved = io.BytesIO()
        with zipfile.ZipFile(saved, "w", zipfile.ZIP_STORED) as z:
            z.writestr("archive/data.pkl", pickle)
        hostile = tmp_path / "hostile.pt2"
        with zipfile.ZipFile(models["linear"]) as src, zipfile.ZipFile(hostile, "w", zipfile.ZIP_STORED) as dst:
            for info in src.infolist():
                keep = not info.filename.endswith("data/sample_inputs/model.pt")
                dst.writestr(info.filename, src.read(info) if keep else saved.getvalue())
        error = failure(run(tmp_path, hostile, "--calibration", "example-inputs"))
        assert why in error and "data.pkl offset" in error, error[-2000:]


def test_errors(models, tmp_path):
    assert "calibrates on data and none was given" in failure(run(tmp_path, models["linear"]))

    unknown = failure(run(tmp_path, models["linear"], calibration_block="calibration:\n  source: npyy\n  path: x\n"))
    assert "unknown calibration source 'npyy'" in unknown and "did you mean 'npy'" in unknown

    calib = tmp_path / "bad"
    (calib / "0").mkdir(parents=True)
    (calib / "1").mkdir(parents=True)
    np.save(calib / "0" / "x.npy", np.zeros((2, 8), np.float32))
    np.save(calib / "1" / "x.npy", np.zeros((2, 5), np.float32))
    shape = failure(run(tmp_path, models["linear"], "--calibration", str(calib)))
    assert "calibration batch 1 of npy folder" in shape and "input 0 ('x') dimension 1 is 5, expected 8" in shape

    nan = np.zeros((2, 8), np.float32)
    nan[1, 3] = np.nan
    np.save(calib / "1" / "x.npy", nan)
    bad = failure(run(tmp_path, models["linear"], "--calibration", str(calib)))
    assert "calibration batch 1 of npy folder" in bad and "input 'x' holds NaN (element 11)" in bad


def test_memory_budget(models, tmp_path):
    # x is 64 bytes per batch and the linear layer's output 32: 4 batches of inputs exceed 100
    # bytes, while one node of one batch (96 bytes) fits.
    calib = tmp_path / "calib"
    for b in range(4):
        (calib / str(b)).mkdir(parents=True)
        np.save(calib / str(b) / "x.npy", np.full((2, 8), b, np.float32))
    done = run(tmp_path, models["linear"], "--calibration", str(calib), "--memory-budget", "100")
    found = metrics(done)
    assert batch_sums(found, "x") == [0, 16, 32, 48]
    offloaded = re.search(r"offloaded (\d+) tensors", done.stderr)
    assert offloaded and int(offloaded.group(1)) > 0, done.stderr[-4000:]

    tiny = failure(run(tmp_path, models["linear"], "--calibration", str(calib), "--memory-budget", "50"))
    assert "the calibration memory budget 50 bytes cannot hold" in tiny
