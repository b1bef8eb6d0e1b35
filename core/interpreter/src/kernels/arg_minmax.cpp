// ARG_MAX / ARG_MIN along one axis (second input, a single int32/int64 value); the output
// dtype is the declared one (int32 or int64). Ties pick the first index, NaN counts as the
// extreme value (as torch.argmax does).
#include "dispatch.h"
#include "kernels/reduce_rows.h"
#include "kernels/registrations.h"

#include <cmath>

namespace tico::interp {
namespace {

template <bool kMax> void runArg(KernelContext &ctx, const char *name) {
  const Tensor &input = ctx.input(0);
  const Tensor &axis = ctx.input(1);
  check(axis.numel() == 1, "axis must be a single value, got shape " + shapeString(axis.shape));
  const DType index_type = ctx.outputType(0);
  check(index_type == DType::Int32 || index_type == DType::Int64,
        std::string(name) + " output must be int32 or int64, got " + dtypeString(index_type));
  ReductionLayout layout = reductionLayout(input, {integerAt(axis, 0)});
  check(layout.inner > 0, "cannot take " + std::string(name) + " over an empty axis");
  Tensor &out = ctx.allocateOutput(0, index_type, layout.kept_shape);
  dispatchNumeric(input.dtype, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *rows = layout.rows.template as<T>();
    for (int64_t r = 0; r < layout.outer; ++r) {
      const T *row = rows + r * layout.inner;
      int64_t best = 0;
      for (int64_t i = 1; i < layout.inner; ++i) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(row[best]))
            break;
          if (std::isnan(row[i]) || (kMax ? row[i] > row[best] : row[i] < row[best]))
            best = i;
        } else {
          if (kMax ? row[i] > row[best] : row[i] < row[best])
            best = i;
        }
      }
      if (index_type == DType::Int32)
        out.mut<int32_t>()[r] = static_cast<int32_t>(best);
      else
        out.mut<int64_t>()[r] = best;
    }
  });
}

std::string checkNumeric(const OpSignature &op) {
  return requireInputType(op, 0,
                          {DType::Float32, DType::Int32, DType::Int64, DType::Int16, DType::Int8, DType::UInt8});
}

} // namespace

void registerArgMinMaxKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::ARG_MAX, [](KernelContext &c) { runArg<true>(c, "ARG_MAX"); }, checkNumeric);
  table.add(circle::BuiltinOperator::ARG_MIN, [](KernelContext &c) { runArg<false>(c, "ARG_MIN"); }, checkNumeric);
}

} // namespace tico::interp
