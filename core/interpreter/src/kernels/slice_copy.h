// Copies a strided box of a tensor (start, step, count per dim) into a contiguous output;
// shared by SLICE and STRIDED_SLICE.
#pragma once

#include "dispatch.h"
#include "tensor.h"

#include <cstring>
#include <vector>

namespace tico::interp {

inline void copyBox(const Tensor &input, const std::vector<int64_t> &start, const std::vector<int64_t> &step,
                    const std::vector<int64_t> &count, Tensor &out) {
  const std::size_t rank = start.size();
  for (int64_t c : count)
    if (c == 0)
      return;
  if (rank == 0) {
    std::memcpy(out.data, input.data, elementSize(input.dtype));
    return;
  }
  const std::vector<int64_t> strides = contiguousStrides(input.shape);
  dispatchBySize(input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *in = input.as<T>();
    T *o = out.mut<T>();
    std::vector<int64_t> index(rank, 0);
    int64_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d)
      offset += start[d] * strides[d];
    const int64_t inner = count[rank - 1];
    const int64_t inner_step = step[rank - 1] * strides[rank - 1];
    while (true) {
      if (inner_step == 1) {
        std::memcpy(o, in + offset, static_cast<std::size_t>(inner) * sizeof(T));
      } else {
        for (int64_t i = 0; i < inner; ++i)
          o[i] = in[offset + i * inner_step];
      }
      o += inner;
      std::size_t d = rank - 1;
      while (true) {
        if (d == 0)
          return;
        --d;
        ++index[d];
        offset += step[d] * strides[d];
        if (index[d] < count[d])
          break;
        offset -= step[d] * strides[d] * count[d];
        index[d] = 0;
      }
    }
  });
}

} // namespace tico::interp
