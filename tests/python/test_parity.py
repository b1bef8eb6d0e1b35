"""The Python API and the command-line tools give the same bytes for the same program, and
CircleModel.save/load round-trips them unchanged."""

import numpy as np
import torch

import tico_native
from conftest import run_tool, write_pt2


def test_same_bytes_as_tico_run_and_pt2_to_circle(cnn_program, cnn_circle, tmp_path):
    pt2 = write_pt2(cnn_program, tmp_path)
    run_tool("tico-run", "--pipeline", tico_native.DEFAULT_PIPELINE, pt2, "-o", tmp_path / "run.circle", check=True)
    run_tool("pt2-to-circle", "-i", pt2, "-o", tmp_path / "compat.circle", check=True)
    assert (tmp_path / "run.circle").read_bytes() == cnn_circle.circle_binary
    assert (tmp_path / "compat.circle").read_bytes() == cnn_circle.circle_binary


def test_save_load_round_trip_is_byte_identical(cnn_circle, cnn, tmp_path):
    path = tmp_path / "m.circle"
    cnn_circle.save(path)
    assert path.read_bytes() == cnn_circle.circle_binary
    loaded = tico_native.CircleModel.load(path)
    assert loaded.circle_binary == cnn_circle.circle_binary
    loaded.save(tmp_path / "again.circle")
    assert (tmp_path / "again.circle").read_bytes() == cnn_circle.circle_binary
    x = torch.randn(4, 3, 16, 16)
    torch.testing.assert_close(loaded(x), cnn_circle(x), rtol=0, atol=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.circle", "m.circle"]


def test_save_replaces_an_existing_file(cnn_circle, tmp_path):
    path = tmp_path / "m.circle"
    path.write_bytes(b"old")
    cnn_circle.save(str(path))
    assert path.read_bytes() == cnn_circle.circle_binary


def test_save_keeps_links_devices_and_fifos(cnn_circle, tmp_path):
    """Issue 31: save() replaced symbolic links, FIFOs and devices with regular files."""
    import os
    import stat
    import threading

    import pytest

    real = tmp_path / "real.circle"
    real.write_bytes(b"old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.circle"
    link.symlink_to("real.circle")
    cnn_circle.save(link)
    assert link.is_symlink() and real.read_bytes() == cnn_circle.circle_binary
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    # /dev/zero stands for /dev/null (some containers make /dev/null a regular file).
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    cnn_circle.save(zero)
    assert zero.is_symlink() and stat.S_ISCHR(os.stat("/dev/zero").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    cnn_circle.save(fifo)
    reader.join(timeout=30)
    assert received == [cnn_circle.circle_binary] and stat.S_ISFIFO(os.stat(fifo).st_mode)
    (tmp_path / "dangling").symlink_to("nowhere.circle")
    with pytest.raises(tico_native.OutputError, match="symbolic link to 'nowhere.circle', which does not exist"):
        cnn_circle.save(tmp_path / "dangling")
    with pytest.raises(OSError, match="it is a directory"):
        cnn_circle.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "link.circle", "pipe", "real.circle", "zero"]


def test_inspect_is_tico_circle_inspect(cnn_circle, tmp_path):
    path = tmp_path / "m.circle"
    cnn_circle.save(path)
    for flags in ([], ["--tensors", "--operators", "--buffers", "--verify"]):
        cli = run_tool("tico-circle", "inspect", path, *flags, check=True).stdout
        ours = tico_native.CircleModel.load(path).inspect(**{f[2:]: True for f in flags})
        assert ours == cli
    cli_json = run_tool("tico-circle", "inspect", path, "--json", check=True).stdout
    assert tico_native.CircleModel.load(path).inspect(as_json=True) == cli_json


def test_paths_with_a_nul_byte_are_refused(cnn_circle, cnn_program, tmp_path):
    """Issue 31: a NUL in a path cut it short in C ("m.circle\\0.bak" wrote "m.circle")."""
    import pytest

    cut = str(tmp_path / "m.circle")
    with pytest.raises(ValueError, match="embedded null byte"):
        cnn_circle.save(cut + "\0.bak")
    with pytest.raises(ValueError, match="embedded null byte"):
        tico_native.CircleModel.load(cut + "\0.bak")
    pt2 = write_pt2(cnn_program, tmp_path)
    with pytest.raises(ValueError, match="embedded null byte"):
        tico_native.convert_from_pt2(str(pt2) + "\0x")
    assert not (tmp_path / "m.circle").exists()


def test_inspect_escapes_control_bytes_in_names(cnn_circle):
    """Issue 31: inspect printed raw ESC and NUL bytes from names; they are shown as \\xNN, and
    --json escapes them as JSON does."""
    import json
    name = cnn_circle.outputs[0].name.encode()
    assert len(name) >= 3 and cnn_circle.circle_binary.count(name) >= 1
    forged = cnn_circle.circle_binary.replace(name, b"\x1b[\x00" + name[3:])
    text = tico_native.CircleModel(forged).inspect(tensors=True)
    assert "\x1b" not in text and "\x00" not in text
    assert "\\x1b[\\x00" + name[3:].decode() in text
    doc = json.loads(tico_native.CircleModel(forged).inspect(tensors=True, as_json=True))
    assert any(t["name"] == "\x1b[\x00" + name[3:].decode() for t in doc["subgraphs"][0]["tensors"])


def test_names_that_are_not_utf8_give_strings(cnn_circle, tmp_path):
    """Issue 31: a name with bytes that are not UTF-8 raised UnicodeDecodeError (names, inspect)
    or a raw JSON error (inspect as_json). Names keep the bytes as lone surrogates (os.fsdecode's
    convention), inspect shows them as \\xNN, its JSON as U+FFFD, as tico-circle inspect --json."""
    import json
    name = cnn_circle.outputs[0].name.encode()
    assert len(name) >= 3 and cnn_circle.circle_binary.count(name) == 1
    forged_name = b"\xff\xfe" + name[2:]
    model = tico_native.CircleModel(cnn_circle.circle_binary.replace(name, forged_name))
    got = model.outputs[0].name
    assert got.encode("utf-8", "surrogateescape") == forged_name
    assert "\\xff\\xfe" + name[2:].decode() in model.inspect(tensors=True)
    doc = json.loads(model.inspect(tensors=True, as_json=True))
    assert any(t["name"] == "\ufffd\ufffd" + name[2:].decode() for t in doc["subgraphs"][0]["tensors"])
    path = tmp_path / "forged.circle"
    model.save(path)
    cli_json = run_tool("tico-circle", "inspect", path, "--tensors", "--json", check=True).stdout
    assert tico_native.CircleModel.load(path).inspect(tensors=True, as_json=True) == cli_json
    # The model still runs: a name is only a name.
    shape = [2 if d < 0 else d for d in model.inputs[0].shape]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(model(x), cnn_circle(x))


def test_read_only_arrays_are_accepted(cnn_circle):
    """Issue 31: a read-only NumPy input (np.frombuffer, setflags(write=False)) gave a nanobind
    signature dump instead of running."""
    shape = [2 if d < 0 else d for d in cnn_circle.inputs[0].shape]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    frozen = np.frombuffer(x.tobytes(), dtype=np.float32).reshape(x.shape)
    assert not frozen.flags.writeable
    np.testing.assert_array_equal(cnn_circle(frozen), cnn_circle(x))


def test_inspect_names_a_model_in_memory(cnn_circle):
    first = cnn_circle.inspect().splitlines()[0]
    assert first.startswith("ExportedProgram: Circle model version 0")
    assert f"{len(cnn_circle.circle_binary)} bytes" in first
