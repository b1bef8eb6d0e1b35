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
// Values share one immutable record (std::shared_ptr<const QuantParams>), so copying a value's
// type or cloning a graph never copies the vectors.
#pragma once

#include "tico/ir/dtype.h"
#include "tico/ir/shape.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tico {

struct QuantParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  std::optional<int64_t> axis;       // absent: per-tensor
  std::optional<int64_t> block_size; // present: per-block along `axis`
  std::vector<float> min;
  std::vector<float> max;

  bool isPerTensor() const { return !axis.has_value(); }
  bool isPerBlock() const { return block_size.has_value(); }

  bool operator==(const QuantParams &other) const = default;
};

// Every way `q` does not fit a value of type `dtype` and shape `shape`: a scale that is not a
// positive finite number, a zero point outside the dtype's range, an axis outside the rank, a
// channel or block count that is not the dimension's size, scale and zero_point (or min and
// max) of different lengths, a block size that does not divide its dimension, a storage type
// that is not an integer quantized type. Each problem is one sentence fragment without the
// value's name (callers prefix it). Symbolic dimensions skip the checks that need their size.
std::vector<std::string> quantParamsProblems(const QuantParams &q, DType dtype, const Shape &shape);

// The problems above joined as "value 'x': problem; problem", or "" when there are none.
std::string describeQuantParamsProblems(const QuantParams &q, DType dtype, const Shape &shape,
                                        const std::string &value_name);

} // namespace tico
