#!/usr/bin/env bash
# Builds tico with -DTICO_SANITIZE=address,undefined into <repo>/build-asan (-O1, debug info, no
# Python package) and runs the unit, lit and circle-tools suites and a sample of the e2e
# suite under the sanitizers. Any sanitizer report fails the run: UBSan aborts on the first
# finding (-fno-sanitize-recover), ASan on any memory error.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TICO_VENV:-$repo/.venv}"
build="${TICO_SANITIZE_BUILD_DIR:-$repo/build-asan}"
jobs="${TICO_JOBS:-$(nproc)}"

# About 100 e2e cases: conversions of each lowering family run on the interpreter, the model
# tests through the LibTorch evaluator as well, and every error path of the suite.
select="corrupted or unsupported_ops or missing_input or rejects or handmade or untouched or extension_ops"
select+=" or (test_interpreter and (Conv2d- or Linear- or Softmax or LayerNorm or Gather or MaxPool2d or Cumsum"
select+=" or Embedding or Attention or ResNet18Style or BertEncoderLayer or LlamaDecoderLayer))"
select+=" or (test_evaluator_pipeline and (ResNet18Style or BertEncoderLayer or LlamaDecoderLayer))"

# Set before building: the build runs instrumented code too (gtest test discovery, fixtures).
# detect_leaks: plugins stay loaded for the process lifetime on purpose (docs/plugins.md), and
# what they allocate stays reachable; a real leak is still reported.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_init_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

cmake -S "$repo" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCMAKE_INSTALL_PREFIX="$build/install" \
  -DPython3_EXECUTABLE="$venv/bin/python" \
  -DPython_EXECUTABLE="$venv/bin/python" \
  -DTICO_BUILD_PYTHON=OFF \
  -DTICO_SANITIZE=address,undefined \
  -DTICO_E2E_SELECT="$select"
cmake --build "$build" -j "$jobs"

cd "$build"
ctest --output-on-failure -j "${TICO_TEST_JOBS:-2}" -L '^(unit|lit|circle-tools)$'
ctest --output-on-failure -R '^e2e$'
