// Pieces shared by the textual IR printer and parser.
#pragma once

#include "tico/ir/argument.h"
#include "tico/ir/dtype.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tico::text {

std::string_view layoutName(Layout layout);
bool parseLayoutName(std::string_view name, Layout &out);
std::string_view memoryFormatName(MemoryFormat format);
bool parseMemoryFormatName(std::string_view name, MemoryFormat &out);

// Floats print so that they read back bit-exactly and never look like integers.
std::string formatDouble(double value);
std::string formatFloat(float value);
std::string quote(std::string_view text);

// Dtypes whose elements print as text numbers; others print as raw hex bytes.
bool printsAsNumbers(DType dtype);

} // namespace tico::text
