// TOPK_V2: the k largest elements along the last axis (k: second input, one int32 value),
// sorted in descending order, with their int32 indices. Among equal values the lower index
// comes first (a stable sort), as TFLite and PyTorch's CPU kernel order them.
#include "dispatch.h"
#include "kernels/registrations.h"

#include <algorithm>
#include <numeric>

namespace tico::interp {
namespace {

void runTopK(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const Tensor &k_tensor = ctx.input(1);
  check(k_tensor.numel() == 1, "k must be a single value, got shape " + shapeString(k_tensor.shape));
  check(input.rank() >= 1, "TOPK_V2 needs a tensor of rank 1 or more");
  const int64_t n = input.shape.back();
  const int64_t k = integerAt(k_tensor, 0);
  check(k >= 0 && k <= n, "k = " + std::to_string(k) + " is outside [0, " + std::to_string(n) + "]");
  Shape out_shape = input.shape;
  out_shape.back() = k;
  Tensor &values = ctx.allocateOutput(0, input.dtype, out_shape);
  Tensor &indices = ctx.allocateOutput(1, DType::Int32, out_shape);
  const int64_t rows = n == 0 ? 0 : input.numel() / n;
  std::vector<int32_t> order(static_cast<std::size_t>(n));
  dispatchNumeric(input.dtype, "TOPK_V2", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t r = 0; r < rows; ++r) {
      const T *row = input.as<T>() + r * n;
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return row[a] > row[b]; });
      for (int64_t i = 0; i < k; ++i) {
        values.mut<T>()[r * k + i] = row[order[static_cast<std::size_t>(i)]];
        indices.mut<int32_t>()[r * k + i] = order[static_cast<std::size_t>(i)];
      }
    }
  });
}

std::string checkTopK(const OpSignature &op) {
  if (op.outputCount() != 2)
    return "TOPK_V2 has two outputs (values, indices)";
  if (op.outputType(1) != DType::Int32)
    return "TOPK_V2 indices must be int32";
  return requireInputType(op, 0, {DType::Float32, DType::Int32, DType::Int64, DType::Int16, DType::Int8, DType::UInt8});
}

} // namespace

void registerTopKKernel(KernelTable &table) { table.add(circle::BuiltinOperator::TOPK_V2, runTopK, checkTopK); }

} // namespace tico::interp
