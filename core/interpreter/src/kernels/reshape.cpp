// Shape-only operators: RESHAPE, EXPAND_DIMS, SQUEEZE (outputs alias the input bytes) and
// SHAPE, RANK.
#include "kernels/registrations.h"

#include "tico/support/checked.h"

#include <algorithm>

namespace tico::interp {
namespace {

// RESHAPE's target: the shape input when given, else ReshapeOptions.new_shape, else the
// declared output shape. One -1 takes whatever is left.
Shape reshapeTarget(KernelContext &ctx, const Tensor &input) {
  std::vector<int64_t> target;
  if (ctx.present(1)) {
    const Tensor &shape = ctx.input(1);
    check(shape.rank() <= 1, "the shape operand must be a vector, got shape " + shapeString(shape.shape));
    target = integerValues(shape);
  } else if (!ctx.options<circle::ReshapeOptionsT>().new_shape.empty()) {
    const auto &dims = ctx.options<circle::ReshapeOptionsT>().new_shape;
    target.assign(dims.begin(), dims.end());
  } else {
    const CircleTensor &declared = ctx.outputTensor(0);
    const auto &dims = declared.shape_signature.empty() ? declared.shape : declared.shape_signature;
    target.assign(dims.begin(), dims.end());
  }
  int64_t known = 1;
  int64_t unknown = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      check(unknown < 0, "shape " + shapeString(target) + " has more than one -1");
      unknown = static_cast<int64_t>(i);
    } else {
      check(target[i] >= 0, "shape " + shapeString(target) + " has a negative size");
      auto product = checkedMul(known, target[i]);
      check(product.has_value(), "shape " + shapeString(target) + " has an element count that overflows int64");
      known = *product;
    }
  }
  const int64_t total = input.numel();
  if (unknown >= 0) {
    check(known > 0 && total % known == 0,
          "cannot reshape " + shapeString(input.shape) + " (" + std::to_string(total) + " elements) into " +
              shapeString(target));
    target[static_cast<std::size_t>(unknown)] = total / known;
  }
  check(numElements(target) == total, "cannot reshape " + shapeString(input.shape) + " (" + std::to_string(total) +
                                          " elements) into " + shapeString(target));
  return target;
}

void runReshape(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  ctx.setOutput(0, alias(input, reshapeTarget(ctx, input)));
}

void runExpandDims(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const Tensor &axis_tensor = ctx.input(1);
  check(axis_tensor.numel() == 1, "axis must be a single value, got shape " + shapeString(axis_tensor.shape));
  const int64_t rank = input.rank();
  int64_t axis = integerAt(axis_tensor, 0);
  check(axis >= -(rank + 1) && axis <= rank,
        "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  if (axis < 0)
    axis += rank + 1;
  Shape shape = input.shape;
  shape.insert(shape.begin() + axis, 1);
  ctx.setOutput(0, alias(input, std::move(shape)));
}

void runSqueeze(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const auto &dims = ctx.options<circle::SqueezeOptionsT>().squeeze_dims;
  std::vector<bool> drop(input.shape.size(), false);
  if (dims.empty()) {
    for (std::size_t d = 0; d < input.shape.size(); ++d)
      drop[d] = input.shape[d] == 1;
  } else {
    for (int32_t dim : dims) {
      const int64_t d = normalizeAxis(dim, input.rank(), "squeeze dim");
      check(input.shape[static_cast<std::size_t>(d)] == 1,
            "cannot squeeze dim " + std::to_string(dim) + " of shape " + shapeString(input.shape) + " (size is not 1)");
      drop[static_cast<std::size_t>(d)] = true;
    }
  }
  Shape shape;
  for (std::size_t d = 0; d < input.shape.size(); ++d)
    if (!drop[d])
      shape.push_back(input.shape[d]);
  ctx.setOutput(0, alias(input, std::move(shape)));
}

void runShape(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const DType type = ctx.outputType(0);
  check(type == DType::Int32 || type == DType::Int64, "SHAPE output must be int32 or int64, got " + dtypeString(type));
  Tensor &out = ctx.allocateOutput(0, type, {input.rank()});
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (type == DType::Int32)
      out.mut<int32_t>()[d] = static_cast<int32_t>(input.dim(d));
    else
      out.mut<int64_t>()[d] = input.dim(d);
  }
}

void runRank(KernelContext &ctx) {
  const Tensor &input = ctx.input(0);
  const DType type = ctx.outputType(0);
  check(type == DType::Int32 || type == DType::Int64, "RANK output must be int32 or int64, got " + dtypeString(type));
  Tensor &out = ctx.allocateOutput(0, type, {});
  if (type == DType::Int32)
    *out.mut<int32_t>() = static_cast<int32_t>(input.rank());
  else
    *out.mut<int64_t>() = input.rank();
}

} // namespace

void registerReshapeKernels(KernelTable &table) {
  using B = circle::BuiltinOperator;
  table.add(B::RESHAPE, runReshape, nullptr, kAliasesInput0);
  table.add(B::EXPAND_DIMS, runExpandDims, nullptr, kAliasesInput0);
  table.add(B::SQUEEZE, runSqueeze, nullptr, kAliasesInput0);
  table.add(B::SHAPE, runShape);
  table.add(B::RANK, runRank);
}

} // namespace tico::interp
