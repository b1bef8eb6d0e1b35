// FILL (dims, scalar value), ZEROS_LIKE and RANGE (start, limit, delta scalars; float32, int32
// or int64, the dtype of `start`).
#include "dispatch.h"
#include "kernels/registrations.h"

#include <cmath>
#include <cstring>

namespace tico::interp {
namespace {

void runFill(KernelContext &ctx) {
  const Tensor &dims = ctx.input(0);
  const Tensor &value = ctx.input(1);
  check(value.numel() == 1, "the fill value must be a single element, got shape " + shapeString(value.shape));
  check(dims.rank() <= 1, "dims must be a vector, got shape " + shapeString(dims.shape));
  const std::vector<int64_t> shape = integerValues(dims);
  for (int64_t d : shape)
    check(d >= 0, "dims " + shapeString(shape) + " has a negative size");
  Tensor &out = ctx.allocateOutput(0, value.dtype, shape);
  const std::size_t element = elementSize(value.dtype);
  for (int64_t i = 0; i < out.numel(); ++i)
    std::memcpy(out.data + static_cast<std::size_t>(i) * element, value.data, element);
}

void runZerosLike(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  Tensor &out = ctx.allocateOutput(0, input.dtype, input.shape);
  if (out.nbytes() > 0)
    std::memset(out.data, 0, out.nbytes()); // zero bytes are 0 / 0.0 / false for every dtype
}

void runRange(KernelContext &ctx) {
  const Tensor &start = ctx.input(0);
  const Tensor &limit = ctx.input(1);
  const Tensor &delta = ctx.input(2);
  check(start.numel() == 1 && limit.numel() == 1 && delta.numel() == 1, "start, limit and delta must be scalars");
  check(start.dtype == limit.dtype && start.dtype == delta.dtype,
        "start, limit and delta have different dtypes (" + dtypeString(start.dtype) + ", " +
            dtypeString(limit.dtype) + ", " + dtypeString(delta.dtype) + ")");
  dispatchArithmetic(start.dtype, "RANGE", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T first = *start.as<T>(), last = *limit.as<T>(), step = *delta.as<T>();
    check(step != 0, "delta must not be 0");
    int64_t count;
    if constexpr (std::is_floating_point_v<T>) {
      count = static_cast<int64_t>(std::ceil((static_cast<double>(last) - first) / step));
    } else {
      const int64_t span = static_cast<int64_t>(last) - static_cast<int64_t>(first);
      const int64_t s = static_cast<int64_t>(step);
      count = (span > 0) == (s > 0) && span != 0 ? (std::abs(span) + std::abs(s) - 1) / std::abs(s) : 0;
    }
    count = std::max<int64_t>(count, 0);
    Tensor &out = ctx.allocateOutput(0, start.dtype, {count});
    T *o = out.mut<T>();
    for (int64_t i = 0; i < count; ++i)
      o[i] = static_cast<T>(first + static_cast<T>(i) * step);
  });
}

} // namespace

void registerFillKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::FILL, runFill);
  table.add(circle::BuiltinOperator::ZEROS_LIKE, runZerosLike);
  table.add(circle::BuiltinOperator::RANGE, runRange);
}

} // namespace tico::interp
