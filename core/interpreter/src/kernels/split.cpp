// SPLIT (inputs: axis, value; equal parts), SPLIT_V (inputs: value, size_splits, axis; one -1
// size takes the rest) and UNPACK (slices along an axis, which disappears). Any dtype.
#include "kernels/registrations.h"

#include <cstring>

namespace tico::interp {
namespace {

// Writes consecutive `sizes[i]`-long pieces of `axis` into outputs i, keeping or dropping the axis.
void splitInto(KernelContext &ctx, const Tensor &input, int64_t axis, const std::vector<int64_t> &sizes,
               bool keep_axis) {
  check(ctx.outputCount() == sizes.size(), std::to_string(sizes.size()) + " pieces but " +
                                               std::to_string(ctx.outputCount()) + " outputs");
  const int64_t outer = numElements(Shape(input.shape.begin(), input.shape.begin() + axis));
  const int64_t inner = numElements(Shape(input.shape.begin() + axis + 1, input.shape.end()));
  const std::size_t element = elementSize(input.dtype);
  const std::size_t row_bytes = static_cast<std::size_t>(input.dim(axis) * inner) * element;
  int64_t start = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Shape shape = input.shape;
    if (keep_axis)
      shape[static_cast<std::size_t>(axis)] = sizes[i];
    else
      shape.erase(shape.begin() + axis);
    Tensor &out = ctx.allocateOutput(i, input.dtype, std::move(shape));
    const std::size_t bytes = static_cast<std::size_t>(sizes[i] * inner) * element;
    for (int64_t o = 0; o < outer && bytes > 0; ++o)
      std::memcpy(out.data + static_cast<std::size_t>(o) * bytes,
                  input.data + static_cast<std::size_t>(o) * row_bytes + static_cast<std::size_t>(start * inner) * element,
                  bytes);
    start += sizes[i];
  }
}

int64_t scalarAxis(const Tensor &axis, int64_t rank) {
  check(axis.numel() == 1, "axis must be a single value, got shape " + shapeString(axis.shape));
  return normalizeAxis(integerAt(axis, 0), rank);
}

void runSplit(KernelContext &ctx) {
  const Tensor &input = ctx.input(1);
  const int64_t axis = scalarAxis(ctx.input(0), input.rank());
  const auto pieces = static_cast<int64_t>(ctx.outputCount());
  const int32_t declared = ctx.options<circle::SplitOptionsT>().num_splits;
  check(declared <= 0 || declared == pieces,
        "num_splits is " + std::to_string(declared) + " but the operator has " + std::to_string(pieces) + " outputs");
  check(pieces > 0 && input.dim(axis) % pieces == 0,
        "dimension " + std::to_string(axis) + " of " + shapeString(input.shape) + " does not split into " +
            std::to_string(pieces) + " equal parts");
  splitInto(ctx, input, axis, std::vector<int64_t>(static_cast<std::size_t>(pieces), input.dim(axis) / pieces), true);
}

void runSplitV(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  std::vector<int64_t> sizes = integerValues(ctx.input(1));
  const int64_t axis = scalarAxis(ctx.input(2), input.rank());
  int64_t known = 0, unknown = -1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      check(unknown < 0, "size_splits " + shapeString(sizes) + " has more than one -1");
      unknown = static_cast<int64_t>(i);
    } else {
      check(sizes[i] >= 0, "size_splits " + shapeString(sizes) + " has a negative size");
      known += sizes[i];
    }
  }
  if (unknown >= 0) {
    check(known <= input.dim(axis), "size_splits " + shapeString(sizes) + " exceed dimension " +
                                        std::to_string(axis) + " of " + shapeString(input.shape));
    sizes[static_cast<std::size_t>(unknown)] = input.dim(axis) - known;
    known = input.dim(axis);
  }
  check(known == input.dim(axis), "size_splits " + shapeString(sizes) + " do not add up to dimension " +
                                      std::to_string(axis) + " of " + shapeString(input.shape));
  splitInto(ctx, input, axis, sizes, true);
}

void runUnpack(KernelContext &ctx) {
  const auto &options = ctx.options<circle::UnpackOptionsT>();
  const Tensor &input = ctx.input(0);
  const int64_t axis = normalizeAxis(options.axis, input.rank());
  check(options.num <= 0 || options.num == input.dim(axis),
        "num is " + std::to_string(options.num) + " but dimension " + std::to_string(axis) + " of " +
            shapeString(input.shape) + " has " + std::to_string(input.dim(axis)));
  splitInto(ctx, input, axis, std::vector<int64_t>(static_cast<std::size_t>(input.dim(axis)), 1), false);
}

} // namespace

void registerSplitKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::SPLIT, runSplit);
  table.add(circle::BuiltinOperator::SPLIT_V, runSplitV);
  table.add(circle::BuiltinOperator::UNPACK, runUnpack);
}

} // namespace tico::interp
