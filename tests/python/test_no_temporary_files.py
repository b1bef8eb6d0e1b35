"""Conversion from Python reaches C++ in memory: the .pt2 archive is read from the BytesIO
buffer torch.export.save wrote, and the Circle file comes back as bytes. Nothing is written to
disk on the way: the temporary directory and the working directory stay empty."""

import os
import tempfile

import torch

import tico_native


def listing(*dirs):
    return {d: sorted(os.listdir(d)) for d in dirs}


def test_converting_writes_no_file(cnn_program, tmp_path, monkeypatch):
    tmpdir, workdir = tmp_path / "tmp", tmp_path / "work"
    tmpdir.mkdir()
    workdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    monkeypatch.chdir(workdir)
    assert tempfile.gettempdir() == str(tmpdir)
    circle = tico_native.convert_from_exported_program(cnn_program)
    circle(torch.randn(2, 3, 16, 16))
    circle.inspect()
    # Incremental strategies too: packaging and validation against the monolith stay in memory.
    tico_native.convert_from_exported_program(cnn_program, incremental=True).incremental_manifest
    assert listing(tmpdir, workdir) == {tmpdir: [], workdir: []}


def written_bytes() -> int:
    """Bytes this process passed to write-family system calls so far (/proc/self/io wchar)."""
    with open("/proc/self/io") as f:
        return int(next(line for line in f if line.startswith("wchar:")).split()[1])


class Wide(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(512, 512)  # 1 MiB of weights

    def forward(self, x):
        return torch.relu(self.fc(x))


def test_nothing_of_the_model_is_written_anywhere(tmp_path):
    program = torch.export.export(Wide().eval(), (torch.randn(2, 512),))
    tico_native.convert_from_exported_program(program)  # plugins loaded, caches warm
    start = written_bytes()
    circle = tico_native.convert_from_exported_program(program)
    during = written_bytes() - start
    assert len(circle.circle_binary) > 1 << 20
    # Neither the archive nor the Circle file went through a file (or a pipe): at most a few
    # log lines were written.
    assert during < 64 * 1024, during
    # The measurement sees a real write: saving the model writes all of it.
    start = written_bytes()
    circle.save(tmp_path / "m.circle")
    assert written_bytes() - start >= len(circle.circle_binary)
