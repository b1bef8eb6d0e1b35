// CUMSUM along an axis (second input), with `exclusive` (each element leaves itself out) and
// `reverse` (sums run from the end). float32/int32/int64.
#include "dispatch.h"
#include "kernels/registrations.h"

namespace tico::interp {
namespace {

void runCumsum(KernelContext &ctx) {
  const auto &options = ctx.options<circle::CumsumOptionsT>();
  const Tensor &input = ctx.input(0);
  const Tensor &axis_tensor = ctx.input(1);
  check(axis_tensor.numel() == 1, "axis must be a single value, got shape " + shapeString(axis_tensor.shape));
  const int64_t axis = normalizeAxis(integerAt(axis_tensor, 0), input.rank());
  Tensor &out = ctx.allocateOutput(0, input.dtype, input.shape);
  const int64_t outer = numElements(Shape(input.shape.begin(), input.shape.begin() + axis));
  const int64_t length = input.rank() == 0 ? 1 : input.dim(axis);
  const int64_t inner = numElements(Shape(input.shape.begin() + axis + 1, input.shape.end()));
  dispatchArithmetic(input.dtype, "CUMSUM", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
    const T *in = input.as<T>();
    T *o = out.mut<T>();
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t c = 0; c < inner; ++c) {
        Acc sum = 0;
        for (int64_t k = 0; k < length; ++k) {
          const int64_t j = options.reverse ? length - 1 - k : k;
          const int64_t at = (a * length + j) * inner + c;
          if (options.exclusive) {
            o[at] = static_cast<T>(sum);
            sum = static_cast<Acc>(sum + in[at]);
          } else {
            sum = static_cast<Acc>(sum + in[at]);
            o[at] = static_cast<T>(sum);
          }
        }
      }
  });
}

std::string checkCumsum(const OpSignature &op) {
  return requireInputType(op, 0, {DType::Float32, DType::Int32, DType::Int64});
}

} // namespace

void registerCumsumKernel(KernelTable &table) {
  table.add(circle::BuiltinOperator::CUMSUM, runCumsum, checkCumsum);
}

} // namespace tico::interp
