// CONCATENATION (along an existing axis, optional fused activation on float32) and PACK (along
// a new axis). Any dtype; inputs must share it. Rows are copied as whole byte blocks.
#include "kernels/registrations.h"

#include <cstring>

namespace tico::interp {
namespace {

// Copies every input's [outer, size_i * inner] block side by side into `out`.
void joinBlocks(const std::vector<const Tensor *> &parts, const std::vector<int64_t> &block_elements, int64_t outer,
                Tensor &out) {
  const std::size_t element = elementSize(out.dtype);
  std::byte *dst = out.data;
  for (int64_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::size_t bytes = static_cast<std::size_t>(block_elements[i]) * element;
      if (bytes == 0)
        continue;
      std::memcpy(dst, parts[i]->data + static_cast<std::size_t>(o) * bytes, bytes);
      dst += bytes;
    }
}

std::vector<const Tensor *> allInputs(KernelContext &ctx, const char *what) {
  check(ctx.inputCount() > 0, std::string(what) + " has no inputs");
  std::vector<const Tensor *> parts;
  for (std::size_t i = 0; i < ctx.inputCount(); ++i) {
    parts.push_back(&ctx.input(i));
    check(parts.back()->dtype == parts.front()->dtype,
          "input " + std::to_string(i) + " is " + dtypeString(parts.back()->dtype) + ", input 0 is " +
              dtypeString(parts.front()->dtype));
  }
  return parts;
}

void runConcatenation(KernelContext &ctx) {
  const auto &options = ctx.options<circle::ConcatenationOptionsT>();
  const std::vector<const Tensor *> parts = allInputs(ctx, "CONCATENATION");
  const Tensor &first = *parts.front();
  const int64_t axis = normalizeAxis(options.axis, first.rank());
  Shape shape = first.shape;
  shape[static_cast<std::size_t>(axis)] = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Tensor &part = *parts[i];
    bool same = part.rank() == first.rank();
    for (int64_t d = 0; same && d < first.rank(); ++d)
      same = d == axis || part.dim(d) == first.dim(d);
    check(same, "input " + std::to_string(i) + " has shape " + shapeString(part.shape) +
                    ", which does not match input 0 " + shapeString(first.shape) + " outside axis " +
                    std::to_string(axis));
    shape[static_cast<std::size_t>(axis)] += part.dim(axis);
  }
  const int64_t outer = numElements(Shape(first.shape.begin(), first.shape.begin() + axis));
  const int64_t inner = numElements(Shape(first.shape.begin() + axis + 1, first.shape.end()));
  std::vector<int64_t> blocks;
  for (const Tensor *part : parts)
    blocks.push_back(part->dim(axis) * inner);
  Tensor &out = ctx.allocateOutput(0, first.dtype, std::move(shape));
  joinBlocks(parts, blocks, outer, out);
  if (options.fused_activation_function != circle::ActivationFunctionType::NONE) {
    check(out.dtype == DType::Float32, "a fused activation needs float32 values");
    applyActivation(out.mut<float>(), out.numel(), options.fused_activation_function);
  }
}

void runPack(KernelContext &ctx) {
  const auto &options = ctx.options<circle::PackOptionsT>();
  const std::vector<const Tensor *> parts = allInputs(ctx, "PACK");
  const Tensor &first = *parts.front();
  check(options.values_count <= 0 || options.values_count == static_cast<int32_t>(parts.size()),
        "values_count " + std::to_string(options.values_count) + " but " + std::to_string(parts.size()) + " inputs");
  const int64_t rank = first.rank();
  int64_t axis = options.axis;
  check(axis >= -(rank + 1) && axis <= rank, "axis " + std::to_string(axis) + " is out of range for rank " +
                                                 std::to_string(rank + 1));
  if (axis < 0)
    axis += rank + 1;
  for (std::size_t i = 0; i < parts.size(); ++i)
    check(parts[i]->shape == first.shape, "input " + std::to_string(i) + " has shape " +
                                              shapeString(parts[i]->shape) + ", input 0 has " + shapeString(first.shape));
  Shape shape = first.shape;
  shape.insert(shape.begin() + axis, static_cast<int64_t>(parts.size()));
  const int64_t outer = numElements(Shape(first.shape.begin(), first.shape.begin() + axis));
  const int64_t inner = numElements(Shape(first.shape.begin() + axis, first.shape.end()));
  Tensor &out = ctx.allocateOutput(0, first.dtype, std::move(shape));
  joinBlocks(parts, std::vector<int64_t>(parts.size(), inner), outer, out);
}

} // namespace

void registerConcatKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::CONCATENATION, runConcatenation);
  table.add(circle::BuiltinOperator::PACK, runPack);
}

} // namespace tico::interp
