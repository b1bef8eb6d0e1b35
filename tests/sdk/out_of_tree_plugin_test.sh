#!/usr/bin/env bash
# Installs this build into a scratch prefix, builds sdk/examples/double-negation against it
# with find_package(TicoSDK), then loads the plugin into the installed tico-run.
set -euo pipefail
: "${TICO_BUILD_DIR:?}" "${TICO_SOURCE_DIR:?}"
filecheck="${FILECHECK:-/usr/lib/llvm-14/bin/FileCheck}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cmake --install "$TICO_BUILD_DIR" --prefix "$work/prefix" >/dev/null
cmake -S "$TICO_SOURCE_DIR/sdk/examples/double-negation" -B "$work/plugin" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/plugin" >/dev/null
plugin="$(ls "$work"/plugin/libtico-example-double-negation.so)"

cat >"$work/input.tir" <<'TIR'
graph @main {
  input %x: f32[2, 3]
  %a: f32[2, 3] = aten::neg.default(%x)
  %b: f32[2, 3] = aten::neg.default(%a)
  %c: f32[2, 3] = aten::relu.default(%b)
  return %c
}
TIR

# The plugin is found through TICO_PLUGIN_PATH and listed with its provenance.
TICO_PLUGIN_PATH="$work/plugin" "$work/prefix/bin/tico-run" --list-plugins >"$work/plugins.txt"
cat >"$work/plugins.check" <<CHECK
CHECK: tico-example-double-negation 1.0.0 (Apache-2.0)
CHECK-NEXT: $plugin
CHECK-NEXT: provides: 1 passes
CHECK
"$filecheck" --input-file "$work/plugins.txt" "$work/plugins.check"
# Listed to a file first: `grep -q` stops reading at the first match, and with pipefail the
# SIGPIPE that tico-run then gets would fail the test once the list outgrows the pipe buffer.
TICO_PLUGIN_PATH="$work/plugin" "$work/prefix/bin/tico-run" --list-passes >"$work/passes.txt"
grep -q "example.remove-double-negation  \[pass, tico-example-double-negation 1.0.0\]" "$work/passes.txt"

# Its pass runs inside the installed tico-run.
cat >"$work/out.check" <<'CHECK'
OUT: input %x: f32[2, 3]
OUT-NOT: aten::neg
OUT: %c: f32[2, 3] = aten::relu.default(%x)
OUT-NEXT: return %c
CHECK
"$work/prefix/bin/tico-run" --plugin "$plugin" --passes example.remove-double-negation --emit tir "$work/input.tir" \
  | "$filecheck" "$work/out.check" --check-prefix=OUT
echo "out-of-tree plugin built against the installed SDK and ran in tico-run"
