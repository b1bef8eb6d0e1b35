// Quantization range -> storage dtype (declared in quant_passes.h).
#include "quant_passes.h"

namespace tico::quant_passes {

std::optional<DType> storageDTypeForRange(int64_t quant_min, int64_t quant_max) {
  struct Range {
    int64_t min, max;
    DType dtype;
  };
  // The original converter's table, plus the restricted symmetric int8 range (-127, 127) that
  // stock PT2E quantizers use for weights, for the same reason it accepts (-32767, 32767).
  static constexpr Range kRanges[] = {
      {0, 255, DType::UInt8},       {0, 15, DType::UInt8},       {-128, 127, DType::Int8},
      {-127, 127, DType::Int8},     {-8, 7, DType::Int8},        {-32768, 32767, DType::Int16},
      {-32767, 32767, DType::Int16}, {0, 65535, DType::UInt16},
  };
  for (const Range &r : kRanges)
    if (r.min == quant_min && r.max == quant_max)
      return r.dtype;
  return std::nullopt;
}

} // namespace tico::quant_passes
