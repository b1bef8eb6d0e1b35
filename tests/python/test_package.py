"""The package's shape: the original's entry points and signatures, its own plugins and
pipelines, and a name that does not clash with the original converter."""

import inspect
import os
import subprocess
import sys

import tico_native
from tico_native import _resources


def parameters(fn):
    return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]


def test_entry_points_mirror_the_original():
    empty = inspect.Parameter.empty
    # tico's own addition is keyword-only (incremental strategies, docs/incremental.md), so
    # positional calls stay the original's.
    assert parameters(tico_native.convert) == [
        ("module", empty), ("args", empty), ("kwargs", None), ("dynamic_shapes", None),
        ("pipeline", None), ("config", None), ("strict", True), ("incremental", None)]
    assert parameters(tico_native.convert_from_exported_program) == [
        ("exported_program", empty), ("pipeline", None), ("config", None), ("incremental", None)]
    assert parameters(tico_native.convert_from_pt2) == [
        ("pt2_path", empty), ("pipeline", None), ("config", None), ("incremental", None)]
    for entry in (tico_native.convert, tico_native.convert_from_exported_program, tico_native.convert_from_pt2):
        assert inspect.signature(entry).parameters["incremental"].kind is inspect.Parameter.KEYWORD_ONLY
    assert isinstance(inspect.getattr_static(tico_native.CircleModel, "load"), staticmethod)
    for name in ("save", "__call__", "inspect"):
        assert callable(getattr(tico_native.CircleModel, name))


def test_plugins_and_pipelines_come_from_the_package():
    plugins = _resources.converter().plugins()
    names = {name for name, _, _ in plugins}
    assert {"pt2-frontend", "circle-lowering", "std-passes"} <= names
    package_plugins = os.path.realpath(_resources.PLUGIN_DIR)
    for _, _, path in plugins:
        assert os.path.realpath(path).startswith(package_plugins + os.sep), path
    assert tico_native.DEFAULT_PIPELINE.is_file()
    assert tico_native.DEFAULT_PIPELINE.parent == _resources.PACKAGE_DIR / "share" / "tico" / "pipelines"


def test_importing_does_not_touch_the_original_tico():
    code = "import sys, tico_native; print('tico' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_console_script_runs_the_packaged_pt2_to_circle():
    out = subprocess.run([sys.executable, "-m", "tico_native.pt2_to_circle", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "-i,--input" in out.stdout and "-c,--config" in out.stdout


def test_the_package_under_test_is_the_expected_copy():
    # CTest tests the build tree's package, packaging/test-all.sh the pip-installed one; each
    # says which through TICO_PYTHON_EXPECT_DIR.
    expected = os.environ.get("TICO_PYTHON_EXPECT_DIR")
    assert expected, "set TICO_PYTHON_EXPECT_DIR to the package directory under test"
    assert os.path.dirname(os.path.abspath(tico_native.__file__)) == os.path.abspath(expected)
