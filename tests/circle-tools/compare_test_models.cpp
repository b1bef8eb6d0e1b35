// The float / quantized / defective MLPs of the `tico-circle compare` tests (compare_test_models.h).
//
// The quantized model is built here rather than by tico-run so the test needs no PyTorch and
// stays fast; it follows what the ptq recipe configs/quant/cnn-uint8.yaml produces (uint8
// activations with min/max ranges, uint8 per-channel asymmetric weights, int32 biases in the
// accumulator's scale) and the tensor names the pipeline gives (core/src/quant/graph_edits.cpp).
// Activation ranges come from the float forward pass on the test input itself, so every layer
// of the healthy quantized model lands well above 20 dB.
#include "compare_test_models.h"

#include "circle_doc_test_support.h"

#include "tico/circle/writer.h"
#include "tico/io/npy.h"
#include "tico/support/error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

namespace tico::circle_tools_test {
namespace {

using namespace tico::circle_doc_test;

constexpr int kRows = 4, kIn = 16, kHidden = 16, kOut = 8;

struct Layer {
  std::string name; // fc1, fc2, fc3
  int in = 0, out = 0;
  bool relu = false;
  std::vector<float> weight; // [out, in]
  std::vector<float> bias;   // [out]
};

// A fixed linear congruential sequence: the same models on every machine.
struct Sequence {
  uint32_t state;
  float next(float lo, float hi) {
    state = state * 1664525u + 1013904223u;
    return lo + (hi - lo) * static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
  }
};

std::vector<Layer> mlpLayers() {
  Sequence seq{2024};
  std::vector<Layer> layers = {{"fc1", kIn, kHidden, true, {}, {}},
                               {"fc2", kHidden, kHidden, true, {}, {}},
                               {"fc3", kHidden, kOut, false, {}, {}}};
  for (Layer &layer : layers) {
    const float bound = 1.0f / std::sqrt(static_cast<float>(layer.in)) * 1.7f;
    for (int i = 0; i < layer.in * layer.out; ++i)
      layer.weight.push_back(seq.next(-bound, bound));
    for (int i = 0; i < layer.out; ++i)
      layer.bias.push_back(seq.next(-0.2f, 0.2f));
  }
  return layers;
}

std::vector<float> mlpInput() {
  Sequence seq{77};
  std::vector<float> x;
  for (int i = 0; i < kRows * kIn; ++i)
    x.push_back(seq.next(-1.0f, 1.0f));
  return x;
}

// y = x · Wᵀ + b (and relu) in double: the reference values.
std::vector<double> forward(const Layer &layer, const std::vector<double> &x) {
  std::vector<double> y(static_cast<std::size_t>(kRows * layer.out));
  for (int r = 0; r < kRows; ++r)
    for (int o = 0; o < layer.out; ++o) {
      double acc = layer.bias[static_cast<std::size_t>(o)];
      for (int k = 0; k < layer.in; ++k)
        acc += x[static_cast<std::size_t>(r * layer.in + k)] * layer.weight[static_cast<std::size_t>(o * layer.in + k)];
      y[static_cast<std::size_t>(r * layer.out + o)] = layer.relu ? std::max(0.0, acc) : acc;
    }
  return y;
}

// uint8 asymmetric grid over [min(lo, 0), max(hi, 0)], as ptq's min/max estimator makes it.
struct Grid {
  float scale;
  int64_t zero;
  float lo, hi;
};

Grid uint8Grid(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  const double scale = (hi - lo) / 255.0;
  return {static_cast<float>(scale), std::clamp<int64_t>(std::llround(-lo / scale), 0, 255), static_cast<float>(lo),
          static_cast<float>(hi)};
}

Grid rangeGrid(const std::vector<double> &values) {
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return uint8Grid(*lo, *hi);
}

std::shared_ptr<const circle::QuantizationParametersT> activationRecord(const Grid &g) {
  auto q = std::make_shared<circle::QuantizationParametersT>(*quantRecord({g.scale}, {g.zero}));
  q->min = {g.lo};
  q->max = {g.hi};
  return q;
}

CircleOperator fullyConnected(uint32_t opcode, std::vector<int32_t> inputs, int32_t output, bool relu) {
  CircleOperator fc = op(opcode, std::move(inputs), {output});
  circle::FullyConnectedOptionsT options;
  options.fused_activation_function =
      relu ? circle::ActivationFunctionType::RELU : circle::ActivationFunctionType::NONE;
  fc.builtin_options.Set(options);
  return fc;
}

std::shared_ptr<const TensorData> data(DType dtype, std::vector<int64_t> sizes, std::vector<std::byte> bytes) {
  return std::make_shared<const TensorData>(TensorData::fromBytes(dtype, std::move(sizes), std::move(bytes)));
}

template <typename T> std::vector<std::byte> bytesOf(const std::vector<T> &values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

CircleModel floatMlp(const std::vector<Layer> &layers) {
  CircleModel m;
  m.description = "compare test: float MLP";
  m.operator_codes = {{static_cast<int32_t>(circle::BuiltinOperator::FULLY_CONNECTED)}};
  CircleSubGraph sg;
  sg.name = "main";
  sg.tensors.push_back(tensor("x", {kRows, kIn}));
  sg.inputs = {0};
  int32_t current = 0;
  const char *outputs[] = {"h1", "h2", "y"};
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const Layer &layer = layers[l];
    const uint32_t w = m.addBuffer(floatData({layer.out, layer.in}, layer.weight));
    const uint32_t b = m.addBuffer(floatData({layer.out}, layer.bias));
    const auto wi = static_cast<int32_t>(sg.tensors.size());
    sg.tensors.push_back(tensor(layer.name + ".weight", {layer.out, layer.in}, w));
    sg.tensors.push_back(tensor(layer.name + ".bias", {layer.out}, b));
    sg.tensors.push_back(tensor(outputs[l], {kRows, layer.out}));
    sg.operators.push_back(fullyConnected(0, {current, wi, wi + 1}, wi + 2, layer.relu));
    current = wi + 2;
  }
  sg.outputs = {current};
  m.subgraphs.push_back(std::move(sg));
  return m;
}

// `defect_layer` (an index into layers, or -1) gets its weight and bias scales multiplied by 4.
// `integer_input`: the model takes x as uint8 codes (quantized-model-io) instead of a QUANTIZE.
CircleModel quantizedMlp(const std::vector<Layer> &layers, const std::vector<Grid> &activations, int defect_layer,
                         bool integer_input = false) {
  CircleModel m;
  m.description = "compare test: uint8 MLP";
  m.operator_codes = {{static_cast<int32_t>(circle::BuiltinOperator::QUANTIZE)},
                      {static_cast<int32_t>(circle::BuiltinOperator::FULLY_CONNECTED)},
                      {static_cast<int32_t>(circle::BuiltinOperator::DEQUANTIZE)}};
  CircleSubGraph sg;
  sg.name = "main";
  sg.tensors.push_back(tensor("x", {kRows, kIn}));
  CircleTensor xq = tensor("x_q", {kRows, kIn});
  xq.type = circle::TensorType::UINT8;
  xq.quantization = activationRecord(activations[0]);
  sg.tensors.push_back(xq);
  sg.inputs = {0};
  sg.operators.push_back(op(0, {0}, {1}));
  int32_t current = 1;
  if (integer_input) {
    sg.tensors[0] = sg.tensors[1];
    sg.tensors[0].name = "x";
    sg.tensors.pop_back();
    sg.operators.clear();
    current = 0;
  }
  const char *outputs[] = {"h1", "h2", "y"};
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const Layer &layer = layers[l];
    const float factor = static_cast<int>(l) == defect_layer ? 4.0f : 1.0f;
    std::vector<uint8_t> codes(layer.weight.size());
    std::vector<float> w_scales, b_scales;
    std::vector<int64_t> w_zeros;
    std::vector<int32_t> bias(static_cast<std::size_t>(layer.out));
    for (int o = 0; o < layer.out; ++o) {
      const auto row = layer.weight.begin() + o * layer.in;
      const auto [lo, hi] = std::minmax_element(row, row + layer.in);
      const Grid g = uint8Grid(*lo, *hi);
      for (int k = 0; k < layer.in; ++k)
        codes[static_cast<std::size_t>(o * layer.in + k)] = static_cast<uint8_t>(
            std::clamp<int64_t>(std::llround(row[k] / g.scale) + g.zero, 0, 255));
      const double accumulator_scale = static_cast<double>(activations[l].scale) * g.scale;
      bias[static_cast<std::size_t>(o)] =
          static_cast<int32_t>(std::llround(layer.bias[static_cast<std::size_t>(o)] / accumulator_scale));
      w_scales.push_back(g.scale * factor);
      w_zeros.push_back(g.zero);
      b_scales.push_back(static_cast<float>(accumulator_scale) * factor);
    }
    const uint32_t wb = m.addBuffer(data(DType::UInt8, {static_cast<int64_t>(codes.size())}, bytesOf(codes)));
    const uint32_t bb = m.addBuffer(data(DType::UInt8, {static_cast<int64_t>(bias.size() * 4)}, bytesOf(bias)));
    const auto wi = static_cast<int32_t>(sg.tensors.size());
    CircleTensor w = tensor(layer.name + ".weight_codes", {layer.out, layer.in}, wb);
    w.type = circle::TensorType::UINT8;
    w.quantization = quantRecord(w_scales, w_zeros, 0);
    CircleTensor b = tensor(layer.name + ".bias_quantized", {layer.out}, bb);
    b.type = circle::TensorType::INT32;
    b.quantization = quantRecord(b_scales, std::vector<int64_t>(b_scales.size(), 0), 0);
    CircleTensor out = tensor(outputs[l], {kRows, layer.out});
    out.type = circle::TensorType::UINT8;
    out.quantization = activationRecord(activations[l + 1]);
    sg.tensors.push_back(w);
    sg.tensors.push_back(b);
    sg.tensors.push_back(out);
    sg.operators.push_back(fullyConnected(1, {current, wi, wi + 1}, wi + 2, layer.relu));
    current = wi + 2;
  }
  sg.tensors.push_back(tensor("y_dq", {kRows, kOut}));
  sg.operators.push_back(op(2, {current}, {static_cast<int32_t>(sg.tensors.size() - 1)}));
  sg.outputs = {static_cast<int32_t>(sg.tensors.size() - 1)};
  m.subgraphs.push_back(std::move(sg));
  return m;
}

// The --encodings JSON tico-run writes (apps/tico-run/encodings.cpp), for the quantized MLP.
std::string encodingsJson(const CircleModel &model) {
  std::string text = "{\n \"format\": \"tico.encodings\",\n \"version\": 1,\n \"model\": \"mlp_quant.circle\",\n"
                     " \"convention\": \"real = scale * (q - zero_point)\",\n \"tensors\": [";
  const CircleSubGraph &sg = model.subgraphs[0];
  const char *separator = "\n  ";
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    const CircleTensor &tensor = sg.tensors[t];
    if (!tensor.quantization)
      continue;
    const bool constant = tensor.buffer != 0;
    const bool bias = tensor.type == circle::TensorType::INT32;
    std::string scales, zeros;
    for (std::size_t i = 0; i < tensor.quantization->scale.size(); ++i) {
      scales += (i ? ", " : "") + std::to_string(tensor.quantization->scale[i]);
      zeros += (i ? ", " : "") + std::to_string(tensor.quantization->zero_point[i]);
    }
    text += separator;
    text += "{\"subgraph\": 0, \"index\": " + std::to_string(t) + ", \"name\": \"" + tensor.name + "\", \"dtype\": \"" +
            (bias ? "int32" : "uint8") + "\", \"role\": \"" + (!constant ? "activation" : bias ? "bias" : "weight") +
            "\", \"bits\": " + (bias ? "32" : "8") + ", \"signed\": " + (bias ? "true" : "false") +
            ", \"granularity\": \"" + (tensor.quantization->scale.size() == 1 ? "per-tensor" : "per-channel") +
            "\", \"scale\": [" + scales + "], \"zero_point\": [" + zeros + "]}";
    separator = ",\n  ";
  }
  text += "\n ],\n \"metrics\": [\n  {\"subject\": \"fc1\", \"metric\": \"error_ratio\", \"value\": 0.12},\n"
          "  {\"subject\": \"fc2\", \"metric\": \"error_ratio\", \"value\": 0.61},\n"
          "  {\"subject\": \"fc3\", \"metric\": \"error_ratio\", \"value\": 0.25}\n ]\n}\n";
  return text;
}

} // namespace

