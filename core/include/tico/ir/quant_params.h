// Quantization parameters of an IR value.
//
// A quantized value stores integers of its DType (u4, i4, u8, i8, i16, or i32/i64 for biases);
// its QuantParams say which real numbers they stand for, in the Circle (and ONNX Q/DQ)
// convention:
//
//   real = scale * (q - zero_point)
//
// Granularity follows from `axis` and `block_size`:
//   * per-tensor:  no axis; scale and zero_point hold one entry each;
//   * per-channel: axis = a, no block size; one entry per index of dimension a;
//   * per-block:   axis = a and block_size = B; every B consecutive indices along dimension a
//                  share an entry, independently for every index of the other dimensions. The
//                  entries are laid out row-major over the value's shape with dimension a
//                  divided by B (the ONNX blocked layout): a [O, I] weight with axis 1 and
//                  block 32 has O * I/32 scales. Circle's QuantizationParameters cannot hold
//                  this, so the Circle serializer refuses it.
// min / max (optional, both empty or as long as scale) record the calibrated range.
//
// MX (microscaling) values are the other kind: `mx` names the element format (mxint8, mxfp4:
// the two Circle's TensorType can carry), `axis` the dimension along which every 32
// consecutive elements share one power-of-two exponent, and nothing else is set. Their IR
// element type stays f32: the IR holds the real values (what MX fake quantization computes);
// the shared exponents exist only in the runtime's storage. The Circle serializer writes such a
// value as an MXINT8 / MXFP4 tensor with quantized_dimension = axis (docs/quantization.md, "MX").
//
// Values share one immutable record (std::shared_ptr<const QuantParams>), so copying a value's
// type or cloning a graph never copies the vectors.
#pragma once

#include "tico/ir/dtype.h"
#include "tico/ir/shape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tico {

// MX element formats with a Circle tensor type.
enum class MxFormat : uint8_t { Int8, Fp4 };

// "mxint8", "mxfp4" (the original converter's dtype spelling, also the textual IR's).
std::string_view mxFormatName(MxFormat format);
std::optional<MxFormat> mxFormatFromName(std::string_view name);

// Elements that share one exponent along the axis of an MX value.
inline constexpr int64_t kMxBlockSize = 32;

struct QuantParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  std::optional<int64_t> axis;       // absent: per-tensor
  std::optional<int64_t> block_size; // present: per-block along `axis`
  std::vector<float> min;
  std::vector<float> max;
  std::optional<MxFormat> mx;        // present: MX quantization along `axis` (see above)

  bool isPerTensor() const { return !axis.has_value(); }
  bool isMx() const { return mx.has_value(); }
  bool isPerBlock() const { return block_size.has_value(); }

  bool operator==(const QuantParams &other) const = default;
};

// Every way `q` does not fit a value of type `dtype` and shape `shape`: a scale that is not a
// positive finite number, a zero point outside the dtype's range, an axis outside the rank, a
// channel or block count that is not the dimension's size, scale and zero_point (or min and
// max) of different lengths, a block size that does not divide its dimension, a storage type
// that is not an integer quantized type. Each problem is one sentence fragment without the
// value's name (callers prefix it). Symbolic dimensions skip the checks that need their size.
// MX parameters: the value must be f32, carry an axis inside the rank and nothing else.
std::vector<std::string> quantParamsProblems(const QuantParams &q, DType dtype, const Shape &shape);

// The problems above joined as "value 'x': problem; problem", or "" when there are none.
std::string describeQuantParamsProblems(const QuantParams &q, DType dtype, const Shape &shape,
                                        const std::string &value_name);

} // namespace tico
