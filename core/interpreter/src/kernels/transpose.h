// Permuting a tensor's dims (TRANSPOSE, and kernels that bring an axis to the end first).
#pragma once

#include "tensor.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tico::interp {

// Shape after the permutation; throws when `perm` is not a permutation of the dims.
Shape permutedShape(const Shape &shape, const std::vector<int64_t> &perm);
// Writes `input` permuted by `perm` into `out` (allocated with permutedShape, same dtype).
void permuteInto(const Tensor &input, const std::vector<int64_t> &perm, Tensor &out);

// out[b, cols, rows] = in[b, rows, cols]^T for each of `batches` contiguous matrices, in tiles.
// Within a tile the writes are contiguous and the reads strided: with power-of-two row lengths
// (64 channels x 4096 pixels) strided writes, one row apart, all fell into the same L1 sets and
// made NHWC <-> NCHW 6x slower.
template <typename T>
void transposeBatches(const T *in, T *out, int64_t batches, int64_t rows, int64_t cols) {
  constexpr int64_t tile = 32;
  for (int64_t b = 0; b < batches; ++b) {
    const T *src = in + b * rows * cols;
    T *dst = out + b * rows * cols;
    for (int64_t r0 = 0; r0 < rows; r0 += tile)
      for (int64_t c0 = 0; c0 < cols; c0 += tile)
        for (int64_t c = c0; c < std::min(cols, c0 + tile); ++c)
          for (int64_t r = r0; r < std::min(rows, r0 + tile); ++r)
            dst[c * rows + r] = src[r * cols + c];
  }
}

} // namespace tico::interp
