// NumPy-style broadcasting iteration for elementwise kernels with up to three operands.
//
// The output is walked in contiguous runs: dimensions that are contiguous together in every
// operand are merged, and the innermost remaining dimension is handed to the kernel as one
// run with a per-operand stride of 0 (broadcast) or 1. Kernels then write tight loops the
// compiler can vectorise; the index bookkeeping happens once per run.
#pragma once

#include "tensor.h"

#include <array>
#include <cstdint>
#include <vector>

namespace tico::interp {

template <std::size_t N> struct BroadcastPlan {
  std::vector<int64_t> dims;                      // merged output dims (at least one)
  std::array<std::vector<int64_t>, N> strides;    // element strides per operand and dim
};

template <std::size_t N>
BroadcastPlan<N> makeBroadcastPlan(const Shape &out, const std::array<const Shape *, N> &operands) {
  const std::size_t rank = out.size();
  std::vector<int64_t> dims;
  std::array<std::vector<int64_t>, N> strides;
  // Right-aligned contiguous strides, 0 where the operand broadcasts.
  std::array<std::vector<int64_t>, N> full;
  for (std::size_t k = 0; k < N; ++k) {
    const Shape &shape = *operands[k];
    full[k].assign(rank, 0);
    int64_t stride = 1;
    for (std::size_t i = shape.size(); i-- > 0;) {
      const std::size_t d = rank - shape.size() + i;
      full[k][d] = shape[i] == 1 ? 0 : stride;
      stride *= shape[i];
    }
  }
  for (std::size_t d = 0; d < rank; ++d) {
    if (out[d] == 1)
      continue; // size-1 output dims contribute nothing
    bool merge = !dims.empty();
    for (std::size_t k = 0; merge && k < N; ++k)
      merge = strides[k].back() == full[k][d] * out[d];
    if (merge) {
      dims.back() *= out[d];
      for (std::size_t k = 0; k < N; ++k)
        strides[k].back() = full[k][d];
    } else {
      dims.push_back(out[d]);
      for (std::size_t k = 0; k < N; ++k)
        strides[k].push_back(full[k][d]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (std::size_t k = 0; k < N; ++k)
      strides[k].push_back(0);
  }
  return {std::move(dims), std::move(strides)};
}

// Calls run(offsets, inner_strides, count) for every innermost run, in output order; the output
// offset of a run is the running sum of the counts.
template <std::size_t N, typename Run> void forEachRun(const BroadcastPlan<N> &plan, Run &&run) {
  const std::size_t outer = plan.dims.size() - 1;
  const int64_t inner = plan.dims.back();
  std::array<int64_t, N> inner_strides;
  for (std::size_t k = 0; k < N; ++k)
    inner_strides[k] = plan.strides[k].back();
  for (int64_t d : plan.dims)
    if (d == 0)
      return;
  std::vector<int64_t> index(outer, 0);
  std::array<int64_t, N> offsets{};
  while (true) {
    run(offsets, inner_strides, inner);
    // Odometer increment over the outer dims; done when the outermost one wraps.
    std::size_t d = outer;
    while (true) {
      if (d == 0)
        return;
      --d;
      ++index[d];
      for (std::size_t k = 0; k < N; ++k)
        offsets[k] += plan.strides[k][d];
      if (index[d] < plan.dims[d])
        break;
      for (std::size_t k = 0; k < N; ++k)
        offsets[k] -= plan.strides[k][d] * plan.dims[d];
      index[d] = 0;
    }
  }
}

// out[i] = op(a[i], b[i]) with broadcasting; TA/TB/TO element types.
template <typename TA, typename TB, typename TO, typename Op>
void broadcastBinary(const Tensor &a, const Tensor &b, Tensor &out, Op op) {
  const auto plan = makeBroadcastPlan<2>(out.shape, {&a.shape, &b.shape});
  const TA *pa = a.as<TA>();
  const TB *pb = b.as<TB>();
  TO *po = out.mut<TO>();
  forEachRun(plan, [&](const std::array<int64_t, 2> &off, const std::array<int64_t, 2> &stride, int64_t n) {
    const TA *x = pa + off[0];
    const TB *y = pb + off[1];
    if (stride[0] != 0 && stride[1] != 0) {
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(x[i], y[i]);
    } else if (stride[0] != 0) {
      const TB v = *y;
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(x[i], v);
    } else if (stride[1] != 0) {
      const TA v = *x;
      for (int64_t i = 0; i < n; ++i)
        po[i] = op(v, y[i]);
    } else {
      const TO v = op(*x, *y);
      for (int64_t i = 0; i < n; ++i)
        po[i] = v;
    }
    po += n;
  });
}

} // namespace tico::interp
