// PAD (zeros; the zero point for quantized tensors), PADV2 (a scalar constant, third input) and MIRROR_PAD (REFLECT / SYMMETRIC):
// paddings is an int32/int64 [rank, 2] tensor of (before, after) per dim. Any dtype.
#include "dispatch.h"
#include "kernels/registrations.h"
#include "quant/qparams.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

std::vector<int64_t> paddingsOf(KernelContext &ctx, const Tensor &input) {
  const Tensor &paddings = ctx.input(1);
  check(paddings.rank() == 2 && paddings.dim(1) == 2 && paddings.dim(0) == input.rank(),
        "paddings must be [" + std::to_string(input.rank()) + ", 2], got shape " + shapeString(paddings.shape));
  std::vector<int64_t> values = integerValues(paddings);
  for (int64_t v : values)
    check(v >= 0, "paddings " + shapeString(values) + " has a negative value");
  return values;
}

// Output element -> input element: constant padding returns -1 outside the input.
template <typename Map>
void padInto(const Tensor &input, const std::vector<int64_t> &pads, Tensor &out, const std::byte *fill, Map map) {
  const std::size_t rank = input.shape.size();
  const std::size_t element = elementSize(input.dtype);
  const std::vector<int64_t> in_strides = contiguousStrides(input.shape);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t offset = 0;
    bool inside = true;
    for (std::size_t d = 0; d < rank && inside; ++d) {
      const int64_t source = map(index[d] - pads[2 * d], input.shape[d]);
      inside = source >= 0;
      offset += source * in_strides[d];
    }
    std::memcpy(out.data + static_cast<std::size_t>(i) * element,
                inside ? input.data + static_cast<std::size_t>(offset) * element : fill, element);
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
  }
}

Shape paddedShape(const Tensor &input, const std::vector<int64_t> &pads) {
  Shape shape = input.shape;
  for (std::size_t d = 0; d < shape.size(); ++d)
    shape[d] += pads[2 * d] + pads[2 * d + 1];
  return shape;
}

void runConstantPad(KernelContext &ctx, bool with_value) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> pads = paddingsOf(ctx, input);
  std::vector<std::byte> fill(elementSize(input.dtype), std::byte{0});
  if (with_value && ctx.present(2)) {
    const Tensor &value = ctx.input(2);
    check(value.dtype == input.dtype && value.numel() == 1,
          "the pad value must be one " + dtypeString(input.dtype) + " element, got " + dtypeString(value.dtype) +
              shapeString(value.shape));
    std::memcpy(fill.data(), value.data, fill.size());
  } else if (const CircleTensor &result = ctx.outputTensor(0);
             quant::isQuantizedTensor(result) && !result.quantization->zero_point.empty()) {
    // Quantized padding is the real value 0, i.e. the zero point, not the code 0.
    const int64_t zero = result.quantization->zero_point[0];
    check(fill.size() <= sizeof(int64_t), "cannot pad " + dtypeString(input.dtype) + " with a zero point");
    for (std::size_t b = 0; b < fill.size(); ++b) // little-endian bytes of the zero point
      fill[b] = static_cast<std::byte>((static_cast<uint64_t>(zero) >> (8 * b)) & 0xFF);
  }
  Tensor &out = ctx.allocateOutput(0, input.dtype, paddedShape(input, pads));
  if (out.numel() == 0)
    return;
  if (input.numel() == 0) {
    for (int64_t i = 0; i < out.numel(); ++i)
      std::memcpy(out.data + static_cast<std::size_t>(i) * fill.size(), fill.data(), fill.size());
    return;
  }
  // Row by row over the last dim: rows outside the input are all fill; the others are fill,
  // one input row, fill.
  const std::size_t element = fill.size();
  const bool zero_fill = std::all_of(fill.begin(), fill.end(), [](std::byte b) { return b == std::byte{0}; });
  auto fillRun = [&](std::byte *dst, int64_t count) {
    if (zero_fill)
      std::memset(dst, 0, static_cast<std::size_t>(count) * element);
    else
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(dst + static_cast<std::size_t>(i) * element, fill.data(), element);
  };
  const std::size_t rank = input.shape.size();
  if (rank == 0) {
    std::memcpy(out.data, input.data, element);
    return;
  }
  const int64_t row = out.shape.back(), in_row = input.shape.back();
  const int64_t before = pads[2 * (rank - 1)], after = pads[2 * (rank - 1) + 1];
  const std::vector<int64_t> in_strides = contiguousStrides(input.shape);
  std::vector<int64_t> index(rank - 1, 0);
  const int64_t rows = out.numel() / row;
  for (int64_t r = 0; r < rows; ++r) {
    std::byte *dst = out.data + static_cast<std::size_t>(r * row) * element;
    int64_t offset = 0;
    bool inside = true;
    for (std::size_t d = 0; d + 1 < rank && inside; ++d) {
      const int64_t source = index[d] - pads[2 * d];
      inside = source >= 0 && source < input.shape[d];
      offset += source * in_strides[d];
    }
    if (inside) {
      fillRun(dst, before);
      std::memcpy(dst + static_cast<std::size_t>(before) * element,
                  input.data + static_cast<std::size_t>(offset) * element, static_cast<std::size_t>(in_row) * element);
      fillRun(dst + static_cast<std::size_t>(before + in_row) * element, after);
    } else {
      fillRun(dst, row);
    }
    for (std::size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < out.shape[d])
        break;
      index[d] = 0;
    }
  }
}

void runMirrorPad(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> pads = paddingsOf(ctx, input);
  const bool symmetric = ctx.options<circle::MirrorPadOptionsT>().mode == circle::MirrorPadMode::SYMMETRIC;
  for (std::size_t d = 0; d < input.shape.size(); ++d) {
    const int64_t limit = symmetric ? input.shape[d] : input.shape[d] - 1;
    check(pads[2 * d] <= limit && pads[2 * d + 1] <= limit,
          "mirror padding of dim " + std::to_string(d) + " exceeds its size " + std::to_string(input.shape[d]));
  }
  Tensor &out = ctx.allocateOutput(0, input.dtype, paddedShape(input, pads));
  if (out.numel() == 0)
    return;
  padInto(input, pads, out, nullptr, [symmetric](int64_t i, int64_t size) {
    if (i < 0)
      return symmetric ? -i - 1 : -i;
    if (i >= size)
      return symmetric ? 2 * size - 1 - i : 2 * size - 2 - i;
    return i;
  });
}

} // namespace

void registerPadKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::PAD, [](KernelContext &c) { runConstantPad(c, false); });
  table.add(circle::BuiltinOperator::PADV2, [](KernelContext &c) { runConstantPad(c, true); });
  table.add(circle::BuiltinOperator::MIRROR_PAD, runMirrorPad);
}

} // namespace tico::interp
