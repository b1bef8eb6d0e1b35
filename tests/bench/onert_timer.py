"""onert side of bench_interpreter.py, in its own process so that its peak RSS is onert's (plus
Python and NumPy) and onert reads NUM_THREADS from the environment this process starts with.

    python3 onert_timer.py model.circle WORK_DIR RUNS WARMUP

Reads WORK_DIR/in0.npy, in1.npy, ...; prepares one session, runs it WARMUP times untimed and
RUNS times timed; prints `TIMES_MS t1 t2 ...` and writes the last outputs to WORK_DIR/onert-out.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np


def main() -> int:
    circle, work, runs, warmup = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    from onert import infer

    inputs = []
    while (work / f"in{len(inputs)}.npy").is_file():
        inputs.append(np.load(work / f"in{len(inputs)}.npy"))
    session = infer.session(circle)
    outputs = session.infer([a.copy() for a in inputs])  # prepares the session
    for _ in range(warmup):
        outputs = session.infer(inputs)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        outputs = session.infer(inputs)
        times.append((time.perf_counter() - start) * 1000.0)
    out_dir = work / "onert-out"
    out_dir.mkdir(exist_ok=True)
    for i, array in enumerate(outputs):
        np.save(out_dir / f"out{i}.npy", np.array(array))
    print("TIMES_MS " + " ".join(f"{t:.4f}" for t in times))
    return 0


if __name__ == "__main__":
    sys.exit(main())
