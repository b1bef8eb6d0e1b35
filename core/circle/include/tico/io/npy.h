// NumPy .npy files (format versions 1.0-3.0, little-endian, C order) for tool I/O.
#pragma once

#include "tico/ir/tensor_data.h"

#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace tico {

// Reads an .npy file (memory-mapped). Throws tico::Error for malformed or unsupported files
// (Fortran order, big-endian, object arrays).
std::shared_ptr<const TensorData> readNpy(const std::string &path);
// Reads a whole .npy file image held in memory (an .npz member); `name` stands for it in
// messages. The elements are copied out of `bytes`.
std::shared_ptr<const TensorData> parseNpy(std::span<const std::byte> bytes, const std::string &name);
// As parseNpy, without a copy: the tensor views `bytes`, and `owner` (what holds them) lives as
// long as the tensor's storage.
std::shared_ptr<const TensorData> adoptNpy(std::span<const std::byte> bytes, std::shared_ptr<const void> owner,
                                           const std::string &name);
// The size in bytes a whole .npy file image must have, from its header alone: `prefix` holds at
// least the magic, the version and the header; the data need not be there. An .npz reader checks
// it against the size the archive declares before inflating a member. Throws like parseNpy on a
// malformed or truncated header.
std::size_t npyImageSize(std::span<const std::byte> prefix, const std::string &name);
// Writes `data` (any view; written row-major) as .npy version 1.0.
void writeNpy(const std::string &path, const TensorData &data);

} // namespace tico
