// max_pool2d / max_pool2d_with_indices that MAX_POOL_2D cannot express become an unrolled
// window (window_geometry.h): the input padded with -inf and a MAXIMUM chain over strided
// slices, separable (columns, then rows) when only the values are used. That covers
// dilation, ceil_mode windows that run past the padding, and a used indices output. PyTorch
// skips padding taps, which -inf reproduces; taps that only read padding are left out.
//
// Indices (flat positions in the H*W plane of the unpadded input, int64 as PyTorch returns
// them) follow PyTorch's scan: taps in row-major order, a later tap wins only when strictly
// greater (`where(tap > best)`), so the first maximum wins; the scan starts at the window's
// first real position. (PyTorch also lets NaN win; this rewrite follows IEEE comparisons.)
#include "window_geometry.h"

#include <limits>

namespace tico::decompose {

using passes::A;

namespace {

bool outputUsed(const Graph &graph, const Node &node, std::size_t i) {
  return i < node.numOutputs() && (node.output(i)->hasUsers() || graph.isGraphOutput(node.output(i)));
}

// The first input position of window `o` along `axis` (PyTorch steps over left padding by
// the dilation).
int64_t firstRealTap(const WindowAxis &axis, int64_t o) {
  int64_t tap = 0;
  while (axis.position(o, tap) < 0)
    ++tap;
  return axis.position(o, tap);
}

Replacement maxPool2d(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (!isFloating(x->dtype()))
    return std::nullopt;
  auto axes = poolAxes(n, x);
  if (!axes)
    return std::nullopt;
  const bool indices = outputUsed(b.graph(), n, 1);
  // The scan selects float32 indices (exact below 2^24) and casts them once at the end:
  // runtimes without an int64 SELECT_V2 (onert) run it.
  if (indices && (*axes)[0].input * (*axes)[1].input > (int64_t{1} << 24))
    return std::nullopt;
  const bool dilated = (*axes)[0].dilation != 1 || (*axes)[1].dilation != 1;
  if (!indices && !dilated && !hasCeilWindow((*axes)[0]) && !hasCeilWindow((*axes)[1]))
    return std::nullopt; // MAX_POOL_2D takes it

  const WindowAxis &h = (*axes)[0];
  const WindowAxis &w = (*axes)[1];
  std::vector<Value *> out(n.numOutputs(), nullptr);
  if (!indices) {
    out[0] = reduceWindows(b, x, *axes, WindowReduction::Max);
    return out;
  }
  Value *padded = padForWindows(b, x, *axes, -std::numeric_limits<double>::infinity());
  Value *best = nullptr;
  Value *best_index = nullptr;
  const std::vector<int64_t> live_w = w.liveTaps();
  for (int64_t th : h.liveTaps()) {
    Value *rows = tapSlice(b, padded, *axes, 0, th);
    for (int64_t tw : live_w) {
      Value *tap = tapSlice(b, rows, *axes, 1, tw);
      // A padding tap never wins; give it the window's first real position, where the scan starts.
      Value *tap_index = perPositionConstant<float>(
          b, "index_" + std::to_string(th) + "_" + std::to_string(tw), DType::Float32, *axes,
          [&](int64_t oh, int64_t ow) {
            int64_t r = h.position(oh, th), c = w.position(ow, tw);
            if (r < 0 || r >= h.input || c < 0 || c >= w.input) {
              r = firstRealTap(h, oh);
              c = firstRealTap(w, ow);
            }
            return r * w.input + c;
          });
      if (best == nullptr) {
        best = tap;
        best_index = tap_index;
        continue;
      }
      Value *wins = b.make("aten::gt.Tensor", {A(tap), A(best)});
      best_index = b.make("aten::where.self", {A(wins), A(tap_index), A(best_index)});
      best = b.make("aten::maximum.default", {A(best), A(tap)});
    }
  }
  out[0] = best;
  // A 1x1 window leaves the index a [OH, OW] constant: broadcast it to the output shape.
  if (best_index->rank() != best->rank())
    best_index = b.expand(best_index, best->shape(), {best});
  if (best_index == nullptr)
    return std::nullopt;
  out[1] = b.cast(best_index, DType::Int64);
  return out;
}

} // namespace

std::vector<Rule> maxPoolWindowRules() {
  return {{"aten::max_pool2d.default", maxPool2d}, {"aten::max_pool2d_with_indices.default", maxPool2d}};
}

} // namespace tico::decompose
