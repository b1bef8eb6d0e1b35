"""Shared pieces of the tico_native tests: the package's own command-line tools (it ships
tico-run, tico-circle and pt2-to-circle in <package>/bin) and small models."""

import subprocess
from pathlib import Path

import pytest
import torch

import tico_native
from tico_native import _resources


def tool(name: str) -> str:
    path = _resources.BIN_DIR / name
    assert path.exists(), f"the package lacks {path}"
    return str(path)


def run_tool(name: str, *args, check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([tool(name), *map(str, args)], capture_output=True, text=True, check=check)


def cli_error(result: subprocess.CompletedProcess, name: str) -> str:
    """The message a failed tool printed, without its "<tool>: error: " prefix."""
    assert result.returncode == 1, result.stderr
    prefix = f"{name}: error: "
    assert result.stderr.startswith(prefix), result.stderr
    return result.stderr[len(prefix) :].rstrip("\n")


class SmallCNN(torch.nn.Module):
    """Conv + batch norm + pooling + linear head; exported with a dynamic batch."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.pool = torch.nn.AdaptiveAvgPool2d(2)
        self.fc = torch.nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        return torch.softmax(self.fc(x.flatten(1)), dim=-1)


def small_cnn() -> torch.nn.Module:
    torch.manual_seed(0)
    model = SmallCNN().eval()
    with torch.no_grad():  # non-trivial batch-norm statistics
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    return model


@pytest.fixture(scope="session")
def cnn():
    return small_cnn()


@pytest.fixture(scope="session")
def cnn_program(cnn):
    batch = torch.export.Dim("batch", min=1, max=64)
    return torch.export.export(cnn, (torch.randn(2, 3, 16, 16),), dynamic_shapes=({0: batch},))


@pytest.fixture(scope="session")
def cnn_circle(cnn_program):
    return tico_native.convert_from_exported_program(cnn_program)


def write_pt2(program, directory: Path, name: str = "model.pt2") -> Path:
    path = directory / name
    torch.export.save(program, path)
    return path
