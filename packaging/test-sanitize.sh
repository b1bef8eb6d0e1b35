#!/usr/bin/env bash
# Builds tico with -DTICO_SANITIZE=address,undefined into <repo>/build-asan (-Og with line
# tables, no Python package) and runs the unit, lit and circle-tools suites and a sample of the
# e2e suite under the sanitizers. Any sanitizer report fails the run: UBSan aborts on the first
# finding (-fno-sanitize-recover), ASan on any memory error, LeakSanitizer at exit on a leak.
# packaging/test-all.sh (the README's test command, hence CI) runs it after the regular suites.
#
# Why -Og -g1 (docs/testing.md, "Sanitizer build"): it halves the compile CPU of the -O1 -g
# build without hiding findings. Measured per translation unit, ASan+UBSan at -Og -g1 costs
# about 1.1x the regular -O2 -g build; at -O1 -g it cost 2.1x (full debug info dominates under
# the sanitizers). -g1 keeps the line tables the reports print.
#
# What is left out, and why:
# - the Python package: a Python interpreter would need the ASan runtime preloaded;
# - the fuzz targets: they carry their own sanitizers (tests/fuzz);
# - pt2-to-circle, the conformance writer and the interpreter timer: no suite below runs them;
# - `core-builds-without-python` and `op-constants-match-torch` (label `unit`): they configure
#   a CMake tree and run a Python check, no instrumented code;
# - LibTorch itself is not instrumented. The evaluator backend that links it is, and the unit
#   and e2e parts load it: the executables link the ASan runtime, so it is loaded before
#   libtorch_cpu.
#
# Only the targets the chosen suites need are built (tico-unit-tests depends on every bundled
# plugin, the test plugins and the .pt2 fixtures; the e2e sample runs tico-run with those
# plugins and tico-circle).
#
# The unit tests run as two CTest entries of one process each (TICO_UNIT_TEST_SHARDS=2, one per
# core) instead of one entry per test: about 1,250 starts of the large instrumented binary cost
# more than the tests themselves.
#
# TICO_SANITIZE_SCOPE=tools is a smaller form: the lit and circle-tools suites only (tico-run,
# the pass plugins, the .pt2 frontend plugin, tico-circle, make-circle-test-models; no
# unit-test binary, test plugins, LibTorch backend or e2e sample).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TICO_VENV:-$repo/.venv}"
build="${TICO_SANITIZE_BUILD_DIR:-$repo/build-asan}"
jobs="${TICO_JOBS:-$(nproc)}"

# -g1 (the default) gives the reports file:line; CI passes -g0 (packaging/test-all.sh): about 20 %
# less compile time, and a report still names the functions (the symbol table) — rerun this
# script by hand for the lines.
debug="${TICO_SANITIZE_DEBUG:--g1}"
case "$debug" in
  -g0|-g1|-g) ;;
  *) echo "test-sanitize.sh: TICO_SANITIZE_DEBUG must be -g0, -g1 or -g, not '$debug'" >&2; exit 2 ;;
esac

scope="${TICO_SANITIZE_SCOPE:-full}"
case "$scope" in
  full)
    targets=(tico-unit-tests tico-lit-deps tico-circle make-circle-test-models)
    labels='^(unit|lit|circle-tools)$' ;;
  tools)
    targets=(tico-lit-deps tico-circle make-circle-test-models)
    labels='^(lit|circle-tools)$' ;;
  *)
    echo "test-sanitize.sh: TICO_SANITIZE_SCOPE must be 'full' or 'tools', not '$scope'" >&2
    exit 2 ;;
esac

# About 100 e2e cases: conversions of each lowering family run on the interpreter, the model
# tests through the LibTorch evaluator as well, and every error path of the suite.
select="corrupted or unsupported_ops or missing_input or rejects or handmade or untouched or extension_ops"
select+=" or (test_interpreter and (Conv2d- or Linear- or Softmax or LayerNorm or Gather or MaxPool2d or Cumsum"
select+=" or Embedding or Attention or ResNet18Style or BertEncoderLayer or LlamaDecoderLayer))"
select+=" or (test_evaluator_pipeline and (ResNet18Style or BertEncoderLayer or LlamaDecoderLayer))"

# Set before building: the build runs instrumented code too (gtest test discovery, fixtures).
# detect_leaks: plugins stay loaded for the process lifetime on purpose (docs/plugins.md), and
# what they allocate stays reachable; a real leak is still reported.
# intercept_tls_get_addr=0: with a dozen plugins loaded, GCC 12's LeakSanitizer reads a bogus
# range for one dynamic-TLS block under glibc 2.36 and its tracer crashes at exit ("Tracer
# caught signal 11", DTLS bounds like 0x1cb2-0x400002db4) although the program is clean; not
# tracking dynamic TLS avoids it (static TLS and the heap are still scanned).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_init_order=1:intercept_tls_get_addr=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

phase_start=$SECONDS
phase() { # prints how long the previous phase took (CI budget, docs/testing.md)
  echo "[test-sanitize] $1: $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}

cmake -S "$repo" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-Og $debug" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-Og $debug" \
  -DCMAKE_INSTALL_PREFIX="$build/install" \
  -DPython3_EXECUTABLE="$venv/bin/python" \
  -DPython_EXECUTABLE="$venv/bin/python" \
  -DTICO_BUILD_PYTHON=OFF \
  -DTICO_SANITIZE=address,undefined \
  -DTICO_BUILD_UNIT_TESTS=ON \
  -DTICO_UNIT_TEST_SHARDS=2 \
  -DTICO_E2E_SELECT="$select"
phase configure
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
phase build

cd "$build"
ctest --output-on-failure -j "${TICO_TEST_JOBS:-2}" -L "$labels" \
  -E '^(core-builds-without-python|op-constants-match-torch)$'
phase "$labels"
if [[ "$scope" == full ]]; then
  ctest --output-on-failure -R '^e2e$'
  phase "e2e sample"
fi
