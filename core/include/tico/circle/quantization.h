// Circle encoding of quantized IR values: QuantizationParameters records and 4-bit payloads.
//
// Per-tensor parameters become one-element scale / zero_point lists (quantized_dimension left
// at 0); per-channel ones one entry per channel with quantized_dimension = the axis; min / max
// are written when the IR has them. Per-block parameters have no QuantizationParameters form
// (Circle's BlockwiseQuantization stores its scales in other tensors, which no runtime here
// reads), so they are refused with an error naming the tensor.
//
// 4-bit tensors (UINT4, INT4) are stored two elements per byte: element 2k in the low nibble,
// element 2k+1 in the high nibble, an odd last element padded with a zero high nibble.
#pragma once

#include "tico/circle/model.h"
#include "tico/ir/quant_params.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tico {

// The Circle record for `q`. Throws tico::Error naming `tensor_name` for per-block parameters.
std::shared_ptr<const circle::QuantizationParametersT> toCircleQuantization(const QuantParams &q,
                                                                            const std::string &tensor_name);

// MX values (QuantParams::mx): the Circle tensor type of the format (MXINT8 -7, MXFP4 -6) and
// back (nullopt for other types). Their record holds only quantized_dimension = the axis.
circle::TensorType circleMxType(MxFormat format);
std::optional<MxFormat> mxFormatOfCircleType(circle::TensorType type);

// The IR record for a Circle one (per-tensor when it holds a single scale, else per-channel
// along quantized_dimension); null when the record holds no scale. Throws tico::Error naming
// `tensor_name` for records with details (custom, MX, block-wise), which QuantParams cannot hold.
std::shared_ptr<const QuantParams> fromCircleQuantization(const circle::QuantizationParametersT &q,
                                                          const std::string &tensor_name);

// Equal scale, zero_point, quantized_dimension, min and max (both null also counts as equal;
// records with details are equal only when they are the same object).
bool sameCircleQuantization(const circle::QuantizationParametersT *a, const circle::QuantizationParametersT *b);

// Bytes a packed 4-bit payload of `count` elements takes: ceil(count / 2).
std::size_t packedInt4Bytes(std::size_t count);

// Packs the elements of `data` (UInt4 or Int4, one value per byte, any strides) in row-major
// order. Throws tico::Error naming `tensor_name` for a value outside the type's range.
std::vector<std::byte> packInt4(const TensorData &data, const std::string &tensor_name);

// The inverse: `count` elements of `dtype` (UInt4 or Int4) from `packed`, one per byte, Int4
// sign-extended into int8. Throws tico::Error when `packed` is shorter than packedInt4Bytes(count).
std::vector<std::byte> unpackInt4(const std::byte *packed, std::size_t packed_size, std::size_t count, DType dtype);

} // namespace tico
