// float16's range over a whole bfloat16 view, for the two readers that must know it before a
// Circle file is written: store-float16-weights with its scan_range option, and the in-memory
// Circle writer (which must know the file's size before it writes).
#pragma once

#include "tico/ir/tensor_data.h"

namespace tico {

// float16Range() of every element of `bfloat16_view` (dtype BFloat16). A contiguous view is read
// in place, 2^20 elements at a time, and a mapped file's pages are released behind the scan, so
// a checkpoint's weights never become resident at once; a strided view is gathered first.
Float16Range float16RangeOf(const TensorData &bfloat16_view);

} // namespace tico
