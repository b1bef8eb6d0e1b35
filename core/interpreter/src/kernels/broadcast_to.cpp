// BROADCAST_TO (input, target shape; NumPy rules, the target may add leading dims) and TILE
// (input, multiples per dim). Any dtype.
#include "broadcast.h"
#include "dispatch.h"
#include "kernels/registrations.h"

namespace tico::interp {
namespace {

void runBroadcastTo(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> target = integerValues(ctx.input(1));
  check(target.size() >= input.shape.size(), "cannot broadcast " + shapeString(input.shape) + " to the lower-rank " +
                                                 shapeString(target));
  const Shape shape = broadcastShapes(input.shape, target);
  check(shape == Shape(target.begin(), target.end()),
        "cannot broadcast " + shapeString(input.shape) + " to " + shapeString(target));
  Tensor &out = ctx.allocateOutput(0, input.dtype, shape);
  const auto plan = makeBroadcastPlan<1>(shape, {&input.shape});
  dispatchBySize(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = input.as<T>();
    T *o = out.mut<T>();
    forEachRun(plan, [&](const std::array<int64_t, 1> &off, const std::array<int64_t, 1> &stride, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        o[i] = in[off[0] + i * stride[0]];
      o += n;
    });
  });
}

void runTile(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> multiples = integerValues(ctx.input(1));
  check(static_cast<int64_t>(multiples.size()) == input.rank(),
        "multiples " + shapeString(multiples) + " must have one value per dim of " + shapeString(input.shape));
  Shape shape = input.shape;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    check(multiples[d] >= 0, "multiples " + shapeString(multiples) + " has a negative value");
    shape[d] *= multiples[d];
  }
  Tensor &out = ctx.allocateOutput(0, input.dtype, shape);
  if (out.numel() == 0)
    return;
  const std::vector<int64_t> in_strides = contiguousStrides(input.shape);
  dispatchBySize(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = input.as<T>();
    T *o = out.mut<T>();
    const std::size_t rank = shape.size();
    std::vector<int64_t> index(rank, 0);
    for (int64_t i = 0; i < out.numel(); ++i) {
      int64_t offset = 0;
      for (std::size_t d = 0; d < rank; ++d)
        offset += (index[d] % input.shape[d]) * in_strides[d];
      o[i] = in[offset];
      for (std::size_t d = rank; d-- > 0;) {
        if (++index[d] < shape[d])
          break;
        index[d] = 0;
      }
    }
  });
}

} // namespace

void registerBroadcastToKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::BROADCAST_TO, runBroadcastTo);
  table.add(circle::BuiltinOperator::TILE, runTile);
}

} // namespace tico::interp
