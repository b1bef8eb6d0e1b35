// Reading small integer index constants (index_select indices, gather positions).
#pragma once

#include "tico/ir/value.h"

#include <cstring>
#include <optional>
#include <vector>

namespace tico::passes {

// The values of a constant int32/int64 tensor of rank <= 1, or nullopt.
inline std::optional<std::vector<int64_t>> constantIndices(const Value *v) {
  if (!v->isConstant() || v->rank() > 1 || (v->dtype() != DType::Int64 && v->dtype() != DType::Int32))
    return std::nullopt;
  std::vector<std::byte> bytes = v->constant()->contiguousBytes();
  std::vector<int64_t> out;
  std::size_t size = elementSize(v->dtype());
  for (std::size_t i = 0; i + size <= bytes.size(); i += size) {
    if (size == 8) {
      int64_t x;
      std::memcpy(&x, bytes.data() + i, 8);
      out.push_back(x);
    } else {
      int32_t x;
      std::memcpy(&x, bytes.data() + i, 4);
      out.push_back(x);
    }
  }
  return out;
}

} // namespace tico::passes
