// Brings the reduced axes of a tensor to the end so that a reduction is a loop over rows:
// returns [kept elements, reduced elements] and the data laid out that way (the input itself
// when the reduced axes already are the innermost ones, else a permuted copy).
#pragma once

#include "kernel.h"
#include "kernels/transpose.h"

#include <algorithm>
#include <vector>

namespace tico::interp {

struct ReductionLayout {
  Tensor rows;             // input data with the reduced axes innermost
  int64_t outer = 1;       // number of rows (kept elements)
  int64_t inner = 1;       // row length (reduced elements)
  Shape kept_shape;        // output shape without keep_dims
  Shape kept_dims_shape;   // output shape with keep_dims (reduced axes as 1)
};

inline ReductionLayout reductionLayout(const Tensor &input, const std::vector<int64_t> &axes_in) {
  const int64_t rank = input.rank();
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (int64_t axis : axes_in)
    reduced[static_cast<std::size_t>(normalizeAxis(axis, rank))] = true;
  ReductionLayout layout;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[static_cast<std::size_t>(d)]) {
      perm.push_back(d);
      layout.kept_shape.push_back(input.dim(d));
      layout.outer *= input.dim(d);
    }
  for (int64_t d = 0; d < rank; ++d) {
    layout.kept_dims_shape.push_back(reduced[static_cast<std::size_t>(d)] ? 1 : input.dim(d));
    if (reduced[static_cast<std::size_t>(d)]) {
      perm.push_back(d);
      layout.inner *= input.dim(d);
    }
  }
  // Already innermost when the permutation only moves size-1 dims.
  bool in_place = true;
  int64_t last = -1;
  for (int64_t p : perm)
    if (input.dim(p) != 1) {
      in_place = in_place && p > last;
      last = p;
    }
  if (in_place) {
    layout.rows = input;
  } else {
    layout.rows = allocate(input.dtype, permutedShape(input.shape, perm));
    permuteInto(input, perm, layout.rows);
  }
  return layout;
}

} // namespace tico::interp
