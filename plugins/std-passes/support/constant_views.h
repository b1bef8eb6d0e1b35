// Views of constant data expressed with strides over the same Storage (zero copy), the way
// PyTorch's view ops compute them. Every function returns null when the view cannot be
// expressed with strides (only a reshape of a non-contiguous view can fail).
#pragma once

#include "tico/ir/tensor_data.h"

#include <memory>
#include <vector>

namespace tico::passes {

using DataPtr = std::shared_ptr<const TensorData>;

DataPtr permuteView(const TensorData &data, const std::vector<int64_t> &perm);
DataPtr unsqueezeView(const TensorData &data, int64_t dim);
// Drops `dims` (each of size 1, sorted, no repeats).
DataPtr squeezeView(const TensorData &data, const std::vector<int64_t> &dims);
// Elements start, start+step, ... < end along `dim` (bounds already normalised and clamped).
DataPtr sliceView(const TensorData &data, int64_t dim, int64_t start, int64_t end, int64_t step);
// The `index`-th slice along `dim` (index normalised), removing the dim.
DataPtr selectView(const TensorData &data, int64_t dim, int64_t index);
// `sizes` must have the same element count; null when no strides express it.
DataPtr reshapeView(const TensorData &data, const std::vector<int64_t> &sizes);

} // namespace tico::passes
