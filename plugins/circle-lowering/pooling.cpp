// max_pool2d(_with_indices), avg_pool2d, adaptive_avg_pool2d -> MAX_POOL_2D / AVERAGE_POOL_2D
// (or MEAN), between TRANSPOSEs to NHWC and back; the channels-last circle::maxpool2d and
// circle::avgpool2d (same attributes, NHWC input) map onto the same operators directly.
//
// Padding: VALID when there is none; SAME when TFLite's SAME windows coincide with PyTorch's
// (see pooling_geometry.h). Otherwise max pooling pads with PADV2 and the dtype's lowest
// value, so padding never wins the max. Average pooling depends on count_include_pad:
// PyTorch's default (True) divides by the full window, padding included, which is PAD with
// zeros + VALID; False divides by the real elements only, which is what SAME does in TFLite,
// so it is supported exactly when SAME matches.
#include "lowerings.h"
#include "pooling_geometry.h"
#include "support.h"
#include "tico/ops/torch_ops.h"
#include "tico/ops/circle_ops.h"

namespace tico::lowering {
namespace {

struct PoolParams {
  Window h, w;
  bool ceil_mode = false;
};

PoolParams decode(const Node &node, bool has_dilation) {
  PoolParams p;
  auto kernel = intList(node.arg("kernel_size"), 2, "kernel_size");
  const Argument &stride_arg = node.arg("stride");
  // An empty stride means "same as the kernel".
  std::vector<int64_t> stride = stride_arg.isIntList() && stride_arg.asInts().empty()
                                    ? kernel
                                    : intList(stride_arg, 2, "stride");
  auto padding = intList(node.arg("padding"), 2, "padding");
  std::vector<int64_t> dilation = has_dilation ? intList(node.arg("dilation"), 2, "dilation")
                                               : std::vector<int64_t>{1, 1};
  p.h = Window{stride[0], dilation[0], kernel[0], padding[0]};
  p.w = Window{stride[1], dilation[1], kernel[1], padding[1]};
  p.ceil_mode = node.arg("ceil_mode").asBool();
  return p;
}

// Index of the height dim of the pooled input: NCHW for the ATen ops, NHWC for circle:: ones.
std::size_t heightDim(bool nhwc) { return nhwc ? 1 : 2; }

std::string checkCommon(const Node &node, const PoolParams &p, const char *what, bool nhwc) {
  const Value *in = node.input(0);
  if (in->rank() != 4)
    return std::string(what) + " is supported for batched " + (nhwc ? "NHWC" : "NCHW") + " input only (rank " +
           std::to_string(in->rank()) + ")";
  if (anyQuantized({in, node.output(0)})) {
    // Quantized pooling: codes of one type with one set of parameters in and out (the kernels
    // check the parameters); padding would need a quantized PAD of its own.
    if (auto r = quantizedSameType({in, node.output(0)}, what); !r.empty())
      return r;
    const Shape &s = in->shape();
    const std::size_t h = heightDim(nhwc);
    if (p.h.pad != 0 || p.w.pad != 0) {
      if (s[h].isSymbolic() || s[h + 1].isSymbolic() ||
          choosePadding(s[h], s[h + 1], p.h, p.w) == PaddingChoice::Explicit)
        return std::string("quantized ") + what + " with explicit padding is not supported";
      if (std::string_view(what) == "AVERAGE_POOL_2D" && node.arg("count_include_pad").asBool())
        return "quantized AVERAGE_POOL_2D with padding counted in the average is not supported";
    }
  } else if (auto r = requireFloat(in, what); !r.empty()) {
    return r;
  }
  // decompose-composite-ops unrolls these windows (window_max_pool.cpp, window_avg_pool.cpp)
  // when the spatial sizes are static and the input is floating point; what reaches here is not.
  if (p.h.dilation != 1 || p.w.dilation != 1)
    return std::string(what) + " has no dilation (dilated windows are unrolled only over static spatial sizes)";
  if (p.ceil_mode) {
    // ceil_mode only matters when it adds a partial window at the end.
    const Shape &s = in->shape();
    const Shape &o = node.output()->shape();
    std::size_t h = heightDim(nhwc), w = h + 1;
    if (s[h].isSymbolic() || s[w].isSymbolic() || o[h].isSymbolic() || o[w].isSymbolic() ||
        o[h].value() != windowOutputSize(s[h].value(), p.h) || o[w].value() != windowOutputSize(s[w].value(), p.w))
      return "ceil_mode=True with a partial last window is supported over static spatial sizes only";
  }
  return {};
}

circle::Pool2DOptionsT poolOptions(const PoolParams &p, circle::Padding padding) {
  circle::Pool2DOptionsT pool;
  pool.padding = padding;
  pool.stride_h = toInt32(p.h.stride, "stride");
  pool.stride_w = toInt32(p.w.stride, "stride");
  pool.filter_height = toInt32(p.h.kernel, "kernel_size");
  pool.filter_width = toInt32(p.w.kernel, "kernel_size");
  return pool;
}

// The NHWC input of the pooling operator (a TRANSPOSE of an NCHW input) and its shape.
std::pair<int32_t, Shape> nhwcInput(const Node &node, CircleEmitter &emit, bool nhwc) {
  const Value *in = node.input(0);
  if (nhwc)
    return {emit.tensor(in), in->shape()};
  int32_t x = emitTranspose(emit, emit.tensor(in), in->dtype(), in->shape(), {0, 2, 3, 1}, node.name() + "_input_nhwc");
  if (in->quant())
    emit.setQuantization(x, *in->quant());
  return {x, permuteShape(in->shape(), {0, 2, 3, 1})};
}

// The tensor the pooling operator writes: the node's output, or an NHWC temporary that a
// TRANSPOSE brings back to NCHW (finishNhwcOutput).
int32_t nhwcOutput(const Node &node, CircleEmitter &emit, bool nhwc) {
  const Value *out = node.output(0);
  if (nhwc)
    return emit.tensor(out);
  int32_t y = emit.newTensor(out->dtype(), permuteShape(out->shape(), {0, 2, 3, 1}), node.name() + "_nhwc");
  if (out->quant())
    emit.setQuantization(y, *out->quant());
  return y;
}

void finishNhwcOutput(const Node &node, CircleEmitter &emit, bool nhwc, int32_t y) {
  if (!nhwc)
    emitTransposeInto(emit, y, {0, 3, 1, 2}, emit.tensor(node.output(0)), node.name() + "_output_nchw");
}

class MaxPool2d final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (node.numOutputs() > 1) {
      const Value *indices = node.output(1);
      if (indices->hasUsers() || node.graph()->isGraphOutput(indices))
        return "the indices output of max_pool2d_with_indices is used; Circle's MAX_POOL_2D has none (indices are "
               "computed from an unrolled window only for float input with static spatial sizes)";
    }
    return checkCommon(node, decode(node, true), "MAX_POOL_2D", nhwc_);
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const std::string base = node.name();
    PoolParams p = decode(node, true);
    auto [x, x_shape] = nhwcInput(node, emit, nhwc_);
    PaddingChoice choice = choosePadding(x_shape[1], x_shape[2], p.h, p.w);
    circle::Padding padding = choice == PaddingChoice::Same ? circle::Padding::SAME : circle::Padding::VALID;
    if (choice == PaddingChoice::Explicit)
      x = emitSpatialPad(emit, x, in->dtype(), x_shape, p.h.pad, p.w.pad, lowestScalar(in->dtype()), base);
    int32_t y = nhwcOutput(node, emit, nhwc_);
    emit.addOperator(circle::BuiltinOperator::MAX_POOL_2D, {x}, {y}, options(poolOptions(p, padding)));
    finishNhwcOutput(node, emit, nhwc_, y);
  }

