// NumPy .npy files (format versions 1.0-3.0, little-endian, C order) for tool I/O.
#pragma once

#include "tico/ir/tensor_data.h"

#include <memory>
#include <string>

namespace tico {

// Reads an .npy file (memory-mapped). Throws tico::Error for malformed or unsupported files
// (Fortran order, big-endian, object arrays).
std::shared_ptr<const TensorData> readNpy(const std::string &path);
// Writes `data` (any view; written row-major) as .npy version 1.0.
void writeNpy(const std::string &path, const TensorData &data);

} // namespace tico
