#!/usr/bin/env bash
# Configures and builds tico (Ninja, RelWithDebInfo) into <repo>/build and installs it into
# <repo>/build/install (the installed SDK is what the out-of-tree plugin test builds against).
# The Python package is built too (TICO_BUILD_PYTHON=OFF in the environment skips it): its
# extension lands in <build>/python/tico_native, where the `python` tests use it in place.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${TICO_VENV:-$repo/.venv}"
build="${TICO_BUILD_DIR:-$repo/build}"
jobs="${TICO_JOBS:-$(nproc)}"

cmake -S "$repo" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE="${TICO_BUILD_TYPE:-RelWithDebInfo}" \
  -DCMAKE_INSTALL_PREFIX="$build/install" \
  -DPython3_EXECUTABLE="$venv/bin/python" \
  -DPython_EXECUTABLE="$venv/bin/python" \
  -DTICO_BUILD_PYTHON="${TICO_BUILD_PYTHON:-ON}"
cmake --build "$build" -j "$jobs"
cmake --install "$build" >/dev/null
echo "[build] tico-run: $build/bin/tico-run"
