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

# The researcher story: the example quantizer, built out of tree, runs inside the installed
# tico-run with a recipe, and its result reaches the Circle file and the encodings export:
# weight-only (no calibration data needed) on linear + relu, then with uint8 activations
# calibrated on random data on a lone linear.
cmake -S "$TICO_SOURCE_DIR/sdk/examples/rtn-quantizer" -B "$work/rtn" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/rtn" >/dev/null
rtn="$(ls "$work"/rtn/libtico-example-rtn-quantizer.so)"
python3 - "$work" <<'PY'
import random, sys
random.seed(0)
w = ", ".join(f"{random.uniform(-1, 1):.6f}" for _ in range(6 * 8))
head = f"""graph @main {{
  input %x: f32[4, 8]
  constant %w: f32[6, 8] "fc.weight" = dense<[{w}]>
  %fc: f32[4, 6] = aten::linear.default(%x, %w, None)
"""
open(sys.argv[1] + "/relu.tir", "w").write(head + "  %r: f32[4, 6] = aten::relu.default(%fc)\n  return %r\n}\n")
open(sys.argv[1] + "/linear.tir", "w").write(head + "  return %fc\n}\n")
PY
sed 's/activations: false/activations: true/' "$TICO_SOURCE_DIR/sdk/examples/rtn-quantizer/rtn.yaml" >"$work/rtn-act.yaml"
"$work/prefix/bin/tico-run" --plugin "$rtn" --quant "$TICO_SOURCE_DIR/sdk/examples/rtn-quantizer/rtn.yaml" \
  "$work/relu.tir" -o "$work/rtn.circle" --encodings "$work/rtn.json"
"$work/prefix/bin/tico-run" --plugin "$rtn" --quant "$work/rtn-act.yaml" --calibration random --no-progress \
  "$work/linear.tir" -o "$work/rtn-act.circle" --encodings "$work/rtn-act.json"
python3 - "$work/rtn.json" "$work/rtn-act.json" <<'PY'
import json, sys
for path, with_activations in ((sys.argv[1], False), (sys.argv[2], True)):
    doc = json.load(open(path))
    assert doc["format"] == "tico.encodings" and doc["version"] == 1, doc
    by_role = {}
    for t in doc["tensors"]:
        by_role.setdefault(t["role"], []).append(t)
    weights = by_role.get("weight", [])
    assert len(weights) == 1 and weights[0]["granularity"] == "per-channel" and len(weights[0]["scale"]) == 6, weights
    assert all(0 <= z <= 15 for z in weights[0]["zero_point"]), weights  # a 4-bit grid
    acts = by_role.get("activation", [])
    if with_activations:
        assert acts and all(a["dtype"] == "uint8" and a["granularity"] == "per-tensor" for a in acts), acts
    else:
        assert not acts, acts
    metrics = [m for m in doc["metrics"] if m["metric"] == "weight_mse"]
    assert len(metrics) == 1 and metrics[0]["subject"] == "fc" and metrics[0]["value"] > 0, doc["metrics"]
PY

# The `sdk` install component alone is enough to build a plugin: it has the libraries, the CMake
# package and the plugin-facing headers, and none of the host headers (discovery, manifests,
# driver, pass manager), which are component `host`.
cmake --install "$TICO_BUILD_DIR" --component sdk --prefix "$work/sdk-only" >/dev/null
for header in plugin/registry.h rewrite/pattern.h ir/graph.h circle/edit.h ops/torch_ops.h; do
  test -f "$work/sdk-only/include/tico/$header" || { echo "sdk component lacks tico/$header" >&2; exit 1; }
done
for header in plugin/loader.h pipeline/driver.h pipeline/manifest.h pass/pass_manager.h interpreter/interpreter.h; do
  if test -e "$work/sdk-only/include/tico/$header"; then echo "sdk component ships host header tico/$header" >&2; exit 1; fi
  test -f "$work/prefix/include/tico/$header" || { echo "full install lacks host header tico/$header" >&2; exit 1; }
done
cmake -S "$TICO_SOURCE_DIR/sdk/examples/double-negation" -B "$work/plugin-sdk-only" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/sdk-only" >/dev/null
cmake --build "$work/plugin-sdk-only" >/dev/null

# The SDK's Circle header was generated by one flatc release: when the system's FlatBuffers is
# another one, configuring is refused with a message naming the release needed. Simulated by
# an SDK copy that records a release this machine does not have.
cp -r "$work/prefix" "$work/other-prefix"
sed -i -E 's/find_package\(FlatBuffers [0-9.]+ EXACT/find_package(FlatBuffers 99.1.0 EXACT/; s/needs FlatBuffers [0-9.]+ exactly/needs FlatBuffers 99.1.0 exactly/' \
  "$work/other-prefix/lib/cmake/TicoSDK/TicoSDKConfig.cmake"
if cmake -S "$TICO_SOURCE_DIR/sdk/examples/double-negation" -B "$work/mismatch" -G Ninja \
     -DCMAKE_PREFIX_PATH="$work/other-prefix" >"$work/mismatch.log" 2>&1; then
  echo "configuring against an SDK made for FlatBuffers 99.1.0 succeeded; expected a version error" >&2
  exit 1
fi
grep -q "TicoSDK needs FlatBuffers 99.1.0 exactly" "$work/mismatch.log" || { cat "$work/mismatch.log" >&2; exit 1; }

echo "out-of-tree plugin built against the installed SDK and ran in tico-run"
