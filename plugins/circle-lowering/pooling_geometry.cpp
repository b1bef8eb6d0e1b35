#include "pooling_geometry.h"

#include "support.h"

namespace tico::lowering {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool sameMatches(const Dim &size, const Window &w) {
  int64_t extent = w.dilation * (w.kernel - 1) + 1;
  if (size.isSymbolic())
    return w.stride == 1 && 2 * w.pad == extent - 1;
  int64_t n = size.value();
  int64_t out_same = ceilDiv(n, w.stride);
  int64_t total = std::max<int64_t>((out_same - 1) * w.stride + extent - n, 0);
  return out_same == windowOutputSize(n, w) && total / 2 == w.pad;
}

} // namespace

int64_t windowOutputSize(int64_t input, const Window &w) {
  int64_t extent = w.dilation * (w.kernel - 1) + 1;
  return (input + 2 * w.pad - extent) / w.stride + 1;
}

PaddingChoice choosePadding(const Dim &height, const Dim &width, const Window &h, const Window &w) {
  if (h.pad == 0 && w.pad == 0)
    return PaddingChoice::Valid;
  if (sameMatches(height, h) && sameMatches(width, w))
    return PaddingChoice::Same;
  return PaddingChoice::Explicit;
}

Shape paddedShape(const Shape &nhwc, int64_t ph, int64_t pw) {
  Shape out = nhwc;
  auto grow = [](const Dim &d, int64_t by) {
    // A symbolic size stays symbolic (1 in the shape, -1 in the signature).
    return d.isSymbolic() ? Dim::symbolic("(" + d.expr() + ") + " + std::to_string(by), d.value() + by)
                          : Dim(d.value() + by);
  };
  out[1] = grow(nhwc[1], 2 * ph);
  out[2] = grow(nhwc[2], 2 * pw);
  return out;
}

int32_t emitSpatialPad(CircleEmitter &emit, int32_t input, DType dtype, const Shape &nhwc, int64_t ph, int64_t pw,
                       std::shared_ptr<const TensorData> pad_value, const std::string &base) {
  std::vector<int32_t> pads = {0, 0, toInt32(ph, "padding"), toInt32(ph, "padding"),
                               toInt32(pw, "padding"), toInt32(pw, "padding"), 0, 0};
  int32_t paddings = emit.constant(
      std::make_shared<TensorData>(TensorData::fromVector<int32_t>(DType::Int32, {4, 2}, pads)), base + "_paddings");
  int32_t out = emit.newTensor(dtype, paddedShape(nhwc, ph, pw), base + "_padded");
  if (!pad_value) {
    emit.addOperator(circle::BuiltinOperator::PAD, {input, paddings}, {out}, options(circle::PadOptionsT{}));
    return out;
  }
  int32_t value = emit.constant(std::move(pad_value), base + "_pad_value");
  emit.addOperator(circle::BuiltinOperator::PADV2, {input, paddings, value}, {out}, options(circle::PadV2OptionsT{}));
  return out;
}

} // namespace tico::lowering
