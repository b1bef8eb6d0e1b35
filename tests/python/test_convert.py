"""tico_native.convert*: real modules converted in memory, run on the built-in interpreter and
compared with PyTorch eager (rtol = atol = 1e-5 for float32)."""

import numpy as np
import pytest
import torch

import tico_native
from conftest import small_cnn

RTOL = ATOL = 1e-5


def assert_close(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=RTOL, atol=ATOL)


def test_cnn_with_dynamic_batch_matches_eager_at_several_batch_sizes(cnn, cnn_circle):
    assert cnn_circle.inputs[0].shape == (-1, 3, 16, 16)
    assert cnn_circle.inputs[0].dtype == "float32"
    for batch in (1, 2, 5):
        x = torch.randn(batch, 3, 16, 16)
        out = cnn_circle(x)
        assert isinstance(out, torch.Tensor)
        with torch.no_grad():
            assert_close(out, cnn(x))


def test_convert_exports_like_the_original_and_matches_eager():
    model = small_cnn()
    x = torch.randn(3, 3, 16, 16)
    batch = torch.export.Dim("batch", min=1, max=8)
    circle = tico_native.convert(model, (x,), dynamic_shapes=({0: batch},))
    assert isinstance(circle, tico_native.CircleModel)
    assert isinstance(circle.circle_binary, bytes)
    with torch.no_grad():
        assert_close(circle(x), model(x))


def test_numpy_in_numpy_out(cnn, cnn_circle):
    x = np.random.default_rng(0).standard_normal((2, 3, 16, 16), dtype=np.float32)
    out = cnn_circle(x)
    assert isinstance(out, np.ndarray) and out.dtype == np.float32
    with torch.no_grad():
        np.testing.assert_allclose(out, cnn(torch.from_numpy(x)).numpy(), rtol=RTOL, atol=ATOL)


class TwoInputs(torch.nn.Module):
    def forward(self, x, y, scale: float = 2.0):
        return x * scale + y, (x - y).sum(dim=-1)


def test_several_outputs_kwargs_by_name_and_a_list_result():
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    circle = tico_native.convert(TwoInputs(), (x,), kwargs={"y": y})
    expected = TwoInputs()(x, y)
    by_position = circle(x, y)
    by_name = circle(x, y=y)
    assert isinstance(by_position, list) and len(by_position) == 2
    for got in (by_position, by_name):
        for a, b in zip(got, expected):
            assert_close(a, b)
    with pytest.raises(TypeError, match="missing model input 'y'"):
        circle(x, z=y)


def test_integer_and_bool_tensors():
    class Gather(torch.nn.Module):
        def forward(self, table, index, mask):
            return torch.where(mask, table[index], torch.zeros_like(table[index]))

    table, index = torch.randn(5, 4), torch.tensor([4, 0, 2])
    mask = torch.tensor([[True, False, True, True]] * 3)
    circle = tico_native.convert(Gather(), (table, index, mask))
    assert [s.dtype for s in circle.inputs] == ["float32", "int64", "bool"]
    assert_close(circle(table, index, mask), Gather()(table, index, mask))


def test_convert_from_pt2_gives_the_same_bytes_as_in_memory(cnn_program, cnn_circle, tmp_path):
    path = tmp_path / "cnn.pt2"
    torch.export.save(cnn_program, path)
    assert tico_native.convert_from_pt2(path).circle_binary == cnn_circle.circle_binary
    assert tico_native.convert_from_pt2(str(path)).circle_binary == cnn_circle.circle_binary


def test_conversion_is_deterministic(cnn_program, cnn_circle):
    assert tico_native.convert_from_exported_program(cnn_program).circle_binary == cnn_circle.circle_binary


class ConstMatmul(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.randn(8, 4))

    def forward(self, x):
        return torch.matmul(x, self.w)


def operator_counts(circle) -> str:
    return next(line for line in circle.inspect().splitlines() if "operator counts:" in line)


def test_config_fields_reach_the_passes():
    torch.manual_seed(0)
    model, x = ConstMatmul().eval(), torch.randn(3, 8)
    program = torch.export.export(model, (x,))
    fc = tico_native.convert_from_exported_program(program)
    bmm = tico_native.convert_from_exported_program(program, config={"convert_rhs_const_mm_to_fc": False})
    assert "FULLY_CONNECTED" in operator_counts(fc)
    assert "FULLY_CONNECTED" not in operator_counts(bmm) and "BATCH_MATMUL" in operator_counts(bmm)
    for circle in (fc, bmm):
        assert_close(circle(x), model(x))


def test_config_object_with_to_dict_like_the_originals_compile_config():
    class CompileConfigV1Like:  # the original's CompileConfigV1 offers to_dict()
        def to_dict(self):
            return {"convert_rhs_const_mm_to_fc": False, "remove_constant_input": False}

    program = torch.export.export(ConstMatmul().eval(), (torch.randn(3, 8),))
    circle = tico_native.convert_from_exported_program(program, config=CompileConfigV1Like())
    assert "BATCH_MATMUL" in operator_counts(circle)


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


def test_circle_optimize_of_the_originals_config_runs_the_circle_o1_stages():
    # The original 0.3.0's CompileConfigV1 has circle_optimize (on by default): its Circle O1
    # optimization. tico's default pipeline runs it (the RELU is fused); False selects the
    # packaged minimal.yaml, which leaves the RELU.
    class CompileConfigV1Like:
        def __init__(self, circle_optimize):
            self.circle_optimize = circle_optimize

        def to_dict(self):
            return {"convert_rhs_const_mm_to_fc": True, "circle_optimize": self.circle_optimize}

    torch.manual_seed(0)
    model = LinearRelu().eval()
    x = torch.randn(3, 8)
    optimized = tico_native.convert(model, (x,), config=CompileConfigV1Like(True))
    plain = tico_native.convert(model, (x,), config=CompileConfigV1Like(False))
    assert "RELU" not in operator_counts(optimized)
    assert "RELU" in operator_counts(plain)
    assert optimized.circle_binary == tico_native.convert(model, (x,)).circle_binary
    assert plain.circle_binary == tico_native.convert(model, (x,), pipeline=tico_native._resources.MINIMAL_PIPELINE).circle_binary
    with torch.no_grad():
        expected = model(x)
    for circle in (optimized, plain):
        np.testing.assert_allclose(np.asarray(circle(x)), expected.numpy(), rtol=RTOL, atol=ATOL)


def test_circle_optimize_must_be_a_bool():
    with pytest.raises(tico_native.ConfigError, match="circle_optimize"):
        tico_native.convert(LinearRelu().eval(), (torch.randn(3, 8),), config={"circle_optimize": "yes"})


def test_custom_pipeline_manifest(tmp_path):
    manifest = tmp_path / "p.yaml"
    manifest.write_text(tico_native.DEFAULT_PIPELINE.read_text().replace("convert_rhs_const_mm_to_fc: true", "convert_rhs_const_mm_to_fc: false"))
    assert "convert_rhs_const_mm_to_fc: false" in manifest.read_text()
    program = torch.export.export(ConstMatmul().eval(), (torch.randn(3, 8),))
    assert "BATCH_MATMUL" in operator_counts(tico_native.convert_from_exported_program(program, pipeline=manifest))
