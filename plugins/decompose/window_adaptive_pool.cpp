// adaptive_avg_pool2d with an output size that is neither 1x1 nor a divisor of the input
// (which the Circle lowering takes as MEAN or AVERAGE_POOL_2D) has windows of varying size:
// output i of an axis averages input [floor(i*in/out), ceil((i+1)*in/out)). Each window is a
// rectangle, so its mean is the mean over its rows of the mean over its columns: the rewrite
// pools H (one slice + keepdim mean per output row, then a cat) and then W the same way.
// adaptive_max_pool2d (no Circle lowering at all) takes the same windows with amax, when its
// indices output is unused; adaptive_avg_pool1d (raw torch.export) becomes unsqueeze, the
// 2-d form over a 1 x L plane, and squeeze.
#include "window_geometry.h"

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

// `x` pooled adaptively to `out` along `dim` (static size `in`) with mean or amax.
Value *adaptivePoolAlong(Builder &b, Value *x, int64_t dim, int64_t in, int64_t out, bool max) {
  if (in == out)
    return x;
  std::vector<Value *> pieces;
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = i * in / out;
    const int64_t end = ((i + 1) * in + out - 1) / out;
    Value *window = x;
    if (start != 0 || end != in)
      window = b.make("aten::slice.Tensor", {A(x), A(dim), A(start), A(end), A(int64_t{1})});
    if (end - start > 1)
      window = b.make(max ? "aten::amax.default" : "aten::mean.dim", {A(window), Ints({dim}), A(true)});
    pieces.push_back(window);
  }
  if (pieces.size() == 1)
    return pieces.front();
  return b.make("aten::cat.default", {Argument::values(pieces), A(dim)});
}

Replacement adaptivePool2d(Builder &b, Node &n, bool max) {
  Value *x = n.input("self");
  if (max && n.numOutputs() > 1 && (n.output(1)->hasUsers() || b.graph().isGraphOutput(n.output(1))))
    return std::nullopt; // the indices of adaptive_max_pool2d are not computed
  if (!isFloating(x->dtype()) || x->rank() < 3)
    return std::nullopt;
  auto size = intsArg(n, "output_size", 2, {});
  if (!size || size->size() != 2)
    return std::nullopt;
  const int64_t first = x->rank() - 2;
  int64_t in[2];
  for (int64_t i = 0; i < 2; ++i) {
    const Dim &d = x->shape()[static_cast<std::size_t>(first + i)];
    if (!d.isStatic() || (*size)[static_cast<std::size_t>(i)] < 1)
      return std::nullopt;
    in[i] = d.value();
  }
  const int64_t oh = (*size)[0], ow = (*size)[1];
  // What the lowering takes (batched input): a 1x1 output, or one that divides the input.
  const bool lowered = x->rank() == 4 && ((oh == 1 && ow == 1) || (in[0] % oh == 0 && in[1] % ow == 0));
  if (lowered && !max)
    return std::nullopt;
  Value *rows = adaptivePoolAlong(b, x, first, in[0], oh, max);
  std::vector<Value *> out(n.numOutputs(), nullptr);
  out[0] = adaptivePoolAlong(b, rows, first + 1, in[1], ow, max);
  return out;
}

Replacement adaptiveAvgPool1d(Builder &b, Node &n) {
  Value *x = n.input("self");
  const Value *out = n.output(0);
  auto size = intsArg(n, "output_size", 1, {});
  if (!size || size->size() != 1 || x->rank() < 2 || out->rank() != x->rank())
    return std::nullopt;
  Shape pooled_shape = out->shape();
  pooled_shape.insert(pooled_shape.end() - 1, Dim(1));
  Value *plane = b.make("aten::unsqueeze.default", {A(x), A(int64_t{-2})});
  Value *pooled = b.typed("aten::adaptive_avg_pool2d.default", {{"", A(plane)}, {"", Ints({1, (*size)[0]})}},
                          out->dtype(), pooled_shape);
  return std::vector<Value *>{b.make("aten::squeeze.dims", {A(pooled), Ints({-2})})};
}

} // namespace

std::vector<Rule> adaptivePoolWindowRules() {
  auto avg = [](Builder &b, Node &n) { return adaptivePool2d(b, n, false); };
  return {{"aten::adaptive_avg_pool2d.default", avg},
          {"aten::_adaptive_avg_pool2d.default", avg},
          {"aten::adaptive_max_pool2d.default", [](Builder &b, Node &n) { return adaptivePool2d(b, n, true); }},
          {"aten::adaptive_avg_pool1d.default", adaptiveAvgPool1d}};
}

} // namespace tico::decompose