void writeCompareTestModels(const std::filesystem::path &dir) {
  const std::vector<Layer> layers = mlpLayers();
  const std::vector<float> x = mlpInput();
  std::vector<double> value(x.begin(), x.end());
  std::vector<Grid> grids = {rangeGrid(value)};
  for (const Layer &layer : layers) {
    value = forward(layer, value);
    grids.push_back(rangeGrid(value));
  }
  writeNpy((dir / "mlp_x.npy").string(), TensorData::fromVector(DType::Float32, {kRows, kIn}, x));
  // --inputs-dir: a folder holding each input as <input name>.npy.
  std::filesystem::create_directories(dir / "mlp_inputs");
  writeNpy((dir / "mlp_inputs" / "x.npy").string(), TensorData::fromVector(DType::Float32, {kRows, kIn}, x));
  writeNpy((dir / "mlp_y_ref.npy").string(),
           TensorData::fromVector(DType::Float32, {kRows, kOut}, std::vector<float>(value.begin(), value.end())));

  const CircleModel float_model = floatMlp(layers);
  writeCircleFile(float_model, (dir / "mlp_float.circle").string());
  const CircleModel quantized = quantizedMlp(layers, grids, -1);
  writeCircleFile(quantized, (dir / "mlp_quant.circle").string());
  writeCircleFile(quantizedMlp(layers, grids, 1), (dir / "mlp_defect.circle").string());
  writeCircleFile(quantizedMlp(layers, grids, -1, true), (dir / "mlp_quant_io.circle").string());
  CircleModel renamed = float_model;
  for (CircleTensor &t : renamed.subgraphs[0].tensors)
    t.name = "other_" + t.name;
  writeCircleFile(renamed, (dir / "mlp_renamed.circle").string());

  std::ofstream json(dir / "mlp_quant.encodings.json", std::ios::trunc);
  json << encodingsJson(quantized);
  if (!json)
    throw Error("cannot write " + (dir / "mlp_quant.encodings.json").string());
}

} // namespace tico::circle_tools_test