  explicit MaxPool2d(bool nhwc) : nhwc_(nhwc) {}

private:
  bool nhwc_;
};

class AvgPool2d final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    if (!node.arg("divisor_override").isNone())
      return "avg_pool2d with divisor_override is supported for float32 input with static spatial sizes only";
    PoolParams p = decode(node, false);
    if (auto r = checkCommon(node, p, "AVERAGE_POOL_2D", nhwc_); !r.empty())
      return r;
    const Value *in = node.input(0);
    std::size_t h = heightDim(nhwc_);
    if (!node.arg("count_include_pad").asBool() &&
        choosePadding(in->shape()[h], in->shape()[h + 1], p.h, p.w) == PaddingChoice::Explicit)
      return "avg_pool2d with count_include_pad=False and padding that TFLite's SAME does not reproduce is "
             "supported for float32 input with static spatial sizes only";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const std::string base = node.name();
    PoolParams p = decode(node, false);
    auto [x, x_shape] = nhwcInput(node, emit, nhwc_);
    circle::Padding padding = circle::Padding::VALID;
    if (p.h.pad != 0 || p.w.pad != 0) {
      if (node.arg("count_include_pad").asBool())
        x = emitSpatialPad(emit, x, in->dtype(), x_shape, p.h.pad, p.w.pad, nullptr, base);
      else
        padding = circle::Padding::SAME; // check() made sure SAME matches
    }
    int32_t y = nhwcOutput(node, emit, nhwc_);
    emit.addOperator(circle::BuiltinOperator::AVERAGE_POOL_2D, {x}, {y}, options(poolOptions(p, padding)));
    finishNhwcOutput(node, emit, nhwc_, y);
  }

  explicit AvgPool2d(bool nhwc) : nhwc_(nhwc) {}

