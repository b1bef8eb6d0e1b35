// REVERSE_V2 (torch.flip): inputs (input, axes); every listed dim is read back to front. Axes
// are an int32/int64 vector, negative values count from the end, a repeated axis counts once
// (as in TensorFlow). Any dtype.
#include "dispatch.h"
#include "kernels/registrations.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

void runReverse(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const int64_t rank = input.rank();
  std::vector<bool> flipped(static_cast<std::size_t>(rank), false);
  for (int64_t axis : integerValues(ctx.input(1)))
    flipped[static_cast<std::size_t>(normalizeAxis(axis, rank))] = true;
  Tensor &out = ctx.allocateOutput(0, input.dtype, input.shape);
  if (out.numel() == 0)
    return;
  if (rank == 0) {
    std::memcpy(out.data, input.data, input.nbytes());
    return;
  }
  // Walk the output row by row (last dim); the source row comes from mirrored indices in the
  // flipped leading dims, and the row itself is copied reversed when the last dim is flipped.
  const std::vector<int64_t> strides = contiguousStrides(input.shape);
  const int64_t row = input.shape.back();
  const bool flip_row = flipped.back();
  std::vector<int64_t> index(static_cast<std::size_t>(rank - 1), 0);
  dispatchBySize(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = input.as<T>();
    T *o = out.mut<T>();
    for (int64_t r = 0; r < out.numel() / row; ++r) {
      int64_t offset = 0;
      for (std::size_t d = 0; d < index.size(); ++d)
        offset += (flipped[d] ? input.shape[d] - 1 - index[d] : index[d]) * strides[d];
      if (flip_row)
        std::reverse_copy(in + offset, in + offset + row, o + r * row);
      else
        std::copy(in + offset, in + offset + row, o + r * row);
      for (std::size_t d = index.size(); d-- > 0;) {
        if (++index[d] < input.shape[d])
          break;
        index[d] = 0;
      }
    }
  });
}

std::string checkReverse(const OpSignature &op) { return requireInputType(op, 1, {DType::Int32, DType::Int64}); }

} // namespace

void registerReverseKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::REVERSE_V2, runReverse, checkReverse);
}

} // namespace tico::interp
