#!/usr/bin/env bash
# Proves that libtico-core configures and builds with no Python at all: tico is configured
# with only the core and the tools (no plugins, tests or Python package), find_package(Python*)
# disabled and every python/pip executable hidden from PATH; then no build rule of
# libtico-core may run Python. With --build, libtico-core is also compiled that way (slow: a
# full core build, for the manual check).
#
#   check_core_without_python.sh SOURCE_DIR WORK_DIR [--build]
set -euo pipefail
src="$1"
work="$2"
mode="${3:-}"

rm -rf "$work"
mkdir -p "$work/bin"
# A PATH holding every tool of the current one except Python: the compilers, cmake and ninja
# stay reachable, python3 does not.
IFS=: read -ra dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
  [ -d "$dir" ] || continue
  for tool in "$dir"/*; do
    name="$(basename "$tool")"
    case "$name" in
    *python* | pip*) continue ;;
    esac
    [ -e "$work/bin/$name" ] || ln -s "$tool" "$work/bin/$name"
  done
done
export PATH="$work/bin"
if command -v python3 >/dev/null || command -v python >/dev/null; then
  echo "FAIL: python is still on PATH" >&2
  exit 1
fi

cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTICO_BUILD_PLUGINS=OFF -DTICO_BUILD_TESTS=OFF -DTICO_BUILD_PYTHON=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON -DCMAKE_DISABLE_FIND_PACKAGE_Python=ON --no-warn-unused-cli >"$work/configure.log"

commands="$(ninja -C "$work/build" -t commands tico-core)"
if grep -i python <<<"$commands"; then
  echo "FAIL: a build rule of libtico-core runs Python (above)" >&2
  exit 1
fi
echo "libtico-core configures without Python; $(grep -c . <<<"$commands") build commands, none runs Python"

if [ "$mode" = --build ]; then
  ninja -C "$work/build" tico-core tico-run
  echo "libtico-core and tico-run built without Python"
fi
