// GATHER (axis, batch_dims) and GATHER_ND; int32/int64 indices, any data dtype. An index
// outside [0, size) is an error naming the index and the dim, never a wild read.
#include "kernels/registrations.h"

#include <cstring>

namespace tico::interp {
namespace {

void runGather(KernelContext &ctx) {
  const auto &options = ctx.options<circle::GatherOptionsT>();
  const Tensor &params = ctx.input(0);
  const Tensor &indices = ctx.input(1);
  check(indices.dtype == DType::Int32 || indices.dtype == DType::Int64,
        "indices must be int32 or int64, got " + dtypeString(indices.dtype));
  check(params.rank() >= 1, "GATHER needs params of rank 1 or more (an axis to gather along), got a rank-0 tensor");
  const int64_t axis = normalizeAxis(options.axis, params.rank());
  int64_t batch_dims = options.batch_dims;
  if (batch_dims < 0)
    batch_dims += indices.rank();
  check(batch_dims >= 0 && batch_dims <= axis && batch_dims <= indices.rank(),
        "batch_dims " + std::to_string(options.batch_dims) + " is invalid for axis " + std::to_string(axis) +
            " and indices of rank " + std::to_string(indices.rank()));
  for (int64_t d = 0; d < batch_dims; ++d)
    check(params.dim(d) == indices.dim(d), "batch dim " + std::to_string(d) + " differs: params " +
                                               shapeString(params.shape) + ", indices " + shapeString(indices.shape));

  Shape shape(params.shape.begin(), params.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin() + batch_dims, indices.shape.end());
  shape.insert(shape.end(), params.shape.begin() + axis + 1, params.shape.end());
  Tensor &out = ctx.allocateOutput(0, params.dtype, std::move(shape));

  const int64_t batches = numElements(Shape(params.shape.begin(), params.shape.begin() + batch_dims));
  const int64_t outer = numElements(Shape(params.shape.begin() + batch_dims, params.shape.begin() + axis));
  const int64_t axis_size = params.dim(axis);
  const int64_t inner = numElements(Shape(params.shape.begin() + axis + 1, params.shape.end()));
  const int64_t picks = numElements(Shape(indices.shape.begin() + batch_dims, indices.shape.end()));
  const std::size_t bytes = static_cast<std::size_t>(inner) * elementSize(params.dtype);
  std::byte *dst = out.data;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t p = 0; p < picks; ++p) {
        const int64_t index = integerAt(indices, b * picks + p);
        check(index >= 0 && index < axis_size, "index " + std::to_string(index) + " is out of range for dim " +
                                                   std::to_string(axis) + " of size " + std::to_string(axis_size));
        if (bytes > 0)
          std::memcpy(dst, params.data + static_cast<std::size_t>(((b * outer + o) * axis_size + index)) * bytes, bytes);
        dst += bytes;
      }
}

void runGatherNd(KernelContext &ctx) {
  const Tensor &params = ctx.input(0);
  const Tensor &indices = ctx.input(1);
  check(indices.dtype == DType::Int32 || indices.dtype == DType::Int64,
        "indices must be int32 or int64, got " + dtypeString(indices.dtype));
  check(indices.rank() >= 1, "indices must have rank >= 1");
  const int64_t depth = indices.shape.back();
  check(depth <= params.rank(), "indices address " + std::to_string(depth) + " dims but params " +
                                    shapeString(params.shape) + " has " + std::to_string(params.rank()));
  Shape shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), params.shape.begin() + depth, params.shape.end());
  Tensor &out = ctx.allocateOutput(0, params.dtype, std::move(shape));
  const int64_t inner = numElements(Shape(params.shape.begin() + depth, params.shape.end()));
  const std::size_t bytes = static_cast<std::size_t>(inner) * elementSize(params.dtype);
  const std::vector<int64_t> strides = contiguousStrides(params.shape);
  const int64_t picks = depth > 0 ? indices.numel() / depth : numElements(Shape(indices.shape.begin(), indices.shape.end() - 1));
  for (int64_t p = 0; p < picks; ++p) {
    int64_t offset = 0;
    for (int64_t d = 0; d < depth; ++d) {
      const int64_t index = integerAt(indices, p * depth + d);
      check(index >= 0 && index < params.dim(d), "index " + std::to_string(index) + " is out of range for dim " +
                                                     std::to_string(d) + " of size " + std::to_string(params.dim(d)));
      offset += index * strides[static_cast<std::size_t>(d)];
    }
    if (bytes > 0)
      std::memcpy(out.data + static_cast<std::size_t>(p) * bytes,
                  params.data + static_cast<std::size_t>(offset) * elementSize(params.dtype), bytes);
  }
}

} // namespace

void registerGatherKernels(KernelTable &table) {
  table.add(circle::BuiltinOperator::GATHER, runGather);
  table.add(circle::BuiltinOperator::GATHER_ND, runGatherNd);
}

} // namespace tico::interp
