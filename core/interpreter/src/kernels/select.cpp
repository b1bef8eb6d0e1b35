// SELECT_V2 (condition, x, y broadcast together) and SELECT (the same, plus TFLite's legacy form
// where a rank-1 condition picks whole rows along the first dim). Any value dtype.
#include "broadcast.h"
#include "dispatch.h"
#include "kernels/registrations.h"

namespace tico::interp {
namespace {

void select(KernelContext &ctx, const Tensor &condition, const Shape &condition_shape) {
  const Tensor &x = ctx.input(1);
  const Tensor &y = ctx.input(2);
  check(condition.dtype == DType::Bool, "condition must be bool, got " + dtypeString(condition.dtype));
  check(x.dtype == y.dtype, "values have different dtypes: " + dtypeString(x.dtype) + " and " + dtypeString(y.dtype));
  const Shape shape = broadcastShapes(condition_shape, broadcastShapes(x.shape, y.shape));
  Tensor &out = ctx.allocateOutput(0, x.dtype, shape);
  const auto plan = makeBroadcastPlan<3>(shape, {&condition_shape, &x.shape, &y.shape});
  dispatchBySize(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const BoolByte *c = condition.as<BoolByte>();
    const T *a = x.as<T>();
    const T *b = y.as<T>();
    T *o = out.mut<T>();
    forEachRun(plan, [&](const std::array<int64_t, 3> &off, const std::array<int64_t, 3> &stride, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        o[i] = c[off[0] + i * stride[0]] != 0 ? a[off[1] + i * stride[1]] : b[off[2] + i * stride[2]];
      o += n;
    });
  });
}

void runSelectV2(KernelContext &ctx) {
  const Tensor &condition = ctx.input(0);
  select(ctx, condition, condition.shape);
}

void runSelect(KernelContext &ctx) {
  const Tensor &condition = ctx.input(0);
  const Tensor &x = ctx.input(1);
  if (condition.rank() == 1 && x.rank() > 1 && condition.dim(0) == x.dim(0)) {
    Shape rows(static_cast<std::size_t>(x.rank()), 1);
    rows[0] = condition.dim(0);
    select(ctx, condition, rows);
  } else {
    select(ctx, condition, condition.shape);
  }
}

} // namespace

void registerSelectKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::SELECT, runSelect);
  table.add(circle::BuiltinOperator::SELECT_V2, runSelectV2);
}

} // namespace tico::interp