private:
  bool nhwc_;
};

// Output 1x1 is a MEAN over H and W (any input size); an output that divides a static input
// evenly is an AVERAGE_POOL_2D with kernel = stride = input / output.
class AdaptiveAvgPool2d final : public CheckedLowering {
public:
  std::string check(const Node &node) const override {
    const Value *in = node.input(0);
    if (in->rank() != 4)
      return "adaptive_avg_pool2d is supported for batched NCHW input only";
    if (auto r = requireFloat(in, "adaptive_avg_pool2d"); !r.empty())
      return r;
    auto size = intList(node.arg(1), 2, "output_size");
    if (size[0] == 1 && size[1] == 1)
      return {};
    const Shape &s = in->shape();
    if (s[2].isSymbolic() || s[3].isSymbolic() || size[0] <= 0 || size[1] <= 0 || s[2].value() % size[0] != 0 ||
        s[3].value() % size[1] != 0)
      return "adaptive_avg_pool2d needs an output size of 1x1, one that divides the input size, or static spatial "
             "sizes (uneven windows are decomposed into slices and means)";
    return {};
  }

  void lower(const Node &node, CircleEmitter &emit) const override {
    const Value *in = node.input(0);
    const Value *out = node.output();
    const std::string base = node.name();
    auto size = intList(node.arg(1), 2, "output_size");
    if (size[0] == 1 && size[1] == 1) {
      circle::ReducerOptionsT mean;
      mean.keep_dims = true;
      emitOp(emit, circle::BuiltinOperator::MEAN, {emit.tensor(in), emit.constInt32({2, 3}, base + "_axes")}, out,
             options(std::move(mean)));
      return;
    }
    PoolParams p;
    int64_t kh = in->shape()[2].value() / size[0];
    int64_t kw = in->shape()[3].value() / size[1];
    p.h = Window{kh, 1, kh, 0};
    p.w = Window{kw, 1, kw, 0};
    int32_t x = emitTranspose(emit, emit.tensor(in), in->dtype(), in->shape(), {0, 2, 3, 1}, base + "_input_nhwc");
    int32_t y = emit.newTensor(out->dtype(), permuteShape(out->shape(), {0, 2, 3, 1}), base + "_nhwc");
    emit.addOperator(circle::BuiltinOperator::AVERAGE_POOL_2D, {x}, {y},
                     options(poolOptions(p, circle::Padding::VALID)));
    emitTransposeInto(emit, y, {0, 3, 1, 2}, emit.tensor(out), base + "_output_nchw");
  }
};

} // namespace

void registerPooling(Registrar &r) {
  registerFor(r, {ops::aten::max_pool2d_default, ops::aten::max_pool2d_with_indices_default},
              "TRANSPOSE -> MAX_POOL_2D (+PADV2 with the dtype minimum) -> TRANSPOSE; indices unsupported",
              std::make_shared<MaxPool2d>(false));
  registerFor(r, {ops::circle::maxpool2d_default}, "MAX_POOL_2D (+PADV2 with the dtype minimum), NHWC",
              std::make_shared<MaxPool2d>(true));
  registerFor(r, {ops::aten::avg_pool2d_default},
              "TRANSPOSE -> AVERAGE_POOL_2D (+PAD when count_include_pad) -> TRANSPOSE",
              std::make_shared<AvgPool2d>(false));
  registerFor(r, {ops::circle::avgpool2d_default}, "AVERAGE_POOL_2D (+PAD when count_include_pad), NHWC",
              std::make_shared<AvgPool2d>(true));
  registerFor(r, {ops::aten::adaptive_avg_pool2d_default, ops::aten::_adaptive_avg_pool2d_default},
              "MEAN over H, W (1x1 output) or AVERAGE_POOL_2D", std::make_shared<AdaptiveAvgPool2d>());
}

} // namespace tico::lowering
