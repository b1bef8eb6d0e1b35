// Seeded input data for driving incremental strategies without real inputs (the replay test
// tool, tico-circle serve-incremental): float inputs uniform in [-1, 1), integer inputs uniform
// in [0, int_bound) (a bound that keeps embedding indices in range), bool inputs 0 or 1.
#pragma once

#include "tico/ir/tensor_data.h"
#include "tico/runtime/runtime.h" // CircleTensorInfo

#include <memory>
#include <random>

namespace tico::incremental::runtime {

// A tensor of `info`'s type and shape (a dynamic dimension becomes 1). Throws tico::Error for
// a type it has no data for.
std::shared_ptr<const TensorData> seededInput(const CircleTensorInfo &info, std::mt19937_64 &rng, int64_t int_bound);

} // namespace tico::incremental::runtime
