// The conversion pairs of the core's element conversions, for Storage::converted() and
// convertElements() (tensor_data.h) to check the same way.
#pragma once

#include "tico/ir/dtype.h"

#include <cstddef>

namespace tico {

// float16 or bfloat16 to float32, bfloat16 to float16.
bool isElementConversion(DType from, DType to);

// convertElements(BFloat16, Float16, ...) that also says whether every value fit: false when a
// finite bfloat16 value beyond float16's 65504 became inf. The check rides on the conversion
// (two compares per eight elements), so the Circle writer can convert a checkpoint's weights
// without scanning them first and fall back to float32 for the rare weight that does not fit.
bool bfloat16ToFloat16Fits(const std::byte *in, std::byte *out, std::size_t count);

} // namespace tico
