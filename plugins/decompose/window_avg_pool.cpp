// avg_pool2d that AVERAGE_POOL_2D cannot express becomes an unrolled window
// (window_geometry.h): the window sums (separable: columns, then rows; a window covering the
// whole input is a sum over it) divided by a constant [OH, OW] tensor of PyTorch's divisors.
// The cases:
//   - divisor_override (Circle divides by the window size),
//   - ceil_mode with a window that starts in the padding and is clipped there,
//   - count_include_pad=False with padding that TFLite's SAME does not reproduce.
// PyTorch's divisor for output o on one axis: start = o*stride - pad, end = min(start +
// kernel, input + pad); count_include_pad divides by (end - start) on each axis, otherwise by
// the part of [start, end) inside the input; divisor_override replaces both. The zeros of the
// padding add nothing.
#include "window_geometry.h"

#include <algorithm>

namespace tico::decompose {

using passes::A;

namespace {

// Whether TFLite's SAME padding puts PyTorch's windows (and so its count_include_pad=False
// divisors) on this axis: same output size and the same padding before the input. The rule
// of choosePadding in the Circle lowering (pooling_geometry.cpp), which takes these cases.
bool sameMatches(const WindowAxis &a) {
  const int64_t out_same = (a.input + a.stride - 1) / a.stride;
  const int64_t total = std::max<int64_t>((out_same - 1) * a.stride + a.extent() - a.input, 0);
  return out_same == a.output && total / 2 == a.pad;
}

// Whether the Circle lowering of avg_pool2d refuses this node (the cases listed above).
bool needsUnrolling(const Node &n, const std::array<WindowAxis, 2> &axes) {
  if (!n.arg("divisor_override").isNone())
    return true;
  if (hasCeilWindow(axes[0]) || hasCeilWindow(axes[1]))
    return true;
  const bool padded = axes[0].pad != 0 || axes[1].pad != 0;
  return padded && !n.arg("count_include_pad").asBool() && !(sameMatches(axes[0]) && sameMatches(axes[1]));
}

// The divisor of output `o` on one axis, before divisor_override.
int64_t axisDivisor(const WindowAxis &a, int64_t o, bool count_include_pad) {
  int64_t start = o * a.stride - a.pad;
  int64_t end = std::min(start + a.kernel, a.input + a.pad);
  if (count_include_pad)
    return end - start;
  start = std::max<int64_t>(start, 0);
  end = std::min(end, a.input);
  return end - start;
}

Replacement avgPool2d(Builder &b, Node &n) {
  Value *x = n.input("self");
  if (x->dtype() != DType::Float32)
    return std::nullopt;
  auto axes = poolAxes(n, x);
  if (!axes || !needsUnrolling(n, *axes))
    return std::nullopt;
  const WindowAxis &h = (*axes)[0];
  const WindowAxis &w = (*axes)[1];
  const bool include_pad = n.arg("count_include_pad").asBool();
  const Argument &override_arg = n.arg("divisor_override");
  if (!override_arg.isNone() && override_arg.asInt() == 0)
    return std::nullopt; // PyTorch refuses a zero divisor; leave the node to the lowering's error

  Value *sum = reduceWindows(b, x, *axes, WindowReduction::Sum);
  Value *divisor = perPositionConstant<float>(b, "divisor", DType::Float32, *axes, [&](int64_t oh, int64_t ow) {
    if (!override_arg.isNone())
      return override_arg.asInt();
    return axisDivisor(h, oh, include_pad) * axisDivisor(w, ow, include_pad);
  });
  return std::vector<Value *>{b.div(A(sum), A(divisor))};
}

} // namespace

std::vector<Rule> avgPoolWindowRules() { return {{"aten::avg_pool2d.default", avgPool2d}}; }

} // namespace tico::decompose
