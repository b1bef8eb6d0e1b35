#!/usr/bin/env bash
# Fresh machine -> a converted model: installs dependencies, builds tico, exports the bundled
# example with PyTorch, converts it with tico-run and prints a summary of the Circle file
# (checked against PyTorch's output with the onert runtime).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TICO_VENV:-$repo/.venv}"
build="${TICO_BUILD_DIR:-$repo/build}"
work="${TICO_EXAMPLE_DIR:-$build/example}"

"$repo/packaging/install-deps.sh"
"$repo/packaging/build.sh"
"$venv/bin/python" "$repo/packaging/example/export_example.py" "$work"
"$build/bin/tico-run" --pipeline "$repo/configs/pipelines/default.yaml" "$work/example.pt2" -o "$work/example.circle"
"$venv/bin/python" "$repo/packaging/example/summarize_circle.py" "$work/example.circle" \
  --input "$work/input0.npy" --expected "$work/expected0.npy"
