#!/usr/bin/env python3
"""Issue 12's measures of quantized conversion, as one table (docs/quantization.md, "Measured").

Runs the three test files that measure them, each writing its report, and merges the reports:

* tests/quant/test_quant_convert.py (TICO_QUANT_CONVERT_REPORT): per model, the Circle operators,
  max |ours - eager fake-quant| in output steps on the built-in runtime, SQNR against the float
  model and the fake-quantized one, onert's step difference or its refusal;
* tests/quant/test_quant_vs_original.py (TICO_QUANT_VS_ORIGINAL_REPORT): for the models of the
  original's quantizer, tensors / qparams / constants / output codes identical to the original
  converter's file, and the documented differences;
* tests/quant/test_quant_size.py (TICO_QUANT_SIZE_REPORT): 4-bit weights against float32.

    python3 tests/bench/quant_report.py                       # tools from build/bin
    python3 tests/bench/quant_report.py --bin DIR --reports OUTDIR
    python3 tests/bench/quant_report.py --from OUTDIR         # only print saved reports

Prints Markdown tables. Exits non-zero when a test run fails (the tables are still printed).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
QUANT = REPO / "tests" / "quant"
FILES = {"convert": "convert.jsonl", "original": "vs_original.jsonl", "size": "size.json"}


def run_tests(bin_dir: Path, out: Path, jobs: int) -> int:
    env = dict(os.environ, TICO_RUN=str(bin_dir / "tico-run"), TICO_CIRCLE=str(bin_dir / "tico-circle"),
               TICO_SOURCE_DIR=str(REPO), PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1",
               TICO_QUANT_CONVERT_REPORT=str(out / FILES["convert"]),
               TICO_QUANT_VS_ORIGINAL_REPORT=str(out / FILES["original"]),
               TICO_QUANT_SIZE_REPORT=str(out / FILES["size"]))
    for name in ("convert", "original"):
        (out / FILES[name]).unlink(missing_ok=True)
    status = 0
    for test, extra in (("test_quant_convert.py", ["-n", str(jobs), "--dist", "loadgroup"] if jobs > 1 else []),
                        ("test_quant_vs_original.py", []), ("test_quant_size.py", [])):
        command = [sys.executable, "-m", "pytest", str(QUANT / test), "-q", "-p", "no:cacheprovider", "-rfEX",
                   "--rootdir", str(QUANT), *extra]
        print(f"[quant-report] {' '.join(command[2:5])}", file=sys.stderr, flush=True)
        done = subprocess.run(command, env=env, cwd=out, capture_output=True, text=True)
        tail = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
        print(f"[quant-report]   {tail[0] if tail else '(no output)'}", file=sys.stderr, flush=True)
        if done.returncode != 0:
            status = 1
            print(done.stdout[-6000:], file=sys.stderr)
    return status


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _db(value) -> str:
    if value is None:
        return "—"
    return "∞ (equal)" if math.isinf(value) and value > 0 else f"{value:.2f}"


def _ops(ops: dict) -> str:
    return ", ".join(f"{op} {n}" for op, n in sorted(ops.items()))


def _onert(record: dict) -> str:
    if "onert_max_steps" in record:
        text = f"{record['onert_max_steps']:.3f}"
        if "onert_known_divergence" in record:
            text += " (known divergence"
            if "onert_vs_channel0_fc_codes" in record:
                text += f": equals channel 0's weight scale and zero point for every channel, ±{record['onert_vs_channel0_fc_codes']:.0f} code"
            text += ")"
        return text
    return f"refused — {record.get('onert', '?').replace('|', '/')}"


def _onert_pair(record: dict) -> str:
    onert = record.get("onert", {})
    if record.get("onert_outputs_equal"):
        equal, total = record["onert_outputs_equal"]
        return f"both ran, {equal}/{total} codes equal"

    def short(text: str) -> str:
        return text.replace("onert at ", "").replace("Error during nnfw_session::run : ", "").replace(
            "Error during model prepare : ", "").replace("|", "/")

    return " / ".join(short(onert.get(side, "?")) for side in ("ours", "original"))


def tables(out: Path) -> str:
    convert = {r["model"]: r for r in _jsonl(out / FILES["convert"])}
    original = {r["model"]: r for r in _jsonl(out / FILES["original"])}
    size = json.loads((out / FILES["size"]).read_text()) if (out / FILES["size"]).exists() else None
    lines = ["| model | Circle operators | max steps ours | max steps onert | SQNR ours vs float (dB) | "
             "SQNR fake-quant vs float (dB) | SQNR ours vs fake-quant (dB) |", "|---|---|---|---|---|---|---|"]
    for name in sorted(convert):
        r = convert[name]
        lines.append(f"| {name} | {_ops(r['ops'])} | {r['max_steps']:.3f} | {_onert(r)} | {_db(r.get('sqnr_vs_float'))} | "
                     f"{_db(r.get('sqnr_fake_quant_vs_float'))} | {_db(r.get('sqnr_vs_fake_quant'))} |")
    if original:
        lines += ["", "| model (original's quantizer) | tensors identical | qparams identical | constants bit-equal | "
                  "output codes equal | documented differences | file bytes ours / original's | onert: ours / original's |",
                  "|---|---|---|---|---|---|---|---|"]
        for name in sorted(original):
            r = original[name]
            exceptions = ", ".join(f"{k} {v}" for k, v in sorted(r["exceptions"].items()))
            problems = f"; OTHER: {'; '.join(r['problems'])}" if r["problems"] else ""
            lines.append(f"| {name} | {r['identical_tensors']}/{r['tensors']} | {r['identical_qparams']}/{r['quantized']} | "
                         f"{r['identical_constants']}/{r['constants']} | {r['outputs_equal']}/{r['outputs_total']} | "
                         f"{exceptions}{problems} | {r['ours_size']} / {r['original_size']} | {_onert_pair(r)} |")
    if size:
        lines += ["", "| model | float file (bytes) | quantized file (bytes) | file ratio | uint4 weight bytes / float32 | "
                  "qparams (bytes) | max steps | SQNR vs float (dB) | SQNR fake-quant vs float (dB) |",
                  "|---|---|---|---|---|---|---|---|---|",
                  f"| {size['model']} | {size['float_file']} | {size['quantized_file']} | {size['file_ratio']:.4f} | "
                  f"{size['weight_bytes_uint4']} / {size['weight_bytes_float32']} = {size['weight_ratio']:.4f} | "
                  f"{size['qparam_bytes']} | {size['max_steps']:.3f} | {_db(size['sqnr_vs_float'])} | "
                  f"{_db(size['sqnr_fake_quant_vs_float'])} |"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "bin", help="directory of tico-run and tico-circle")
    parser.add_argument("--reports", type=Path, help="keep the reports in this directory")
    parser.add_argument("--from", dest="source", type=Path, help="print the reports saved in this directory, run nothing")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="pytest-xdist workers for test_quant_convert.py")
    args = parser.parse_args()
    if args.source:
        print(tables(args.source))
        return 0
    with tempfile.TemporaryDirectory(prefix="tico-quant-report-") as scratch:
        out = args.reports or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        status = run_tests(args.bin.resolve(), out.resolve(), args.jobs)
        print(tables(out))
    return status


if __name__ == "__main__":
    sys.exit(main())
