// tico-run --encodings FILE: every quantized tensor of the written Circle model as versioned
// JSON (docs/quantizers.md, "Encodings export"), so toolchains that do not read Circle (a
// vendor compiler, an analysis notebook) get the same numbers the file carries, plus what the
// quantizers reported.
#include "tool.h"

#include "tico/circle/model.h"
#include "tico/support/error.h"
#include "tico/support/file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace tico::run {
namespace {

std::string typeName(circle::TensorType type) {
  const char *name = circle::EnumNameTensorType(type);
  std::string text = (name && *name) ? name : std::to_string(static_cast<int>(type));
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// Bits and signedness of the integer storage types quantized tensors use.
bool integerType(circle::TensorType type, int &bits, bool &is_signed) {
  switch (type) {
  case circle::TensorType::UINT4: bits = 4, is_signed = false; return true;
  case circle::TensorType::INT4: bits = 4, is_signed = true; return true;
  case circle::TensorType::UINT8: bits = 8, is_signed = false; return true;
  case circle::TensorType::INT8: bits = 8, is_signed = true; return true;
  case circle::TensorType::INT16: bits = 16, is_signed = true; return true;
  case circle::TensorType::INT32: bits = 32, is_signed = true; return true;
  case circle::TensorType::INT64: bits = 64, is_signed = true; return true;
  default: return false;
  }
}

// The float32 values of constant tensor `name` in `graph` (empty when there is none).
std::vector<float> constantFloats(const CircleModel &model, const CircleSubGraph &graph, const std::string &name) {
  for (const CircleTensor &t : graph.tensors) {
    if (t.name != name || t.type != circle::TensorType::FLOAT32 || t.buffer == 0 || t.buffer >= model.buffers.size() ||
        !model.buffers[t.buffer].data)
      continue;
    const TensorData &data = *model.buffers[t.buffer].data;
    std::vector<float> out(data.nbytes() / sizeof(float));
    data.copyContiguousTo(reinterpret_cast<std::byte *>(out.data()));
    return out;
  }
  return {};
}

nlohmann::ordered_json floats(const std::vector<float> &values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (float v : values)
    out.push_back(static_cast<double>(v)); // exact: every float is a double
  return out;
}

} // namespace

std::string encodingsJson(const CircleModel &model, const std::vector<QuantizerMetric> &metrics,
                          const std::string &model_file) {
  nlohmann::ordered_json doc;
  doc["format"] = "tico.encodings";
  doc["version"] = 1;
  doc["model"] = model_file;
  doc["convention"] = "real = scale * (q - zero_point)";
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < model.subgraphs.size(); ++s) {
    const CircleSubGraph &graph = model.subgraphs[s];
    for (std::size_t t = 0; t < graph.tensors.size(); ++t) {
      const CircleTensor &tensor = graph.tensors[t];
      if (!tensor.quantization)
        continue;
      const circle::QuantizationParametersT &q = *tensor.quantization;
      const bool mx = q.details.type == circle::QuantizationDetails::MXQuantization;
      if (q.scale.empty() && !mx)
        continue;
      nlohmann::ordered_json e;
      e["subgraph"] = s;
      e["index"] = t;
      e["name"] = tensor.name;
      e["dtype"] = typeName(tensor.type);
      const bool constant = tensor.buffer != 0 && tensor.buffer < model.buffers.size() && model.buffers[tensor.buffer].data;
      e["role"] = !constant ? "activation"
                  : (tensor.type == circle::TensorType::INT32 || tensor.type == circle::TensorType::INT64) ? "bias"
                                                                                                              : "weight";
      if (mx) {
        e["granularity"] = "mx";
        e["axis"] = q.quantized_dimension;
        e["block_size"] = 32;
        tensors.push_back(std::move(e));
        continue;
      }
      int bits = 0;
      bool is_signed = false;
      if (integerType(tensor.type, bits, is_signed)) {
        e["bits"] = bits;
        e["signed"] = is_signed;
      }
      // Grouped weights (quant::dequantizedWeight with per-block parameters) are codes with
      // scale 1 read through '<weight>_group_scales' / '_group_zero_points' tables [rows,
      // groups, 1]: report the groups' parameters, which are the weight's real encoding.
      const std::string suffix = "_codes";
      if (constant && q.scale.size() == 1 && q.scale[0] == 1.0f && tensor.shape.size() == 2 &&
          tensor.name.size() > suffix.size() && tensor.name.ends_with(suffix)) {
        const std::string base = tensor.name.substr(0, tensor.name.size() - suffix.size());
        const std::vector<float> scales = constantFloats(model, graph, base + "_group_scales");
        const std::vector<float> zeros = constantFloats(model, graph, base + "_group_zero_points");
        const auto rows = static_cast<std::size_t>(tensor.shape[0]);
        if (!scales.empty() && scales.size() == zeros.size() && rows > 0 && scales.size() % rows == 0 &&
            tensor.shape[1] % static_cast<int32_t>(scales.size() / rows) == 0) {
          std::vector<int64_t> zero_points(zeros.begin(), zeros.end());
          e["symmetric"] = is_signed && std::all_of(zero_points.begin(), zero_points.end(), [](int64_t z) { return z == 0; });
          e["granularity"] = "per-block";
          e["axis"] = 1;
          e["block_size"] = tensor.shape[1] / static_cast<int32_t>(scales.size() / rows);
          e["scale"] = floats(scales);
          e["zero_point"] = zero_points;
          tensors.push_back(std::move(e));
          continue;
        }
      }
      const bool all_zero = std::all_of(q.zero_point.begin(), q.zero_point.end(), [](int64_t z) { return z == 0; });
      e["symmetric"] = is_signed && all_zero;
      e["granularity"] = q.scale.size() == 1 ? "per-tensor" : "per-channel";
      if (q.scale.size() != 1)
        e["axis"] = q.quantized_dimension;
      e["scale"] = floats(q.scale);
      e["zero_point"] = q.zero_point;
      if (!q.min.empty())
        e["min"] = floats(q.min);
      if (!q.max.empty())
        e["max"] = floats(q.max);
      tensors.push_back(std::move(e));
    }
  }
  doc["tensors"] = std::move(tensors);
  nlohmann::ordered_json reported = nlohmann::ordered_json::array();
  for (const QuantizerMetric &m : metrics)
    reported.push_back({{"subject", m.subject}, {"metric", m.metric}, {"value", m.value}});
  doc["metrics"] = std::move(reported);
  return doc.dump(1) + "\n";
}

} // namespace tico::run
