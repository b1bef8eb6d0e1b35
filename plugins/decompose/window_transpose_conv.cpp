// A dilated transposed convolution (TRANSPOSE_CONV has no dilation) with a constant weight
// becomes an undilated one whose kernel is dilated with zeros: tap (i, j) of the original
// kernel moves to (i * dilation_h, j * dilation_w) of a kernel of d * (k - 1) + 1 taps per
// axis. Every input pixel then lands on the same outputs with the same weights, and the
// output size (in - 1) * stride - 2 * pad + d * (k - 1) + output_padding + 1 is unchanged.
// A grouped transposed convolution (TRANSPOSE_CONV has no groups) with a constant weight
// becomes one per group, on that group's input channels with its rows of the [I, O/g, kh, kw]
// weight and its part of the bias, concatenated along the channels.
// With a computed weight the node is left as is, and the lowering says why it refuses it.
#include "window_geometry.h"

#include <cstring>

namespace tico::decompose {

using passes::Ints;

namespace {

bool isTransposed(const Node &n) {
  if (n.op().name != "convolution")
    return true; // conv_transpose2d
  const Argument *transposed = n.findArg("transposed");
  return transposed != nullptr && transposed->isBool() && transposed->asBool();
}

// The [I, O, kh, kw] weight with zeros between the taps.
std::shared_ptr<const TensorData> dilatedKernel(const TensorData &weight, int64_t dh, int64_t dw) {
  const std::vector<std::byte> bytes = weight.contiguousBytes();
  const std::size_t element = elementSize(weight.dtype);
  const int64_t planes = weight.sizes[0] * weight.sizes[1];
  const int64_t kh = weight.sizes[2], kw = weight.sizes[3];
  const int64_t dkh = dh * (kh - 1) + 1, dkw = dw * (kw - 1) + 1;
  std::vector<std::byte> out(static_cast<std::size_t>(planes * dkh * dkw) * element, std::byte{0});
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < kh; ++i)
      for (int64_t j = 0; j < kw; ++j)
        std::memcpy(out.data() + static_cast<std::size_t>((p * dkh + i * dh) * dkw + j * dw) * element,
                    bytes.data() + static_cast<std::size_t>((p * kh + i) * kw + j) * element, element);
  return std::make_shared<const TensorData>(
      TensorData::fromBytes(weight.dtype, {weight.sizes[0], weight.sizes[1], dkh, dkw}, std::move(out)));
}

// Rows [begin, begin + count) of dim 0 of a constant (a group's weights or biases).
std::shared_ptr<const TensorData> rowsOf(const TensorData &t, int64_t begin, int64_t count) {
  const std::vector<std::byte> bytes = t.contiguousBytes();
  const std::size_t row = bytes.size() / static_cast<std::size_t>(t.sizes[0]);
  std::vector<std::byte> out(bytes.begin() + static_cast<std::ptrdiff_t>(row * static_cast<std::size_t>(begin)),
                             bytes.begin() + static_cast<std::ptrdiff_t>(row * static_cast<std::size_t>(begin + count)));
  std::vector<int64_t> sizes = t.sizes;
  sizes[0] = count;
  return std::make_shared<const TensorData>(TensorData::fromBytes(t.dtype, std::move(sizes), std::move(out)));
}

Replacement rewriteTransposedConv(Builder &b, Node &n) {
  if (!isTransposed(n))
    return std::nullopt;
  Value *x = n.input("input");
  Value *weight = n.input("weight");
  Value *bias = optionalValue(n, "bias");
  auto dilation = intsArg(n, "dilation", 2, {1, 1});
  const std::optional<int64_t> groups = passes::staticInt(n.arg("groups"));
  if (!dilation || !groups || weight->rank() != 4 || x->rank() != 4 || (*dilation)[0] < 1 || (*dilation)[1] < 1 ||
      *groups < 1)
    return std::nullopt;
  const bool dilated = (*dilation)[0] != 1 || (*dilation)[1] != 1;
  if (!dilated && *groups == 1)
    return std::nullopt; // TRANSPOSE_CONV takes it
  // A computed weight (or a computed bias to split) is left to the lowering, whose refusal says why.
  if (!weight->isConstant() || (*groups > 1 && bias != nullptr && !bias->isConstant()))
    return std::nullopt;
  const TensorData &w = *weight->constant();
  const Dim &channels = x->shape()[1];
  const Value *out = n.output(0);
  if (!channels.isStatic() || channels.value() != w.sizes[0] || w.sizes[0] % *groups != 0 || out->rank() != 4)
    return std::nullopt;
  const int64_t in_per_group = w.sizes[0] / *groups;
  const int64_t out_per_group = w.sizes[1];

  std::vector<Value *> parts;
  for (int64_t g = 0; g < *groups; ++g) {
    std::shared_ptr<const TensorData> kernel = *groups == 1 ? weight->constant() : rowsOf(w, g * in_per_group, in_per_group);
    if (dilated)
      kernel = dilatedKernel(*kernel, (*dilation)[0], (*dilation)[1]);
    const std::string suffix = *groups == 1 ? "dilated_weight" : "weight_" + std::to_string(g);
    Value *group_kernel = b.constant(kernel, "_" + suffix);
    Value *group_input = x;
    Value *group_bias = bias;
    if (*groups > 1) {
      group_input = b.make("aten::slice.Tensor", {passes::A(x), passes::A(int64_t{1}), passes::A(g * in_per_group),
                                                  passes::A((g + 1) * in_per_group), passes::A(int64_t{1})});
      if (bias != nullptr)
        group_bias = b.constant(rowsOf(*bias->constant(), g * out_per_group, out_per_group), "_bias_" + std::to_string(g));
    }
    std::vector<NamedArg> args;
    for (const NamedArg &arg : n.args()) {
      if (arg.name == "input")
        args.push_back(NamedArg{arg.name, passes::A(group_input)});
      else if (arg.name == "weight")
        args.push_back(NamedArg{arg.name, passes::A(group_kernel)});
      else if (arg.name == "bias" && *groups > 1)
        args.push_back(NamedArg{arg.name, group_bias ? passes::A(group_bias) : Argument::none()});
      else if (arg.name == "dilation")
        args.push_back(NamedArg{arg.name, Ints({1, 1})});
      else if (arg.name == "groups")
        args.push_back(NamedArg{arg.name, passes::A(int64_t{1})});
      else
        args.push_back(arg);
    }
    Shape shape = out->shape();
    shape[1] = Dim(out_per_group);
    parts.push_back(b.typed(n.op().str(), std::move(args), out->dtype(), shape));
  }
  if (parts.size() == 1)
    return parts;
  return std::vector<Value *>{b.make("aten::cat.default", {Argument::values(parts), passes::A(int64_t{1})})};
}

} // namespace

std::vector<Rule> transposeConvWindowRules() {
  return {{"aten::conv_transpose2d.input", rewriteTransposedConv},
          {"aten::convolution.default", rewriteTransposedConv}};
}

} // namespace tico::decompose
