// conv1d/conv2d/conv3d with a padding mode ("valid" or "same", the `.padding` overloads that
// torch.export records for nn.ConvNd(padding="same"|"valid")) become the explicit-padding
// `.default` overloads with the padding ATen itself computes, so that every later pass (the
// 1-D/3-D to 2-D rewrites, the grouped-conv split) and lowering sees a single form:
//
//   valid   padding 0
//   same    per spatial dim: total = dilation * (kernel - 1), before = total / 2,
//           after = total - before (ATen's _convolution_mode; stride must be 1)
//
// When every dim pads symmetrically, the padding becomes the convolution's own (a 2-D one
// then lowers to CONV_2D with SAME, as before). An even effective kernel pads one more
// element after than before, which a convolution's symmetric padding cannot express: the
// whole padding then goes into one constant_pad_nd ahead of a convolution with padding 0
// (the same amounts ATen pads; one PAD instead of ATen's pad-the-difference plus padding).
// run_decompositions() already gives this explicit form, so both saved forms convert alike.
#include "window_families.h"
#include "window_geometry.h"

namespace tico::decompose {

using passes::A;
using passes::Ints;

namespace {

// Per spatial dim: padding before and after.
struct SpatialPadding {
  std::vector<int64_t> before, after;

  bool symmetric() const { return before == after; }
};

std::optional<SpatialPadding> modePadding(const std::string &mode, const std::vector<int64_t> &kernel,
                                          const std::vector<int64_t> &stride, const std::vector<int64_t> &dilation) {
  SpatialPadding p;
  for (std::size_t i = 0; i < kernel.size(); ++i) {
    if (mode == "valid") {
      p.before.push_back(0);
      p.after.push_back(0);
      continue;
    }
    // PyTorch refuses strided 'same' convolutions, so no exported graph has one.
    if (mode != "same" || stride[i] != 1)
      return std::nullopt;
    const int64_t total = dilation[i] * (kernel[i] - 1);
    p.before.push_back(total / 2);
    p.after.push_back(total - total / 2);
  }
  return p;
}

Replacement explicitPadding(Builder &b, Node &n, std::size_t spatial) {
  const Argument &padding_arg = n.arg("padding");
  if (padding_arg.kind() != Argument::Kind::String)
    return std::nullopt;
  Value *x = n.input("input");
  Value *weight = n.input("weight");
  const Value *out = n.output(0);
  const auto rank = static_cast<std::size_t>(weight->rank());
  if (rank != spatial + 2 || static_cast<std::size_t>(x->rank()) < spatial + 1)
    return std::nullopt;
  std::vector<int64_t> kernel;
  for (std::size_t i = 2; i < rank; ++i) {
    if (!weight->shape()[i].isStatic())
      return std::nullopt;
    kernel.push_back(weight->shape()[i].value());
  }
  auto stride = intsArg(n, "stride", spatial, std::vector<int64_t>(spatial, 1));
  auto dilation = intsArg(n, "dilation", spatial, std::vector<int64_t>(spatial, 1));
  if (!stride || !dilation)
    return std::nullopt;
  auto padding = modePadding(padding_arg.asString(), kernel, *stride, *dilation);
  if (!padding)
    return std::nullopt;

  Value *input = x;
  std::vector<int64_t> conv_padding = padding->before;
  if (!padding->symmetric()) {
    std::vector<int64_t> pads; // constant_pad_nd lists the last dim first
    for (std::size_t i = spatial; i-- > 0;) {
      pads.push_back(padding->before[i]);
      pads.push_back(padding->after[i]);
    }
    input = b.make("aten::constant_pad_nd.default", {A(input), Ints(std::move(pads)), A(0.0)});
    conv_padding.assign(spatial, 0);
  }
  const std::string op = "aten::conv" + std::to_string(spatial) + "d.default";
  Value *conv = b.typed(op,
                        {{"input", A(input)},
                         {"weight", A(weight)},
                         {"bias", n.arg("bias")},
                         {"stride", Ints(*stride)},
                         {"padding", Ints(std::move(conv_padding))},
                         {"dilation", Ints(*dilation)},
                         {"groups", n.arg("groups")}},
                        out->dtype(), out->shape());
  return std::vector<Value *>{conv};
}

} // namespace

std::vector<Rule> convPaddingWindowRules() {
  std::vector<Rule> rules;
  for (std::size_t spatial : {1, 2, 3})
    rules.push_back({"aten::conv" + std::to_string(spatial) + "d.padding",
                     [spatial](Builder &b, Node &n) { return explicitPadding(b, n, spatial); }});
  return rules;
}

} // namespace tico::decompose
