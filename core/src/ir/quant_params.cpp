#include "tico/ir/quant_params.h"

#include "text_common.h"

#include <cmath>

namespace tico {
namespace {

std::string lengthText(std::size_t n, const char *what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// How many scale entries the granularity needs; nullopt when a dimension it depends on is
// symbolic (the count is then unknown until export-time sizes are fixed).
std::optional<int64_t> expectedEntries(const QuantParams &q, const Shape &shape) {
  if (q.isPerTensor())
    return 1;
  const auto axis = static_cast<std::size_t>(*q.axis);
  if (!q.isPerBlock())
    return shape[axis].isStatic() ? std::optional<int64_t>(shape[axis].value()) : std::nullopt;
  if (!isStatic(shape))
    return std::nullopt;
  int64_t count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d)
    count *= d == axis ? shape[d].value() / *q.block_size : shape[d].value();
  return count;
}

std::vector<std::string> mxProblems(const QuantParams &q, DType dtype, const Shape &shape) {
  std::vector<std::string> problems;
  const std::string format(mxFormatName(*q.mx));
  if (dtype != DType::Float32)
    problems.push_back("has " + format + " quantization but its element type '" + std::string(dtypeName(dtype)) +
                       "' is not f32 (MX values hold their real values in the IR)");
  if (!q.scale.empty() || !q.zero_point.empty() || q.block_size || !q.min.empty() || !q.max.empty())
    problems.push_back("has " + format + " quantization together with scale, zp, block, min or max (an MX value "
                       "carries only its format and axis)");
  if (!q.axis)
    problems.push_back("has " + format + " quantization without an axis (the shared exponents run along it)");
  else if (*q.axis < 0 || *q.axis >= static_cast<int64_t>(shape.size()))
    problems.push_back(format + " quantization axis " + std::to_string(*q.axis) + " is outside the rank " +
                       std::to_string(shape.size()));
  return problems;
}

} // namespace

std::string_view mxFormatName(MxFormat format) {
  switch (format) {
  case MxFormat::Int8: return "mxint8";
  case MxFormat::Fp4: return "mxfp4";
  }
  return "mx?";
}

std::optional<MxFormat> mxFormatFromName(std::string_view name) {
  if (name == "mxint8")
    return MxFormat::Int8;
  if (name == "mxfp4")
    return MxFormat::Fp4;
  return std::nullopt;
}

std::vector<std::string> quantParamsProblems(const QuantParams &q, DType dtype, const Shape &shape) {
  if (q.isMx())
    return mxProblems(q, dtype, shape);
  std::vector<std::string> problems;
  if (!isQuantizedDType(dtype)) {
    problems.push_back("has quantization parameters but its element type '" + std::string(dtypeName(dtype)) +
                       "' is not a quantized integer type (u4, i4, u8, i8, i16, i32, i64)");
    return problems;
  }
  if (q.scale.empty()) {
    problems.push_back("has quantization parameters without a scale");
    return problems;
  }
  for (std::size_t i = 0; i < q.scale.size(); ++i)
    if (!std::isfinite(q.scale[i]) || !(q.scale[i] > 0.0f)) {
      problems.push_back("scale[" + std::to_string(i) + "] is " + text::formatFloat(q.scale[i]) +
                         "; a scale must be a positive finite number");
      break;
    }
  if (q.zero_point.size() != q.scale.size())
    problems.push_back("has " + lengthText(q.scale.size(), "scale") + " but " +
                       lengthText(q.zero_point.size(), "zero point"));
  const int64_t lo = qmin(dtype), hi = qmax(dtype);
  for (std::size_t i = 0; i < q.zero_point.size(); ++i)
    if (q.zero_point[i] < lo || q.zero_point[i] > hi) {
      problems.push_back("zero_point[" + std::to_string(i) + "] is " + std::to_string(q.zero_point[i]) +
                         ", outside the " + std::string(dtypeName(dtype)) + " range [" + std::to_string(lo) +
                         ", " + std::to_string(hi) + "]");
      break;
    }
  if (q.min.size() != q.max.size())
    problems.push_back("has " + std::to_string(q.min.size()) + " min and " + std::to_string(q.max.size()) +
                       " max entries");
  else if (!q.min.empty() && q.min.size() != q.scale.size())
    problems.push_back("has " + std::to_string(q.min.size()) + " min/max entries for " +
                       lengthText(q.scale.size(), "scale") + " (min/max are empty or one per scale)");
  if (q.block_size && !q.axis)
    problems.push_back("has a block size but no axis (blocks run along the axis)");
  if (q.axis && (*q.axis < 0 || *q.axis >= static_cast<int64_t>(shape.size()))) {
    problems.push_back("quantization axis " + std::to_string(*q.axis) + " is outside the rank " +
                       std::to_string(shape.size()));
    return problems;
  }
  if (q.block_size && q.axis) {
    const Dim &dim = shape[static_cast<std::size_t>(*q.axis)];
    if (*q.block_size <= 0) {
      problems.push_back("block size " + std::to_string(*q.block_size) + " is not positive");
      return problems;
    }
    if (dim.isStatic() && dim.value() % *q.block_size != 0) {
      problems.push_back("block size " + std::to_string(*q.block_size) + " does not divide dimension " +
                         std::to_string(*q.axis) + " of size " + std::to_string(dim.value()));
      return problems;
    }
  }
  if (auto expected = expectedEntries(q, shape); expected && static_cast<int64_t>(q.scale.size()) != *expected) {
    const char *granularity = q.isPerTensor() ? "per-tensor" : q.isPerBlock() ? "per-block" : "per-channel";
    problems.push_back("has " + lengthText(q.scale.size(), "scale") + " but its " + granularity +
                       " quantization" + (q.axis ? " along axis " + std::to_string(*q.axis) : std::string()) +
                       " of shape " + shapeString(shape) + " needs " + std::to_string(*expected));
  }
  return problems;
}

std::string describeQuantParamsProblems(const QuantParams &q, DType dtype, const Shape &shape,
                                        const std::string &value_name) {
  const auto problems = quantParamsProblems(q, dtype, shape);
  if (problems.empty())
    return {};
  std::string out = "value '" + value_name + "': ";
  for (std::size_t i = 0; i < problems.size(); ++i)
    out += (i ? "; " : "") + problems[i];
  return out;
}

} // namespace tico
