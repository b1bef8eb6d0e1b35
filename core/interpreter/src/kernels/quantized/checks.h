// Construction-time checks shared by the quantized kernels that are not matrix products.
#pragma once

#include "kernel.h"

#include <initializer_list>
#include <string>

namespace tico::interp::quant {

// "" when the listed inputs and output 0 are uint8/int8/int16 with valid per-tensor
// parameters; else the first problem.
std::string checkPerTensorCodes(const OpSignature &op, std::initializer_list<std::size_t> inputs);

// The same, and output 0 has the same type, scale and zero point as input 0 (pooling).
std::string checkSameCodesAsInput(const OpSignature &op);

} // namespace tico::interp::quant
