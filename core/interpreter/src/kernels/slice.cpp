// SLICE: inputs (input, begin, size); size -1 runs to the end of the dim. Any dtype.
#include "kernels/registrations.h"
#include "kernels/slice_copy.h"

namespace tico::interp {
namespace {

void runSlice(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const std::vector<int64_t> begin = integerValues(ctx.input(1));
  std::vector<int64_t> size = integerValues(ctx.input(2));
  check(static_cast<int64_t>(begin.size()) == input.rank() && static_cast<int64_t>(size.size()) == input.rank(),
        "begin " + shapeString(begin) + " and size " + shapeString(size) + " must have one value per dim of " +
            shapeString(input.shape));
  for (std::size_t d = 0; d < begin.size(); ++d) {
    const int64_t dim = input.shape[d];
    if (size[d] == -1)
      size[d] = dim - begin[d];
    check(begin[d] >= 0 && size[d] >= 0 && begin[d] + size[d] <= dim,
          "slice begin " + shapeString(begin) + " size " + shapeString(size) + " reaches outside " +
              shapeString(input.shape) + " in dim " + std::to_string(d));
  }
  Tensor &out = ctx.allocateOutput(0, input.dtype, size);
  copyBox(input, begin, std::vector<int64_t>(begin.size(), 1), size, out);
}

} // namespace

void registerSliceKernels(KernelTable &table) { table.add(circle::BuiltinOperator::SLICE, runSlice); }

} // namespace tico::interp
