"""Errors raise the package's exception classes carrying exactly the text the CLI prints."""

import numpy as np
import pytest
import torch

import tico_native
from tico_native import errors
from conftest import cli_error, run_tool, write_pt2


class FFTMagnitude(torch.nn.Module):
    """torch.fft has no Circle lowering: a conversion must fail listing the op and its count."""

    def forward(self, x):
        return torch.fft.fft(x).abs() + torch.fft.fft(x * 2).abs()


def test_unsupported_ops_raise_with_the_clis_text(tmp_path):
    program = torch.export.export(FFTMagnitude(), (torch.randn(4, 8),))
    with pytest.raises(tico_native.UnsupportedOpsError) as raised:
        tico_native.convert_from_exported_program(program)
    pt2 = write_pt2(program, tmp_path)
    cli = cli_error(run_tool("tico-run", "--pipeline", tico_native.DEFAULT_PIPELINE, pt2, "-o", tmp_path / "x.circle"), "tico-run")
    assert str(raised.value) == cli
    assert "aten::fft_fft.default x2" in cli
    (op,) = [o for o in raised.value.ops if o.op == "aten::fft_fft.default"]
    assert op.count == 2 and op.reason == "no lowering registered" and len(op.nodes) == 2
    assert isinstance(raised.value, tico_native.ConversionError)
    assert isinstance(raised.value, tico_native.TicoError)
    assert not (tmp_path / "x.circle").exists()


def test_a_bad_pipeline_raises_manifest_error_with_the_clis_text(cnn_program, tmp_path):
    manifest = tmp_path / "bad.yaml"
    manifest.write_text("schema: tico.pipeline/v1\nstages:\n  - name: s\n    passes: [remove-nopp]\n")
    with pytest.raises(tico_native.ManifestError) as raised:
        tico_native.convert_from_exported_program(cnn_program, pipeline=manifest)
    pt2 = write_pt2(cnn_program, tmp_path)
    assert str(raised.value) == cli_error(run_tool("tico-run", "--pipeline", manifest, pt2, "-o", tmp_path / "x.circle"), "tico-run")
    assert f"{manifest}:4:14: error: unknown pass 'remove-nopp'" in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_a_missing_pipeline_raises_manifest_error(cnn_program, tmp_path):
    with pytest.raises(tico_native.ManifestError, match="absent.yaml"):
        tico_native.convert_from_exported_program(cnn_program, pipeline=tmp_path / "absent.yaml")


def test_unknown_config_keys_raise_config_error(cnn_program):
    with pytest.raises(tico_native.ConfigError) as raised:
        tico_native.convert_from_exported_program(cnn_program, config={"convert_rhs_const_mm_to_fcc": False})
    message = str(raised.value)
    assert message.startswith("unknown config key 'convert_rhs_const_mm_to_fcc' (did you mean 'convert_rhs_const_mm_to_fc'?)")
    assert "valid keys: legalize_causal_mask_value, remove_constant_input" in message
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("value", [1, "false", None])
def test_config_values_must_be_bool(cnn_program, value):
    with pytest.raises(tico_native.ConfigError, match="'remove_constant_input' must be True or False"):
        tico_native.convert_from_exported_program(cnn_program, config={"remove_constant_input": value})


def test_config_must_be_a_mapping(cnn_program):
    with pytest.raises(tico_native.ConfigError, match="config must be a dict"):
        tico_native.convert_from_exported_program(cnn_program, config=["remove_constant_input"])


def test_a_bad_pt2_file_raises_conversion_error_with_the_clis_text(tmp_path):
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(tico_native.ConversionError) as raised:
        tico_native.convert_from_pt2(bad)
    assert str(raised.value) == cli_error(run_tool("tico-run", "--pipeline", tico_native.DEFAULT_PIPELINE, bad, "-o", tmp_path / "x.circle"), "tico-run")


def test_bytes_that_are_not_circle_raise_circle_format_error():
    with pytest.raises(tico_native.CircleFormatError):
        tico_native.CircleModel(b"definitely not a circle model")


def test_wrong_inputs_raise_interpreter_error(cnn_circle):
    with pytest.raises(tico_native.InterpreterError, match="input"):
        cnn_circle(torch.randn(2, 3, 16, 16), torch.randn(1))
    with pytest.raises(tico_native.InterpreterError):
        cnn_circle(torch.zeros(2, 3, 16, 16, dtype=torch.int32))
    with pytest.raises(tico_native.InterpreterError):
        cnn_circle(np.zeros((2, 3, 15, 16), dtype=np.float32))
    with pytest.raises(TypeError, match="model inputs must be"):
        cnn_circle("a string")


def test_the_exception_hierarchy():
    for cls in (errors.PluginError, errors.ManifestError, errors.ConfigError, errors.ConversionError,
                errors.CircleFormatError, errors.InterpreterError):
        assert issubclass(cls, tico_native.TicoError)
    assert issubclass(errors.UnsupportedOpsError, errors.ConversionError)


def _convert_to_file(pt2, extra):
    from tico_native import _resources

    return _resources.converter().convert_file(str(pt2), [str(tico_native.DEFAULT_PIPELINE)], {}, None, extra)


def test_an_output_that_is_calibration_data_is_refused_before_any_work(cnn_program, tmp_path):
    """The converter's output file gets tico-run's checks: it may not be the calibration file, lie
    inside a calibration folder, or be the model; the refused target keeps its bytes."""
    from tico_native import _resources

    pt2 = write_pt2(cnn_program, tmp_path)
    calibration = tmp_path / "cal.npz"
    np.savez(calibration, x=np.random.default_rng(0).standard_normal((2, 3, 16, 16), dtype=np.float32))
    before = calibration.read_bytes()
    recipe = str(_resources.recipe_path("cnn-uint8"))
    with pytest.raises(tico_native.errors.OutputError, match="is the same file as the input .*cal.npz"):
        _convert_to_file(pt2, {"quant": recipe, "calibration": {"path": f"npz:{calibration}"}, "output": str(calibration)})
    assert calibration.read_bytes() == before

    folder = tmp_path / "cal"
    folder.mkdir()
    np.save(folder / "0.npy", np.zeros((2, 3, 16, 16), np.float32))
    with pytest.raises(tico_native.errors.OutputError, match="is inside the calibration data folder"):
        _convert_to_file(pt2, {"quant": recipe, "calibration": {"path": str(folder)}, "output": str(folder / "0.npy")})
    assert np.load(folder / "0.npy").shape == (2, 3, 16, 16)

    model_bytes = pt2.read_bytes()
    with pytest.raises(tico_native.errors.OutputError, match="is the same file as the input"):
        _convert_to_file(pt2, {"output": str(pt2)})
    assert pt2.read_bytes() == model_bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal", "cal.npz", "model.pt2"]
