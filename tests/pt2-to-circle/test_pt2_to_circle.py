"""pt2-to-circle: the original converter's command line (-i/-o/-c/-v) on tico's default
pipeline. The config file is the original's format (version "1.0" + CompileConfigV1 fields);
where the original ignored mistakes silently, tico names them with file:line:col."""

import os
import subprocess
from pathlib import Path

import pytest
import torch

TOOL = os.environ.get("TICO_PT2_TO_CIRCLE", "pt2-to-circle")
TICO_RUN = os.environ.get("TICO_RUN", "tico-run")
TICO_CIRCLE = os.environ.get("TICO_CIRCLE", "tico-circle")


class ConstMatmul(torch.nn.Module):
    """x @ W with a constant 2-D W: FULLY_CONNECTED when convert_rhs_const_mm_to_fc holds."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.randn(8, 4))

    def forward(self, x):
        return torch.relu(torch.matmul(x, self.w))


@pytest.fixture(scope="module")
def pt2(tmp_path_factory) -> Path:
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("models") / "matmul.pt2"
    torch.export.save(torch.export.export(ConstMatmul().eval(), (torch.randn(3, 8),)), path)
    return path


def run(*args, cwd=None):
    return subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def operators(circle: Path) -> str:
    out = subprocess.run([TICO_CIRCLE, "inspect", str(circle)], capture_output=True, text=True, check=True)
    return next(line for line in out.stdout.splitlines() if "operator counts:" in line)


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_short_and_long_flags_give_tico_runs_default_pipeline_output(pt2, tmp_path):
    short, long_ = tmp_path / "short.circle", tmp_path / "long.circle"
    assert run("-i", pt2, "-o", short).returncode == 0
    assert run("--input", pt2, "--output", long_).returncode == 0
    reference = tmp_path / "tico-run.circle"
    subprocess.run([TICO_RUN, str(pt2), "-o", str(reference)], check=True, capture_output=True)
    assert short.read_bytes() == long_.read_bytes() == reference.read_bytes()
    assert "FULLY_CONNECTED" in operators(short)


def test_help_lists_the_original_flags():
    result = run("-h")
    assert result.returncode == 0
    for flag in ("-i,--input", "-o,--output", "-c,--config", "-v,--verbose"):
        assert flag in result.stdout


@pytest.mark.parametrize("args", [["-o", "x.circle"], ["-i", "x.pt2"], ["-i", "x.pt2", "-o", "y", "--bogus"]])
def test_usage_errors_exit_2_like_argparse(args, tmp_path):
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr
    assert not list(tmp_path.iterdir())


def test_config_flips_convert_rhs_const_mm_to_fc(pt2, tmp_path):
    off = write(tmp_path / "off.yaml", 'version: "1.0"\nconvert_rhs_const_mm_to_fc: false\n')
    on = write(tmp_path / "on.yaml", 'version: "1.0"\nconvert_rhs_const_mm_to_fc: true\n')
    assert run("-i", pt2, "-o", tmp_path / "off.circle", "-c", off).returncode == 0
    assert run("-i", pt2, "-o", tmp_path / "on.circle", "--config", on).returncode == 0
    assert (tmp_path / "off.circle").read_bytes() != (tmp_path / "on.circle").read_bytes()
    assert "FULLY_CONNECTED" not in operators(tmp_path / "off.circle")
    assert "BATCH_MATMUL" in operators(tmp_path / "off.circle")
    assert "FULLY_CONNECTED" in operators(tmp_path / "on.circle")


def test_config_takes_the_yaml_1_1_booleans_the_original_loader_read(pt2, tmp_path):
    no = write(tmp_path / "no.yaml", 'version: "1.0"\nconvert_rhs_const_mm_to_fc: no\n')
    false = write(tmp_path / "false.yaml", 'version: "1.0"\nconvert_rhs_const_mm_to_fc: False\n')
    assert run("-i", pt2, "-o", tmp_path / "no.circle", "-c", no).returncode == 0
    assert run("-i", pt2, "-o", tmp_path / "false.circle", "-c", false).returncode == 0
    assert (tmp_path / "no.circle").read_bytes() == (tmp_path / "false.circle").read_bytes()


def test_config_with_only_the_version_changes_nothing(pt2, tmp_path):
    cfg = write(tmp_path / "c.yaml", 'version: "1.0"\n')
    assert run("-i", pt2, "-o", tmp_path / "a.circle", "-c", cfg).returncode == 0
    assert run("-i", pt2, "-o", tmp_path / "b.circle").returncode == 0
    assert (tmp_path / "a.circle").read_bytes() == (tmp_path / "b.circle").read_bytes()


def test_circle_optimize_false_selects_the_minimal_pipeline(pt2, tmp_path):
    # The original 0.3.0's circle_optimize (on unless set false): its Circle O1 optimization
    # after serialization. tico's default pipeline runs the O1 stage, which fuses the RELU into
    # the FULLY_CONNECTED; false selects minimal.yaml, which leaves the RELU separate.
    on = write(tmp_path / "on.yaml", 'version: "1.0"\ncircle_optimize: true\n')
    off = write(tmp_path / "off.yaml", 'version: "1.0"\ncircle_optimize: false\n')
    assert run("-i", pt2, "-o", tmp_path / "on.circle", "-c", on).returncode == 0
    assert run("-i", pt2, "-o", tmp_path / "off.circle", "-c", off).returncode == 0
    assert run("-i", pt2, "-o", tmp_path / "plain.circle").returncode == 0
    assert (tmp_path / "on.circle").read_bytes() == (tmp_path / "plain.circle").read_bytes()
    assert "RELU" in operators(tmp_path / "off.circle")
    assert "RELU" not in operators(tmp_path / "on.circle")
    assert "FULLY_CONNECTED" in operators(tmp_path / "on.circle")


def test_circle_optimize_must_be_a_boolean(pt2, tmp_path):
    err = expect_failure(pt2, tmp_path, 'version: "1.0"\ncircle_optimize: "yes"\n')
    assert "'circle_optimize' must be true or false" in err


def expect_failure(pt2, tmp_path, config_text: str) -> str:
    cfg = write(tmp_path / "cfg.yaml", config_text)
    out = tmp_path / "out.circle"
    result = run("-i", pt2, "-o", out, "-c", cfg)
    assert result.returncode == 1, result.stderr
    assert not out.exists(), "a failed run must not write the output"
    assert [p.name for p in tmp_path.iterdir()] == ["cfg.yaml"], "nor leave anything else behind"
    assert result.stderr.startswith("pt2-to-circle: error: ")
    return result.stderr


def test_unknown_key_is_an_error_at_its_line_saying_the_original_ignored_it(pt2, tmp_path):
    err = expect_failure(pt2, tmp_path, 'version: "1.0"\nremove_constant_input: true\nconvert_rhs_const_mm_to_fcc: false\n')
    cfg = tmp_path / "cfg.yaml"
    assert f"{cfg}:3:1: error: unknown config key 'convert_rhs_const_mm_to_fcc' (did you mean 'convert_rhs_const_mm_to_fc'?)" in err
    assert f"{cfg}: note: the original pt2-to-circle silently ignored unknown keys; tico refuses them" in err


def test_every_problem_is_reported_at_once(pt2, tmp_path):
    err = expect_failure(pt2, tmp_path, 'version: "1.0"\nfoo: true\nconvert_lhs_const_mm_to_fc: "false"\n')
    cfg = tmp_path / "cfg.yaml"
    assert f"{cfg}:2:1: error: unknown config key 'foo'" in err
    assert f"{cfg}:3:29: error: 'convert_lhs_const_mm_to_fc' must be true or false, got \"false\"" in err


def test_missing_version_is_an_error_like_the_originals(pt2, tmp_path):
    err = expect_failure(pt2, tmp_path, "convert_rhs_const_mm_to_fc: false\n")
    assert "'version' field must be provided in the config file (latest: \"1.0\")" in err


def test_unsupported_version_is_an_error_like_the_originals(pt2, tmp_path):
    err = expect_failure(pt2, tmp_path, 'version: "2.0"\n')
    assert f"{tmp_path / 'cfg.yaml'}:1:10: error: unsupported version '2.0' (latest: \"1.0\")" in err


def test_unquoted_version_number_is_rejected_with_the_fix(pt2, tmp_path):
    # The original compares the loaded value with the text "1.0"; YAML reads 1.0 as a float.
    err = expect_failure(pt2, tmp_path, "version: 1.0\n")
    assert 'write version: "1.0"' in err


def test_config_that_is_not_a_mapping_or_not_yaml(pt2, tmp_path):
    assert "must be a mapping" in expect_failure(pt2, tmp_path, "- version\n")
    assert "invalid YAML" in expect_failure(pt2, tmp_path, 'version: "1.0"\n  x: [\n')


def test_duplicate_keys_are_errors(pt2, tmp_path):
    err = expect_failure(pt2, tmp_path, 'version: "1.0"\nremove_constant_input: true\nremove_constant_input: false\n')
    assert "duplicate key 'remove_constant_input'" in err


def test_failed_conversion_keeps_an_existing_output(tmp_path):
    bad = write(tmp_path / "bad.pt2", "not an archive")
    out = tmp_path / "out.circle"
    out.write_bytes(b"previous")
    result = run("-i", bad, "-o", out)
    assert result.returncode == 1
    assert "pt2-to-circle: error:" in result.stderr
    assert out.read_bytes() == b"previous"


def test_an_output_that_is_the_input_is_refused(pt2, tmp_path):
    model = tmp_path / "m.pt2"
    model.write_bytes(pt2.read_bytes())
    result = run("-i", "m.pt2", "-o", "./m.pt2", cwd=tmp_path)
    assert result.returncode == 1
    assert "output './m.pt2' is the same file as the input 'm.pt2'; refusing to overwrite an input" in result.stderr
    assert model.read_bytes() == pt2.read_bytes()


def test_a_read_only_output_needs_force(pt2, tmp_path):
    out = tmp_path / "o.circle"
    out.write_bytes(b"previous")
    out.chmod(0o444)
    result = run("-i", pt2, "-o", out)
    assert result.returncode == 1
    assert "is read-only (mode 0444); use --force to replace it" in result.stderr
    assert out.read_bytes() == b"previous"
    assert run("-i", pt2, "-o", out, "--force").returncode == 0
    assert out.read_bytes()[4:8] == b"CIR0"
    assert out.stat().st_mode & 0o777 == 0o444, "the replaced file keeps its mode"


def test_missing_config_file(pt2, tmp_path):
    result = run("-i", pt2, "-o", tmp_path / "o.circle", "-c", tmp_path / "absent.yaml")
    assert result.returncode == 1
    assert "cannot read config file" in result.stderr
    assert not (tmp_path / "o.circle").exists()


def test_verbose_prints_debug_logs(pt2, tmp_path):
    quiet = run("-i", pt2, "-o", tmp_path / "q.circle")
    verbose = run("-i", pt2, "-o", tmp_path / "v.circle", "-v")
    assert verbose.returncode == 0
    assert len(verbose.stderr) > len(quiet.stderr)
    assert (tmp_path / "q.circle").read_bytes() == (tmp_path / "v.circle").read_bytes()
