"""onert 0.2 in a child process, for suites that must survive onert crashing on a model.

A model onert cannot load or run may abort the process (or raise); running it in a child
turns that into a result. The child prints ``phase: <name>`` before each step, so the caller
can say where onert stopped. Shared by tests/onert (quantized kernels) and tests/quant
(measures of whole quantized models), which format the refusal their own way.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

_CHILD = """
import sys, numpy as np
from onert.native.libnnfw_api_pybind import infer, prepare_config
def phase(name):
    print("phase:", name, file=sys.stderr, flush=True)
data = np.load(sys.argv[2])
phase("load")
session = infer.nnfw_session(sys.argv[1], "cpu")
session.set_prepare_config(prepare_config.ENABLE_INTERNAL_OUTPUT_ALLOC)
phase("prepare")
session.prepare()
phase("set inputs")
# The binding keeps a pointer, not a reference: the arrays must outlive run(). A C-ordered
# copy, not np.ascontiguousarray, which makes a 0-d array 1-d.
feeds = [np.array(data[f"feed{i}"], order="C", copy=True) for i in range(sum(k.startswith("feed") for k in data.files))]
for i, feed in enumerate(feeds):
    session.set_input(i, feed)
phase("run")
session.run()
np.savez(sys.argv[3], *[np.array(session.get_output(i)) for i in range(session.output_size())])
"""


def run_onert_child(model: Path, feeds: list[np.ndarray], work: Path,
                    timeout: int = 300) -> tuple[list[np.ndarray] | None, subprocess.CompletedProcess, list[str]]:
    """Runs ``model`` on onert with ``feeds`` in a child process. Returns the outputs (None when
    the child failed), the finished process and the phases it reached, in order."""
    work.mkdir(parents=True, exist_ok=True)
    np.savez(work / "feeds.npz", **{f"feed{i}": f for i, f in enumerate(feeds)})
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(model), str(work / "feeds.npz"), str(work / "onert.npz")],
                          capture_output=True, text=True, timeout=timeout)
    phases = [line.strip()[len("phase: "):] for line in (proc.stderr or "").splitlines()
              if line.strip().startswith("phase: ")]
    if proc.returncode != 0:
        return None, proc, phases
    data = np.load(work / "onert.npz")
    return [data[f"arr_{i}"] for i in range(len(data.files))], proc, phases
