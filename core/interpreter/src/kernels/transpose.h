// Permuting a tensor's dims (TRANSPOSE, and kernels that bring an axis to the end first).
#pragma once

#include "tensor.h"

#include <vector>

namespace tico::interp {

// Shape after the permutation; throws when `perm` is not a permutation of the dims.
Shape permutedShape(const Shape &shape, const std::vector<int64_t> &perm);
// Writes `input` permuted by `perm` into `out` (allocated with permutedShape, same dtype).
void permuteInto(const Tensor &input, const std::vector<int64_t> &perm, Tensor &out);

} // namespace tico::interp
