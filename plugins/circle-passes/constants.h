// Constant tensors of a CircleModel: which tensors are constants, their payload as typed
// values, and new payloads.
//
// A buffer's TensorData is only a byte carrier here: the converter stores typed, possibly
// strided views (a permuted weight is a re-strided view of the PyTorch storage), the reader
// stores flat uint8 views of the file. Both are read through contiguousBytes(), i.e. in
// row-major order, and interpreted with the tensor's type and shape. Buffers are never
// modified in place: they may be shared by other tensors and subgraphs, and may be backed by
// a read-only mapping. A rewrite that needs other values makes a new buffer.
#pragma once

#include "tico/circle/query.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tico::circle_passes {

// Row-major payload bytes; nullopt unless hasTypedPayload() (tico/circle/query.h).
std::optional<std::vector<std::byte>> constantBytes(const CircleModel &model, const CircleTensor &tensor);

// Values converted to double / int64; nullopt for non-constants and types that do not convert
// exactly (double: float16/32/64 and integers up to 2^53; int64: integer types and bool).
std::optional<std::vector<double>> constantAsDoubles(const CircleModel &model, const CircleTensor &tensor);
std::optional<std::vector<int64_t>> constantAsInts(const CircleModel &model, const CircleTensor &tensor);
std::optional<std::vector<float>> constantAsFloats(const CircleModel &model, const CircleTensor &tensor);

// True when the constant holds exactly one distinct value equal to `value` (any element count).
bool constantIsSplat(const CircleModel &model, const CircleTensor &tensor, double value);

// Owned payloads for new buffers.
std::shared_ptr<const TensorData> payloadFromBytes(circle::TensorType type, const std::vector<int32_t> &shape,
                                                   std::vector<std::byte> bytes);
std::shared_ptr<const TensorData> payloadFromFloats(const std::vector<int32_t> &shape, const std::vector<float> &values);
std::shared_ptr<const TensorData> payloadFromInt32(const std::vector<int32_t> &shape, const std::vector<int32_t> &values);
// Values cast to `type` (float, integer or bool types).
std::shared_ptr<const TensorData> payloadFromDoubles(circle::TensorType type, const std::vector<int32_t> &shape,
                                                     const std::vector<double> &values);
std::shared_ptr<const TensorData> payloadFromInts(circle::TensorType type, const std::vector<int32_t> &shape,
                                                  const std::vector<int64_t> &values);

// Permutes a row-major array of `element_size`-byte elements with dims `shape`:
// out.shape[i] = shape[perm[i]].
std::vector<std::byte> permuteBytes(const std::vector<std::byte> &in, const std::vector<int64_t> &shape,
                                    const std::vector<int64_t> &perm, std::size_t element_size);

} // namespace tico::circle_passes
