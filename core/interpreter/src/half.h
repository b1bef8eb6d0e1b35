// The interpreter's names for the core's half-precision conversions (tico/support/half.h).
#pragma once

#include "tico/support/half.h"

namespace tico::interp {

using tico::BFloat16;
using tico::Half;
using tico::bfloat16ToFloat;
using tico::floatToBFloat16;
using tico::floatToHalf;
using tico::halfToFloat;

} // namespace tico::interp
