#include "window_geometry.h"

#include <algorithm>
#include <limits>

namespace tico::decompose {

using passes::A;
using passes::Ints;

std::vector<int64_t> WindowAxis::liveTaps() const {
  std::vector<int64_t> taps;
  for (int64_t t = 0; t < kernel; ++t) {
    // Positions of tap t over the outputs: position(0, t) + o * stride; is one inside [0, input)?
    const int64_t first = position(0, t);
    const int64_t last = position(output - 1, t);
    if (last < 0 || first >= input)
      continue;
    // The first output at or after position 0.
    const int64_t o = first >= 0 ? 0 : (-first + stride - 1) / stride;
    if (o < output && position(o, t) < input)
      taps.push_back(t);
  }
  return taps;
}

int64_t WindowAxis::padBefore() const {
  const std::vector<int64_t> taps = liveTaps();
  return taps.empty() ? 0 : std::max<int64_t>(0, -position(0, taps.front()));
}

int64_t WindowAxis::padAfter() const {
  const std::vector<int64_t> taps = liveTaps();
  return taps.empty() ? 0 : std::max<int64_t>(0, position(output - 1, taps.back()) + 1 - input);
}

bool WindowAxis::isGlobal() const {
  if (output != 1 || (dilation != 1 && input != 1))
    return false;
  // Output 0 reads [-pad, kernel - pad); it covers the input when it reaches its end.
  return kernel - pad >= input;
}

int64_t pooledSize(int64_t input, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, bool ceil_mode) {
  const int64_t span = input + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // Floor division (span may be negative for a window larger than the padded input).
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= input + pad)
    --out;
  return out;
}

std::optional<std::vector<int64_t>> intsArg(const Node &node, std::string_view name, std::size_t count,
                                            std::vector<int64_t> fallback) {
  const Argument *arg = node.findArg(name);
  if (arg == nullptr || arg->isNone())
    return fallback;
  if (arg->isInt())
    return std::vector<int64_t>(count, arg->asInt());
  if (!arg->isIntList())
    return std::nullopt;
  const std::vector<int64_t> &values = arg->asInts();
  if (values.empty())
    return fallback;
  if (values.size() == 1)
    return std::vector<int64_t>(count, values[0]);
  if (values.size() != count)
    return std::nullopt;
  return values;
}

std::optional<std::array<WindowAxis, 2>> poolAxes(const Node &node, const Value *input) {
  if (input->rank() < 3)
    return std::nullopt;
  auto kernel = intsArg(node, "kernel_size", 2, {});
  if (!kernel || kernel->size() != 2)
    return std::nullopt;
  auto stride = intsArg(node, "stride", 2, *kernel);
  auto pad = intsArg(node, "padding", 2, {0, 0});
  auto dilation = intsArg(node, "dilation", 2, {1, 1});
  const Argument *ceil = node.findArg("ceil_mode");
  const bool ceil_mode = ceil != nullptr && ceil->isBool() && ceil->asBool();
  if (!stride || !pad || !dilation)
    return std::nullopt;
  std::array<WindowAxis, 2> axes;
  const std::size_t first = static_cast<std::size_t>(input->rank()) - 2;
  for (std::size_t i = 0; i < 2; ++i) {
    const Dim &size = input->shape()[first + i];
    if (!size.isStatic() || (*kernel)[i] < 1 || (*stride)[i] < 1 || (*pad)[i] < 0 || (*dilation)[i] < 1)
      return std::nullopt;
    WindowAxis &a = axes[i];
    a.input = size.value();
    a.kernel = (*kernel)[i];
    a.stride = (*stride)[i];
    a.pad = (*pad)[i];
    a.dilation = (*dilation)[i];
    a.output = pooledSize(a.input, a.kernel, a.stride, a.pad, a.dilation, ceil_mode);
    // PyTorch rejects these at export; a hand-written graph may not have been checked.
    const Shape &out = node.output(0)->shape();
    if (a.output < 1 || out.size() != static_cast<std::size_t>(input->rank()) ||
        (out[first + i].isStatic() && out[first + i].value() != a.output))
      return std::nullopt;
  }
  return axes;
}

bool hasCeilWindow(const WindowAxis &axis) {
  return axis.output != pooledSize(axis.input, axis.kernel, axis.stride, axis.pad, axis.dilation, false);
}

Value *padForWindows(Builder &b, Value *input, const std::array<WindowAxis, 2> &axes, double fill) {
  // constant_pad_nd lists the last dim first.
  std::vector<int64_t> pads{axes[1].padBefore(), axes[1].padAfter(), axes[0].padBefore(), axes[0].padAfter()};
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }))
    return input;
  return b.make("aten::constant_pad_nd.default", {A(input), Ints(pads), A(fill)});
}

Value *tapSlice(Builder &b, Value *padded, const std::array<WindowAxis, 2> &axes, int64_t axis, int64_t tap) {
  const WindowAxis &a = axes[static_cast<std::size_t>(axis)];
  const int64_t dim = padded->rank() - 2 + axis;
  const int64_t begin = a.position(0, tap) + a.padBefore();
  const int64_t end = begin + (a.output - 1) * a.stride + 1;
  const Dim &size = padded->shape()[static_cast<std::size_t>(dim)];
  if (begin == 0 && a.stride == 1 && size.isStatic() && size.value() == end)
    return padded; // the whole axis
  return b.make("aten::slice.Tensor", {A(padded), A(dim), A(begin), A(end), A(a.stride)});
}

Value *reduceWindows(Builder &b, Value *input, const std::array<WindowAxis, 2> &axes, WindowReduction reduction) {
  const bool max = reduction == WindowReduction::Max;
  const double fill = max ? -std::numeric_limits<double>::infinity() : 0.0;
  // Global axes first, on the unpadded input: their padding would add nothing.
  std::array<WindowAxis, 2> rest = axes;
  Value *x = input;
  for (int64_t axis = 0; axis < 2; ++axis) {
    WindowAxis &a = rest[static_cast<std::size_t>(axis)];
    if (!a.isGlobal())
      continue;
    const int64_t dim = input->rank() - 2 + axis;
    if (a.input > 1)
      x = b.make(max ? "aten::amax.default" : "aten::sum.dim_IntList", {A(x), Ints({dim}), A(true)});
    // The reduced axis is a 1 x 1 window now.
    a = WindowAxis{1, 1, 1, 0, 1, 1};
  }
  Value *padded = padForWindows(b, x, rest, fill);
  Value *acc = padded;
  for (int64_t axis = 1; axis >= 0; --axis) {
    Value *sum = nullptr;
    for (int64_t tap : rest[static_cast<std::size_t>(axis)].liveTaps()) {
      Value *slice = tapSlice(b, acc, rest, axis, tap);
      if (sum == nullptr)
        sum = slice;
      else
        sum = max ? b.make("aten::maximum.default", {A(sum), A(slice)}) : b.add(A(sum), A(slice));
    }
    acc = sum;
  }
  return acc;
}

} // namespace tico::decompose
