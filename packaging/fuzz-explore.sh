#!/usr/bin/env bash
# Explores with the fuzz targets of an existing build: each target runs with a random seed for
# TICO_FUZZ_EXPLORE_SECONDS (default 600) on a corpus kept between runs in
# <build>/fuzz-explore/<target>, so each run starts where the last one stopped. The CTest fuzz
# tests run a fixed seed for a short time (repeatable in CI); this is the long, random search
# that finds new bugs. A finding is written to <build>/fuzz-explore/artifacts/<target>/; add it
# to tests/fuzz/corpus/<target>/ with the fix so the CTest run keeps checking it.
#
#   packaging/fuzz-explore.sh [build-dir] [target ...]   (targets: the *-fuzzer files)
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$repo/build}" && pwd)"
shift || true
seconds="${TICO_FUZZ_EXPLORE_SECONDS:-600}"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$build"/tests/fuzz/*-fuzzer; do targets+=("$(basename "$f" -fuzzer)"); done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz-explore: no fuzz targets in $build/tests/fuzz (is clang++ with libFuzzer installed?)" >&2
  exit 2
fi

failed=()
for target in "${targets[@]}"; do
  fuzzer="$build/tests/fuzz/$target-fuzzer"
  corpus="$build/fuzz-explore/$target"
  artifacts="$build/fuzz-explore/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  # Seeds as the CTest run takes them: checked in; the Circle reader's also the models the
  # circle-tools fixture writes into the build tree.
  seeds="$repo/tests/fuzz/corpus/$target"
  extra=()
  [ "$target" = circle-reader ] && extra=("$build/tests/circle-tools/data")
  if [ ! -d "$seeds" ] || { ((${#extra[@]})) && [ ! -d "${extra[0]}" ]; }; then
    echo "fuzz-explore: no seeds for $target at $seeds (for circle-reader: run ctest -R circle-tools.setup first)" >&2
    failed+=("$target")
    continue
  fi
  echo "== $target: ${seconds}s, random seed"
  if ! "$fuzzer" -seed=0 -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "$corpus" "$seeds" "${extra[@]}" > "$build/fuzz-explore/$target.log" 2>&1; then
    failed+=("$target")
    echo "   FOUND a failure: see $build/fuzz-explore/$target.log and $artifacts/"
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/fuzz-explore/$target.log" | sed 's/^/   /'
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-explore: failures in ${failed[*]}" >&2
  exit 1
fi
