// SCATTER_ND(indices, updates, shape): zeros of `shape` with every update slice added at its
// index tuple, so updates at a repeated index are summed (TFLite's semantics, which the
// converter relies on for index_put(accumulate=True) and scatter_add). An index tuple outside
// the shape is an error naming it, never a wild write.
#include "dispatch.h"
#include "kernels/registrations.h"

#include <cstring>
#include <type_traits>

namespace tico::interp {
namespace {

template <typename T> void accumulate(T *dst, const T *src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>)
      dst[i] += src[i];
    else // two's complement wrap, like the integer ADD kernel
      dst[i] = static_cast<T>(static_cast<std::make_unsigned_t<T>>(dst[i]) + static_cast<std::make_unsigned_t<T>>(src[i]));
  }
}

void runScatterNd(KernelContext &ctx) {
  const Tensor &indices = ctx.input(0);
  const Tensor &updates = ctx.input(1);
  const Tensor &shape_tensor = ctx.input(2);
  check(indices.dtype == DType::Int32 || indices.dtype == DType::Int64,
        "indices must be int32 or int64, got " + dtypeString(indices.dtype));
  check(shape_tensor.dtype == DType::Int32 || shape_tensor.dtype == DType::Int64,
        "shape must be int32 or int64, got " + dtypeString(shape_tensor.dtype));
  check(shape_tensor.rank() == 1, "shape must be 1-D");
  check(indices.rank() >= 1, "indices must have rank >= 1");
  Shape shape;
  for (int64_t i = 0; i < shape_tensor.numel(); ++i) {
    const int64_t d = integerAt(shape_tensor, i);
    check(d >= 0, "shape has a negative dim " + std::to_string(d));
    shape.push_back(d);
  }
  const int64_t depth = indices.shape.back();
  check(depth >= 1 && depth <= static_cast<int64_t>(shape.size()),
        "index tuples of length " + std::to_string(depth) + " do not address shape " + shapeString(shape));
  // updates.shape must be indices.shape[:-1] + shape[depth:].
  Shape expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), shape.begin() + depth, shape.end());
  check(updates.shape == expected, "updates " + shapeString(updates.shape) + " do not match indices " +
                                       shapeString(indices.shape) + " and shape " + shapeString(shape) +
                                       " (expected " + shapeString(expected) + ")");

  Tensor &out = ctx.allocateOutput(0, updates.dtype, shape);
  if (out.nbytes() > 0)
    std::memset(out.data, 0, out.nbytes());
  const int64_t slice = numElements(Shape(shape.begin() + depth, shape.end()));
  const int64_t picks = numElements(Shape(indices.shape.begin(), indices.shape.end() - 1));
  const std::vector<int64_t> strides = contiguousStrides(shape);
  dispatchArithmetic(updates.dtype, "SCATTER_ND", [&]<typename T>(TypeTag<T>) {
    const T *src = updates.as<T>();
    T *dst = out.mut<T>();
    for (int64_t p = 0; p < picks; ++p) {
      int64_t offset = 0;
      for (int64_t d = 0; d < depth; ++d) {
        const int64_t index = integerAt(indices, p * depth + d);
        check(index >= 0 && index < shape[static_cast<std::size_t>(d)],
              "index " + std::to_string(index) + " is out of range for dim " + std::to_string(d) + " of size " +
                  std::to_string(shape[static_cast<std::size_t>(d)]));
        offset += index * strides[static_cast<std::size_t>(d)];
      }
      accumulate(dst + offset, src + p * slice, slice);
    }
  });
}

} // namespace

void registerScatterNdKernel(KernelTable &table) { table.add(circle::BuiltinOperator::SCATTER_ND, runScatterNd); }

} // namespace tico::interp
