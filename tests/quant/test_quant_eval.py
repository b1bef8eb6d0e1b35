"""The evaluator's quantized_decomposed kernels against eager PyTorch, bit for bit.

PyTorch implements quantize/dequantize_per_tensor (and their .tensor/.tensor2 overloads) and
quantize/dequantize_per_channel in Python, so a C++ process has no kernel for them;
tico's evaluator has its own (plugins/aten-eval/backend/quant_ops.cpp). A program calling
each op directly is exported and evaluated right after import; every output (the integer
codes and the dequantized floats) must equal eager PyTorch exactly. The inputs include values
exactly half-way between two codes (round half to even), values beyond the range (clamping),
and a negative channel axis.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)

from harness import require_success, run_tico, to_numpy

qd = torch.ops.quantized_decomposed


class QuantizeDequantizeOps(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("channel_scales", torch.tensor([0.05, 0.1, 0.0625, 0.3, 0.007, 1.5]))
        self.register_buffer("channel_zps", torch.tensor([0, 3, -4, 10, 0, -1], dtype=torch.int64))
        self.register_buffer("scale", torch.tensor(0.0625))
        self.register_buffer("zp", torch.tensor(-7, dtype=torch.int32))
        self.register_buffer("lo", torch.tensor(-100))
        self.register_buffer("hi", torch.tensor(100))

    def forward(self, x):
        q1 = qd.quantize_per_tensor(x, 0.05, 3, 0, 255, torch.uint8)
        d1 = qd.dequantize_per_tensor(q1, 0.05, 3, 0, 255, torch.uint8)
        q2 = qd.quantize_per_channel(x, self.channel_scales, self.channel_zps, 1, -128, 127, torch.int8)
        d2 = qd.dequantize_per_channel(q2, self.channel_scales, self.channel_zps, 1, -128, 127, torch.int8)
        q3 = qd.quantize_per_tensor.tensor(x, self.scale, self.zp, -32768, 32767, torch.int16)
        d3 = qd.dequantize_per_tensor.tensor(q3, self.scale, self.zp, -32768, 32767, torch.int16)
        q4 = qd.quantize_per_tensor.tensor2(x, self.scale, self.zp, self.lo, self.hi, torch.int8)
        d4 = qd.dequantize_per_tensor.tensor2(q4, self.scale, self.zp, self.lo, self.hi, torch.int8)
        q5 = qd.quantize_per_channel(x, self.channel_scales, self.channel_zps, -2, 0, 15, torch.uint8)
        d5 = qd.dequantize_per_channel(q5, self.channel_scales, None, -2, 0, 15, torch.uint8)
        return q1, d1, q2, d2, q3, d3, q4, d4, q5, d5


def _input() -> torch.Tensor:
    torch.manual_seed(0)
    x = torch.randn(3, 6, 5) * 4
    # Exactly half-way between two codes for the 0.0625 scale (and many of the others):
    # round half to even decides them.
    x[0] = (torch.arange(30, dtype=torch.float32).reshape(6, 5) - 15 + 0.5) * 0.0625
    x[1, :, 0] = torch.tensor([1e4, -1e4, 0.0, -0.0, 2.5, -2.5])  # clamping, signed zeros, ties
    return x


def test_quantized_decomposed_kernels_bit_exact(tmp_path: Path, tico_run: Path):
    module = QuantizeDequantizeOps().eval()
    x = _input()
    with torch.no_grad():
        program = torch.export.export(module, (x,))
        expected = [to_numpy(t) for t in module(x)]
    ops = {str(n.target) for n in program.graph.nodes if n.op == "call_function"}
    for op in ("quantize_per_tensor.default", "quantize_per_tensor.tensor", "quantize_per_tensor.tensor2",
               "dequantize_per_tensor.tensor2", "quantize_per_channel.default", "dequantize_per_channel.default"):
        assert f"quantized_decomposed.{op}" in ops, ops  # the program really calls each overload
    pt2 = tmp_path / "ops.pt2"
    torch.export.save(program, str(pt2))
    np.save(tmp_path / "in0.npy", to_numpy(x))
    out_dir = tmp_path / "out"
    run = run_tico(tico_run, ["--evaluate", "--stop-after", "frontend", "--input", str(tmp_path / "in0.npy"),
                              "--output-dir", str(out_dir), str(pt2)])
    require_success(run, "evaluation of the quantized_decomposed ops")
    for i, want in enumerate(expected):
        got = np.load(out_dir / f"out{i}.npy")
        assert got.dtype == want.dtype and got.shape == want.shape, f"output {i}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
        # Bit for bit, signed zeros included.
        assert got.tobytes() == want.tobytes(), f"output {i} differs at {np.argwhere(got != want)[:5].tolist()}"
