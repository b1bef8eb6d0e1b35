#!/usr/bin/env bash
# Fresh machine -> every test: installs dependencies, builds, and runs the whole CTest suite
# (unit tests, loader/plugin tests, golden pass tests, Circle conformance, the installed-SDK
# plugin test and the end-to-end parity suite against PyTorch).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TICO_BUILD_DIR:-$repo/build}"

"$repo/packaging/install-deps.sh"
"$repo/packaging/build.sh"
cd "$build"
ctest --output-on-failure -j "${TICO_TEST_JOBS:-2}" "$@"
