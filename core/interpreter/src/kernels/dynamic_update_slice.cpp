// DYNAMIC_UPDATE_SLICE(operand, update, start_indices): the operand with `update` written as a
// block at `start_indices` (int32/int64, one per dim). As in TFLite, each start is clamped into
// [0, operand_dim - update_dim], so the block always lies inside the operand. An LLM's KV cache
// update: the new rows of keys or values written at the current position.
//
// The operand is copied and the block written over the copy (the memory plan lets the output
// share the operand's memory when nothing reads the operand afterwards, so the copy disappears).
#include "kernels/registrations.h"

#include <algorithm>
#include <cstring>

namespace tico::interp {
namespace {

void runDynamicUpdateSlice(KernelContext &ctx) {
  const Tensor &operand = ctx.input(0);
  const Tensor &update = ctx.input(1);
  const Tensor &starts = ctx.input(2);
  check(update.dtype == operand.dtype, "update is " + dtypeString(update.dtype) + ", operand " + dtypeString(operand.dtype));
  check(starts.dtype == DType::Int32 || starts.dtype == DType::Int64,
        "start_indices must be int32 or int64, got " + dtypeString(starts.dtype));
  check(update.rank() == operand.rank(), "update has rank " + std::to_string(update.rank()) + ", operand " +
                                             std::to_string(operand.rank()));
  check(starts.numel() == operand.rank(), "start_indices has " + std::to_string(starts.numel()) +
                                              " elements for an operand of rank " + std::to_string(operand.rank()));
  const int64_t rank = operand.rank();
  std::vector<int64_t> start(static_cast<std::size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    check(update.dim(d) <= operand.dim(d), "update " + shapeString(update.shape) + " does not fit in operand " +
                                               shapeString(operand.shape));
    start[static_cast<std::size_t>(d)] = std::clamp<int64_t>(integerAt(starts, d), 0, operand.dim(d) - update.dim(d));
  }
  Tensor &out = ctx.allocateOutput(0, operand.dtype, operand.shape);
  if (out.data != operand.data && operand.nbytes() > 0)
    std::memcpy(out.data, operand.data, operand.nbytes());
  if (update.numel() == 0)
    return;
  // The block is copied as runs of its innermost contiguous dims: the trailing dims where the
  // update spans the whole operand join the run.
  const std::size_t element = elementSize(operand.dtype);
  int64_t inner = rank - 1;
  while (inner > 0 && update.dim(inner) == operand.dim(inner))
    --inner;
  int64_t run = 1;
  for (int64_t d = inner; d < rank; ++d)
    run *= update.dim(d);
  const std::vector<int64_t> out_strides = contiguousStrides(operand.shape);
  const int64_t runs = update.numel() / run;
  std::vector<int64_t> index(static_cast<std::size_t>(inner), 0); // position in the update's outer dims
  for (int64_t r = 0; r < runs; ++r) {
    int64_t offset = 0;
    for (int64_t d = 0; d < inner; ++d)
      offset += (start[static_cast<std::size_t>(d)] + index[static_cast<std::size_t>(d)]) * out_strides[static_cast<std::size_t>(d)];
    offset += start[static_cast<std::size_t>(inner)] * out_strides[static_cast<std::size_t>(inner)];
    std::memcpy(out.data + offset * static_cast<int64_t>(element), update.data + r * run * static_cast<int64_t>(element),
                static_cast<std::size_t>(run) * element);
    for (int64_t d = inner - 1; d >= 0; --d) { // next outer index, row-major
      if (++index[static_cast<std::size_t>(d)] < update.dim(d))
        break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
}

} // namespace

void registerDynamicUpdateSliceKernel(KernelTable &table) {
  // The output may take the operand's memory: every element not in the block is the operand's
  // own, read (by the copy) before anything is written.
  table.add(circle::BuiltinOperator::DYNAMIC_UPDATE_SLICE, runDynamicUpdateSlice, nullptr, kInPlaceInput0);
}

} // namespace tico::interp
