#!/usr/bin/env bash
# Configures and builds tico (Ninja, RelWithDebInfo) into <repo>/build and installs it into
# <repo>/build/install (the installed SDK is what the out-of-tree plugin test builds against).
# The Python package is built too (TICO_BUILD_PYTHON=OFF in the environment skips it): its
# extension lands in <build>/python/tico_native, where the `python` tests use it in place.
# TICO_BUILD_UNIT_TESTS=OFF leaves out the unit-test binary (packaging/test-all.sh builds and runs
# it in the sanitizer tree instead); TICO_UNIT_TEST_SHARDS=N registers it as N CTest entries, one
# process each, instead of one entry per test (tests/unit_tests.cmake). Both are set on every run,
# so a plain build.sh brings back the defaults (ON, 0).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TICO_VENV:-$repo/.venv}"
build="${TICO_BUILD_DIR:-$repo/build}"
jobs="${TICO_JOBS:-$(nproc)}"

# TICO_DEBUG_INFO=0 builds without debug information (-O2, same code: GCC's -g never changes
# what is generated); it costs about 40 % of the compile time (tests/unit/circle_writer_test.cpp:
# 19.1 s with -g, 11.9 s without) and makes the link steps lighter. CI sets it
# (packaging/test-all.sh). Unset, the tree keeps what it was configured with.
debug_flags=()
case "${TICO_DEBUG_INFO:-}" in
  "") ;;
  0) debug_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG") ;;
  1) debug_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG") ;;
  *) echo "build.sh: TICO_DEBUG_INFO must be 0 or 1, not '$TICO_DEBUG_INFO'" >&2; exit 2 ;;
esac

cmake -S "$repo" -B "$build" -G Ninja "${debug_flags[@]}" \
  -DCMAKE_BUILD_TYPE="${TICO_BUILD_TYPE:-RelWithDebInfo}" \
  -DCMAKE_INSTALL_PREFIX="$build/install" \
  -DPython3_EXECUTABLE="$venv/bin/python" \
  -DPython_EXECUTABLE="$venv/bin/python" \
  -DTICO_BUILD_PYTHON="${TICO_BUILD_PYTHON:-ON}" \
  -DTICO_BUILD_UNIT_TESTS="${TICO_BUILD_UNIT_TESTS:-ON}" \
  -DTICO_UNIT_TEST_SHARDS="${TICO_UNIT_TEST_SHARDS:-0}"
cmake --build "$build" -j "$jobs"
cmake --install "$build" >/dev/null
echo "[build] tico-run: $build/bin/tico-run"
