"""convert(..., incremental=...): the incremental strategies of tico-run --incremental from Python
(docs/incremental.md), on a small two-input model: the same file as the command line, a
manifest on the model whose strategies were validated against the monolith, and checked options."""

import json

import pytest
import torch
from torch import nn

import tico_native
from conftest import run_tool, write_pt2


class TwoTowers(nn.Module):
    """An image tower and a text tower meeting in one product: changing one input leaves the
    other tower's result reusable."""

    def __init__(self):
        super().__init__()
        self.image = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 8))
        self.text = nn.Sequential(nn.Embedding(20, 16), nn.Linear(16, 8))

    def forward(self, pixels, tokens):
        image = self.image(pixels)              # [2, 8]
        text = self.text(tokens).mean(1)        # [3, 8]
        return image @ text.t()


@pytest.fixture(scope="module")
def towers():
    torch.manual_seed(0)
    model = TwoTowers().eval()
    example = (torch.randn(2, 12), torch.randint(0, 20, (3, 5)))
    return model, example, torch.export.export(model, example)


def test_incremental_strategies_from_python_are_the_command_lines(towers, tmp_path):
    model, example, program = towers
    circle = tico_native.convert_from_exported_program(program, incremental=True)
    manifest = circle.incremental_manifest
    assert manifest is not None and manifest["format"] == "incremental.manifest.v1", manifest
    names = [s["name"] for s in manifest["strategies"]]
    assert names == ["monolithic", "changed_pixels", "changed_tokens", "all_changed"], names
    # Every strategy was run against the monolith before it was written (bitwise, seeded inputs).
    assert all(s["validated"] for s in manifest["strategies"]), manifest["strategies"]
    # The plain interface still runs the monolith, as eager.
    torch.testing.assert_close(circle(*example), model(*example), rtol=1e-5, atol=1e-5)
    # From a .pt2 file the archive's example inputs validate too, as with tico-run
    # --incremental, which writes the same bytes; the manifests differ only in saying so.
    pt2 = write_pt2(program, tmp_path)
    out = tmp_path / "towers.circle"
    run_tool("tico-run", "--pipeline", tico_native.DEFAULT_PIPELINE, pt2, "-o", out, "--incremental", check=True)
    from_file = tico_native.convert_from_pt2(pt2, incremental=True)
    assert out.read_bytes() == from_file.circle_binary
    assert json.loads((tmp_path / "towers.incremental.json").read_text()) == from_file.incremental_manifest
    assert manifest["validation"]["inputs"] == "seeded"
    assert from_file.incremental_manifest["validation"]["inputs"] == "seeded + example-inputs"
    assert {**from_file.incremental_manifest, "validation": None} == {**manifest, "validation": None}


def test_incremental_options_reach_the_pass(towers):
    _, _, program = towers
    circle = tico_native.convert_from_exported_program(
        program, incremental={"groups": ["pixels+tokens"], "max_strategies": 4, "budget": "64KiB"})
    manifest = circle.incremental_manifest
    # One group holding both inputs: no input changes alone, so only the monolith remains.
    assert [s["name"] for s in manifest["strategies"]] == ["monolithic"], manifest["strategies"]
    plain = tico_native.convert_from_exported_program(program)
    assert plain.incremental_manifest is None


@pytest.mark.parametrize(
    "incremental, message",
    [
        ({"group": ["pixels"]}, "unknown incremental option 'group' (did you mean 'groups'?)"),
        ({"max_strategies": "8"}, "incremental option 'max_strategies'"),
        ({"budget": "64 apples"}, "incremental option 'budget' must be a byte count"),
        ({"budget": -1}, "incremental option 'budget' must be in 0 .. 2**63-1, got -1"),
        # Past a signed 64-bit count the extension raised a raw std::bad_cast (tracker issue 31).
        ({"max_strategies": 2**70}, "incremental option 'max_strategies' must be in 0 .. 2**63-1, got 1180591620717411303424"),
        ({"budget": 2**64}, "incremental option 'budget' must be in 0 .. 2**63-1"),
        ({"groups": ["nonexistent"]}, "nonexistent"),
        ("yes", "incremental must be True, False, None or a dict"),
    ],
)
def test_bad_incremental_options_raise_config_or_conversion_errors(towers, incremental, message):
    _, _, program = towers
    with pytest.raises(tico_native.TicoError) as raised:
        tico_native.convert_from_exported_program(program, incremental=incremental)
    assert message in str(raised.value)
