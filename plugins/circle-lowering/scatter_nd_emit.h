// The shared tail of the scatter-like lowerings (scatter, scatter_add, index_put, index_copy):
// writing rows of a 2-D [P, R] view of the destination at M int32 row offsets.
//
// onert 0.2 cannot load SCATTER_ND ("Unsupported operation: SCATTER_ND"), so the rows are
// selected with a one-hot match instead: EQUAL(iota[P, 1], offsets[1, M]) -> [P, M].
//   replace: row p takes the update of the last k that matches it (ARG_MAX of match * (k + 1),
//            GATHER) where any k matches (SELECT_V2);
//   add:     row p gains SUM_k SELECT_V2(match[p, k], update k, 0).
// Both are exact (no multiplication by 0/1, so inf and NaN updates stay where they are written).
// The match costs P*M (replace) or P*M*R (add) elements; above kOneHotLimit the rows go through
// SCATTER_ND instead, which the built-in interpreter runs but onert does not.
#pragma once

#include "support.h"

namespace tico::lowering {

inline constexpr int64_t kOneHotLimit = int64_t{1} << 24;

struct ScatterRows {
  int32_t data = -1; // [P, R] tensor: the destination, flattened
  DType dtype = DType::Float32;
  int64_t rows = 0;     // P
  int64_t row_size = 0; // R
  int32_t offsets = -1; // int32 tensor of M row offsets (any shape)
  int64_t count = 0;    // M
};

// data + (updates summed per offset: duplicates add up). `updates` is [M, R] of `dtype`.
int32_t emitScatterAdd(CircleEmitter &emit, const ScatterRows &s, int32_t updates, const std::string &hint);

// data with the rows at `offsets` replaced by `updates` ([M, R]), or by the rank-0 constant
// `updates` when `scalar` is true. With duplicate offsets the last update wins, as in PyTorch's
// CPU kernels (PyTorch documents the winner as unspecified); a constant fill is exact.
int32_t emitScatterReplace(CircleEmitter &emit, const ScatterRows &s, int32_t updates, bool scalar,
                           const std::string &hint);

// A constant int32 [n] holding `values`.
int32_t int32Vector(CircleEmitter &emit, const std::vector<int64_t> &values, const std::string &hint);

// RESHAPE of `input` to the static `shape` into a new tensor.
int32_t reshapeStatic(CircleEmitter &emit, int32_t input, DType dtype, const std::vector<int64_t> &shape,
                      const std::string &hint);

} // namespace tico::lowering
