#!/usr/bin/env python3
"""Byte-identity check for refactors: the same .pt2 files, two builds, the same Circle bytes.

A refactor that must not change behaviour (docs/architecture.md) is checked by converting a
fixed corpus with the build before and the build after and comparing the files byte for byte:

    # once, with the e2e suite's modules and the real-model suite's architectures (every case
    # and saved form CI runs):
    circle_identity.py export  CORPUS_DIR
    # with each build (tico-run and its plugins):
    circle_identity.py convert CORPUS_DIR --tico-run OLD/bin/tico-run --out old.json
    circle_identity.py convert CORPUS_DIR --tico-run NEW/bin/tico-run --out new.json
    circle_identity.py compare old.json new.json

`convert` records the SHA-256 of each Circle file (or the refusal's first error line, so a
refusal that changes wording or starts converting is a difference too). `compare` prints every
difference and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]


def _e2e_cases():
    """(file stem, prepare(directory) -> path of the written .pt2) for every e2e case and form."""
    sys.path.insert(0, str(SOURCE / "tests" / "e2e"))
    import test_e2e  # noqa: E402  (the suite's own case list and export code)

    for name in test_e2e.modules.MODULES:
        for variant in test_e2e.case_variants(name):
            yield f"{name}-{variant}", lambda d, n=name, v=variant: test_e2e.prepare_case(n, v, d).pt2


def _model_cases():
    """The same for the real-model suite (tests/models): transformers architectures."""
    sys.path[:0] = [str(SOURCE / "tests" / "models"), str(SOURCE / "tests" / "e2e")]  # its conftest's path
    import test_models  # noqa: E402
    import zoo  # noqa: E402

    for case in zoo.CASES:
        for variant in test_models.VARIANTS:
            yield f"model-{case.name}-{variant}", lambda d, c=case, v=variant: test_models.prepare(c, v, d).pt2


def export(corpus: Path, suites: list[str]) -> int:
    corpus.mkdir(parents=True, exist_ok=True)
    count = 0
    for suite in suites:
        for stem, prepare in (_e2e_cases() if suite == "e2e" else _model_cases()):
            target = corpus / f"{stem}.pt2"
            if not target.exists():
                with tempfile.TemporaryDirectory() as scratch:
                    try:
                        prepare(Path(scratch)).replace(target)
                    except Exception as error:  # an export the suite expects to fail
                        print(f"skip {stem}: {type(error).__name__}", file=sys.stderr)
                        continue
            count += 1
    print(f"{count} .pt2 files in {corpus}")
    return 0


def _convert_one(tico_run: str, pipeline: str, pt2: Path, scratch: Path) -> tuple[str, str]:
    output = scratch / (pt2.stem + ".circle")
    run = subprocess.run([tico_run, "--pipeline", pipeline, str(pt2), "-o", str(output)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        return pt2.stem, "refused: " + (lines[0] if lines else f"exit {run.returncode}")
    digest = hashlib.sha256(output.read_bytes()).hexdigest()
    output.unlink()
    return pt2.stem, digest


def convert(corpus: Path, tico_run: str, pipeline: str, out: Path, jobs: int) -> int:
    files = sorted(corpus.glob("*.pt2"))
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(jobs) as pool:
        results = dict(pool.map(lambda p: _convert_one(tico_run, pipeline, p, Path(scratch)), files))
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    refused = sum(value.startswith("refused") for value in results.values())
    print(f"{len(results)} conversions ({refused} refused) -> {out}")
    return 0


def compare(old: Path, new: Path) -> int:
    before, after = json.loads(old.read_text()), json.loads(new.read_text())
    differences = [name for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]
    for name in differences:
        print(f"DIFF {name}\n  before: {before.get(name)}\n  after:  {after.get(name)}")
    same = len(set(before) & set(after)) - len([n for n in differences if n in before and n in after])
    print(f"{same} identical, {len(differences)} different")
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_export = sub.add_parser("export", help="write the e2e corpus of .pt2 files")
    p_export.add_argument("corpus", type=Path)
    p_export.add_argument("--suites", nargs="+", choices=("e2e", "models"), default=["e2e", "models"])
    p_convert = sub.add_parser("convert", help="convert the corpus, record hashes")
    p_convert.add_argument("corpus", type=Path)
    p_convert.add_argument("--tico-run", required=True)
    p_convert.add_argument("--pipeline", default=str(SOURCE / "configs" / "pipelines" / "default.yaml"))
    p_convert.add_argument("--out", type=Path, required=True)
    p_convert.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p_compare = sub.add_parser("compare", help="compare two hash records")
    p_compare.add_argument("old", type=Path)
    p_compare.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "export":
        return export(args.corpus, args.suites)
    if args.command == "convert":
        return convert(args.corpus, args.tico_run, args.pipeline, args.out, args.jobs)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
