// The conversion pairs of the core's element conversions, for Storage::converted() and
// convertElements() (tensor_data.h) to check the same way.
#pragma once

#include "tico/ir/dtype.h"

namespace tico {

// float16 or bfloat16 to float32, bfloat16 to float16.
bool isElementConversion(DType from, DType to);

} // namespace tico
